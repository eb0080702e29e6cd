// Package text is the one home of the string helpers every layer uses to
// put program text in front of a model or a user: cutting it to a size
// without splitting a UTF-8 character (Clip, ClipTail, ClipRunes,
// Shorten, ShortenRunes), fencing it so that it cannot close its own
// Markdown block (Fence, InlineCode), and turning what a program printed
// for a terminal into plain text (StripEscapes, TrimBlankLines).
//
// It uses the standard library only (layering_test.go), so that edits,
// settings and everything above can share one rule for each of these
// instead of a copy that drifts.
package text
