package lsp_test

import (
	"slices"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestMentionCompletion: in a chat document, "@" completes the
// workspace's paths under what is typed (folders with a "/", hidden ones
// left out) and "#" the keyword mentions, replacing the typed word; in
// other documents agentls offers nothing.
func TestMentionCompletion(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, map[string]string{"src/main.go": "package main\n", "src/util/u.go": "package util\n", "src/.hidden": "", "README.md": "x\n"})
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			e := lsptest.Start(t, root, p)
			complete := func(rel, text string) []string {
				e.OpenBuffer(rel, "markdown", text)
				lines := slices.Collect(func(yield func(string) bool) {
					start := 0
					for i := 0; i < len(text); i++ {
						if text[i] == '\n' {
							if !yield(text[start:i]) {
								return
							}
							start = i + 1
						}
					}
					yield(text[start:])
				})
				last := lines[len(lines)-1]
				var list protocol.CompletionList
				if err := e.Call(protocol.MethodTextDocumentCompletion, map[string]any{
					"textDocument": map[string]any{"uri": "file://" + root + "/" + rel},
					"position":     map[string]any{"line": len(lines) - 1, "character": len([]rune(last))},
				}, &list); err != nil {
					t.Fatal(err)
				}
				var labels []string
				for _, it := range list.Items {
					labels = append(labels, it.Label)
					if it.TextEdit == nil || it.TextEdit.NewText != it.Label || it.TextEdit.Range.End.Character != uint32(len([]rune(last))) {
						t.Errorf("item %q does not replace the typed word: %+v", it.Label, it.TextEdit)
					}
				}
				return labels
			}
			chat := ".agentls/chat/chat.md"
			if got := complete(chat, "## You\n\nlook at @sr"); !slices.Equal(got, []string{"@src/"}) {
				t.Errorf("@sr: %q", got)
			}
			if got := complete(chat, "## You\n\nlook at (@src/"); !slices.Equal(got, []string{"@src/main.go", "@src/util/"}) {
				t.Errorf("@src/: %q", got)
			}
			if got := complete(chat, "## You\n\né #di"); !slices.Equal(got, []string{"#diagnostics"}) {
				t.Errorf("#di: %q", got)
			}
			if got := complete(chat, "## You\n\n@b"); !slices.Equal(got, []string{"@buffers"}) {
				t.Errorf("@b: %q", got)
			}
			if got := complete("notes.md", "look at @sr"); len(got) != 0 {
				t.Errorf("outside a chat: %q", got)
			}
		})
	}
}
