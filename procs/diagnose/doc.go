// Package diagnose turns the output of a finished command into diagnostics
// on files and lines: `go test` failures, compiler errors, linter findings,
// Python tracebacks. It is pure: it reads the files a command names (to
// resolve and check paths) but runs nothing and knows nothing of LSP; the
// server converts its Diagnostics and publishes them (DESIGN.md §3 "Run").
//
// Parse picks presets by the command's words (Presets): errorformat strings
// (github.com/reviewdog/errorformat, Vim's 'errorformat') for line-shaped
// output, and small hand-written scanners where a location depends on
// context errorformat cannot carry: `go test` names files relative to the
// package of a later `FAIL\t<pkg>` line, and a traceback's message belongs to
// the deepest frame inside the workspace. Every diagnostic names an existing
// file inside the workspace root; anything else is dropped.
package diagnose
