package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/edittool"
)

// TestUnseenFileEdit is the edit of a file agentls has no open document
// for (issue 25): sent with version null, it is one TextEdit replacing
// the whole buffer with the new text, and the WorkspaceEdit carries the
// sha256 of the disk text it was computed from. Applied to a buffer the
// user changed without saving (a line added above const A), it cannot
// land on const A, as the minimal edit computed on the disk did; agentls's
// editor set-ups check the hash so that it does not overwrite that line
// either. A file open in agentls keeps its minimal, versioned edits and
// no hash.
func TestUnseenFileEdit(t *testing.T) {
	const disk = "package p\n\nconst A = 1\nconst B = 2\n"
	const userBuffer = "package p\n\nconst Z = 0\nconst A = 1\nconst B = 2\n"
	for _, open := range []bool{false, true} {
		name := map[bool]string{false: "not open", true: "open"}[open]
		t.Run(name, func(t *testing.T) {
			s, src := serverWithFile(t, disk, edits.UTF16, open)
			batch := &edittool.Batch{Root: s.session().root, Source: src}
			if _, err := batch.Patch(context.Background(), "f.go", conflictPatch("const B = 2\n", "const B = 3\n")); err != nil {
				t.Fatal(err)
			}
			we, err := s.delivery.workspaceEditFor(&batch.Changes)
			if err != nil {
				t.Fatal(err)
			}
			if len(we.DocumentChanges) != 1 {
				t.Fatalf("%d document changes, want 1", len(we.DocumentChanges))
			}
			tde := we.DocumentChanges[0].(textDocumentEdit)
			raw, err := json.Marshal(applyEditParams{Edit: we})
			if err != nil {
				t.Fatal(err)
			}
			if open {
				if tde.TextDocument.Version == nil || *tde.TextDocument.Version != 3 {
					t.Errorf("version %v, want 3", tde.TextDocument.Version)
				}
				want := []protocol.TextEdit{{Range: lspRange(3, 10, 3, 11), NewText: "3"}}
				if len(tde.Edits) != 1 || tde.Edits[0] != want[0] {
					t.Errorf("edits %v, want the minimal %v", tde.Edits, want)
				}
				if strings.Contains(string(raw), "agentlsBaseHashes") {
					t.Errorf("an open document's edit carries base hashes: %s", raw)
				}
				return
			}
			if tde.TextDocument.Version != nil {
				t.Errorf("version %d, want null", *tde.TextDocument.Version)
			}
			sum := sha256.Sum256([]byte(disk))
			if got := we.BaseHashes[tde.TextDocument.URI]; got != hex.EncodeToString(sum[:]) {
				t.Errorf("base hash %q, want the sha256 of the disk text", got)
			}
			if !strings.Contains(string(raw), `"agentlsBaseHashes":{"`+string(tde.TextDocument.URI)+`":"`+hex.EncodeToString(sum[:])+`"}`) {
				t.Errorf("the applyEdit params do not carry the base hash: %s", raw)
			}
			if got := applyLSPEdits(t, disk, tde.Edits, edits.UTF16); got != "package p\n\nconst A = 1\nconst B = 3\n" {
				t.Errorf("on the disk's text the edit makes %q", got)
			}
			// A buffer the user changed: the edit replaces it whole, so
			// no line of it is changed in place of another.
			if got := applyLSPEdits(t, userBuffer, tde.Edits, edits.UTF16); strings.Contains(got, "const A = 3") || got != batch.Changes.Effective()[0].Result() {
				t.Errorf("on the user's buffer the edit makes %q", got)
			}
		})
	}
}
