// Package edits is agentls's text engine: it turns a model's edit blocks
// into exact changes of file contents, or refuses with an error that tells
// the model how to recover. It knows nothing of LSP, models or processes.
//
// The rules (DESIGN.md §4): hunks match whole lines, never substrings; a
// match must be unique at the loosest tier it needs (exact, then trailing
// whitespace, then whitespace-only lines, then a uniform indentation shift,
// then Unicode punctuation); every byte outside the changed lines is kept,
// line endings, BOM and final newline included; placeholders are matched
// piece by piece or refused, never written; everything is resolved in memory
// before anything is written.
package edits
