package lsp

import (
	"crypto/sha256"
	"encoding/hex"
	"math"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// A file agentls has no open document for is edited with version null,
// computed from the disk. The editor may still hold it in a buffer that
// agentls cannot see (eglot set up for Markdown only, a file type a
// plugin does not attach), with unsaved changes: positions computed from
// the disk would land on other lines of that buffer (issue 25: a line
// added above const A, and the edit meant for const B changed const A).
// Such an edit is therefore sent in the one form whose effect does not
// depend on what the buffer holds — one TextEdit replacing everything
// (unseenFileEdit) — and the sha256 of its base travels with it
// (workspaceEdit.BaseHashes), so that agentls's own editor set-ups refuse
// it (applied: false, then pending review) when the buffer holds text
// other than the base: the whole-file replace never lands on a wrong
// line, and the check keeps it from overwriting the user's unsaved text.

// wholeDocumentEnd is a position past the end of any buffer: LSP 3.17's
// largest uinteger as the line. Editors clamp a position past the last
// line to the end of the text (VS Code, Neovim, eglot, Helix, lsptest).
var wholeDocumentEnd = protocol.Position{Line: math.MaxInt32}

// unseenFileEdit is the edit of a file edited with version null: its
// whole text, from the start of the buffer to its end, whatever the
// buffer holds.
func unseenFileEdit(c *edits.FileChange) []protocol.TextEdit {
	return []protocol.TextEdit{{Range: protocol.Range{End: wholeDocumentEnd}, NewText: c.Result()}}
}

// baseHash is the hex sha256 of the text an edit was computed from.
func baseHash(base string) string {
	sum := sha256.Sum256([]byte(base))
	return hex.EncodeToString(sum[:])
}
