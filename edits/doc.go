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
//
// # Formats and lines
//
// gptme's conflict markers (ParseConflict, which also reads SEARCH/REPLACE
// markers and tolerates marker noise) and OpenAI's V4A (ParseV4A: Add,
// Delete, Update, Move, @@ scope lines) all become Hunks (ORIGINAL lines →
// UPDATED lines) for one matcher. A text is split at "\n" only; each line
// keeps its own ending, so an LF patch matches a CRLF file and new lines
// get the file's ending.
//
// # Matching (match.go, local.go, sampled.go, indent.go)
//
// The first tier that finds any candidate decides; more than one
// candidate there is an error naming the lines, never a guess. The exact
// tier has fast paths that do not split the text into lines (a hunk is
// located by its rarest bytes; many hunks on a large text by one sampled
// pass), and a loosely matching hunk first tries the windows around its
// longest line. Every path is linear in the file and the patch, however
// repetitive the file: each works within a budget and hands the rest to
// the general way, which falls back to Knuth-Morris-Pratt over line keys.
// When ORIGINAL matches only loosely but UPDATED is in the file exactly,
// the hunk is refused as already applied. V4A scope lines narrow the
// candidates to the block the scope opens; several left is a refusal.
//
// # Replacing (apply.go, placeholder.go)
//
// UPDATED lines an LCS pairs with ORIGINAL lines are context, copied from
// the file byte for byte; new lines get the file's indentation and line
// ending; a BOM is set aside and put back. All hunks resolve against the
// original text (ResolveHunks, as TextEdits) and are spliced in one pass
// (ApplyHunks); overlapping hunks are refused. "// ..." and "# ..." split
// a hunk into pieces that must each match uniquely, in order. A HunkError
// says which hunk, then what to do: the duplicate locations, "already
// applied", or the nearest region with line numbers (nearest.go, bounded
// to about 8 KB however large the file).
//
// # Changeset, paths and disk
//
// A Changeset holds the file changes of one request, each with the base
// content (and editor version, NotOpen when none) it was computed on. A
// change keeps the edits its tool made, so a WorkspaceEdit to a large open
// buffer is built without copying or diffing it; FileChange.Result is made
// on first use, and so is the Base of a change recorded on an editor's
// Buffer (Changeset.EditBuffer, after Buffer.ResolveHunks found its hunks
// chunk by chunk). ResolveInRoot is the one path check, for the CLI and the
// server alike: symlinks followed (dangling ones too), anything leading
// outside the root refused; CleanPath uses it and never expands "~".
// CheckMode refuses changing a read-only file or a setuid/setgid one.
//
// ApplyToDisk checks every target (inside the root, content equal to its
// base, mode, regular file) before anything is written, then writes with
// no window between check and use: on Linux each folder is opened beneath
// the root with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS), files are
// written to a temporary file and renamed, and a failure puts back what
// was written. Every refusal ends with "Nothing was written." The check
// compares the file with the base a block at a time, and the new content
// is written from the base's pieces and the edits, so neither is copied
// whole. On ext4 and btrfs, which write a renamed-over file's data
// before the rename commits, files are not synced before the rename (as
// gptme, aider, VS Code, git and os.WriteFile do not): a power loss keeps
// the old file or the new one without it, and the sync cost more than the
// rest of a small patch. Elsewhere (xfs, network filesystems, other
// systems) each file is synced first (see ApplyToDisk).
//
// # Positions
//
// Mapper converts byte offsets to line and character in UTF-8, UTF-16 or
// UTF-32 (lines end at "\n", "\r\n" or a lone "\r", as LSP says). Buffer
// is an editor buffer as immutable chunks of whole lines (~4 KB) with a
// Mapper and a Bloom filter of its lines each, so a keystroke costs one
// chunk whatever the document's size, and an exact hunk is searched for
// only in the few chunks that may hold its longest line. MinimalEdits
// trims a change to the bytes that differ, never splitting a UTF-8
// character, so cursors in untouched text stay put.
//
// # Differences from gptme, aider and Codex
//
// Each is a case in peers_test.go (and tools/edittool's): whole lines, not
// substrings (gptme turned `x := 10` into `x := 20`); uniqueness at every
// tier; line endings and BOM kept (gptme writes CRLF files back as LF);
// text between hunks is dropped only when no line of it looks like a
// marker; a blank line before a marker is a line, not gptme's literal
// "ends with a newline"; an empty SEARCH creates a missing file or fills
// an empty one, but is refused on a non-empty one (aider appends); V4A's
// Add File over an existing file is refused (Codex overwrites); the
// file's final-newline state is kept (Codex always adds one); an already
// applied patch says so instead of "not found".
package edits
