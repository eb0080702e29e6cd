package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestCodeActionRangeInsideReply: editors send the word or the character
// at the cursor as the code action's range (eglot's C-c a x, Helix's
// one-character selection), which holds no complete block. A range inside
// an edit block offers that block's edits; elsewhere in a Markdown reply,
// the whole document's; a range holding whole blocks still offers just
// those; in code, a range outside any block offers nothing.
func TestCodeActionRangeInsideReply(t *testing.T) {
	t.Parallel()
	// Two blocks: a patch of a.go (lines 2-8) and a save of c.go (lines
	// 10-12), with prose around them.
	const replyDoc = "Renaming Config, then a new file.\n\n" +
		"```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n" +
		"```save c.go\npackage p\n```\n\nThat is all.\n"
	// The same blocks in a Go comment: no Markdown document.
	const goDoc = "package p\n\n/*\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n*/\nvar x = 1\n"
	word := func(line, from, to uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: line, Character: from}, End: protocol.Position{Line: line, Character: to}}
	}
	tests := []struct {
		name      string
		doc, lang string
		r         protocol.Range
		want      string // the Apply action's title; "" for none
		wantA     bool   // running it renames Config in a.go
		wantC     bool   // running it creates c.go
	}{
		{"word in the patch block", replyDoc, "markdown", word(4, 5, 11), "Apply agent reply (1 edit in 1 file)", true, false},
		{"word in its fence line", replyDoc, "markdown", word(2, 3, 8), "Apply agent reply (1 edit in 1 file)", true, false},
		{"word in the save block", replyDoc, "markdown", word(11, 0, 7), "Apply agent reply (1 edit in 1 file)", false, true},
		{"word in the prose", replyDoc, "markdown", word(0, 0, 8), "Apply agent reply (2 edits in 2 files)", true, true},
		{"from prose into a block", replyDoc, "markdown", protocol.Range{Start: protocol.Position{Line: 0}, End: protocol.Position{Line: 4, Character: 4}}, "Apply agent reply (2 edits in 2 files)", true, true},
		{"the whole save block", replyDoc, "markdown", protocol.Range{Start: protocol.Position{Line: 10}, End: protocol.Position{Line: 13}}, "Apply agent reply (1 edit in 1 file)", false, true},
		{"word in a block in code", goDoc, "go", word(5, 5, 11), "Apply agent reply (1 edit in 1 file)", true, false},
		{"word outside the block in code", goDoc, "go", word(12, 4, 5), "", false, false},
	}
	for _, p := range []lsptest.Profile{lsptest.Neovim07(), lsptest.Helix()} {
		for _, tt := range tests {
			t.Run(p.Name+"/"+tt.name, func(t *testing.T) {
				root := writeFiles(t, map[string]string{"a.go": "package p\n\ntype Config struct{}\n"})
				e := lsptest.Start(t, root, p)
				name := "reply." + map[string]string{"markdown": "md", "go": "go"}[tt.lang]
				e.OpenBuffer(name, tt.lang, tt.doc)
				var apply *protocol.CodeAction
				var titles []string
				for _, a := range e.CodeActions(name, tt.r) {
					titles = append(titles, a.Title)
					if strings.HasPrefix(a.Title, "Apply agent reply") {
						apply = &a
					}
				}
				if tt.want == "" {
					if apply != nil {
						t.Fatalf("offered %q on a range outside any block", apply.Title)
					}
					return
				}
				if apply == nil || apply.Title != tt.want {
					t.Fatalf("actions %q, want %q", titles, tt.want)
				}
				if err := e.RunCodeAction(*apply); err != nil {
					t.Fatal(err)
				}
				a := lsptest.FileContent("a.go", "package p\n\ntype Config struct{}\n")
				if tt.wantA {
					a = lsptest.FileContent("a.go", "package p\n\ntype Settings struct{}\n")
				}
				c := lsptest.NoFile("c.go")
				if tt.wantC {
					c = lsptest.FileContent("c.go", "package p\n")
				}
				e.Await(lsptest.ShownMessage("applied"), a, c)
			})
		}
	}
}
