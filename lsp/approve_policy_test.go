package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestApprovalRefusalWords: what the model is told when a command that
// needs approval is not run says why, as agentls ask says it. With
// approvalPolicy "deny" nobody is asked: the old server told the model
// "the user declined". An approval nobody answers is told as that.
func TestApprovalRefusalWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    map[string]any
		want    string
		notSaid []string
	}{
		{name: "policy deny", opts: map[string]any{"approvalPolicy": "deny"},
			want: "the approval policy denies that without asking anyone", notSaid: []string{"declined", "nobody can be asked"}},
		{name: "timed out", opts: map[string]any{"approvalTimeout": 1},
			want: "nobody answered in time whether to run `touch made`", notSaid: []string{"declined"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := shellTurn("touch made")
			defer srv.Close()
			opts := map[string]any{"model": "m", "baseUrl": srv.URL}
			for k, v := range tc.opts {
				opts[k] = v
			}
			e := lsptest.Start(t, writeFiles(t, files), lsptest.Helix(), lsptest.InitOptions(opts))
			e.OpenFile("a.go", "go")
			askAbout(t, e, "make a file")
			e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.NoFile("made"))
			result := srv.Requests()[1].Body.Messages[3].Content
			if !strings.Contains(result, tc.want) {
				t.Errorf("the model was told %q; want %q", result, tc.want)
			}
			for _, not := range tc.notSaid {
				if strings.Contains(result, not) {
					t.Errorf("the model was told %q; want no %q", result, not)
				}
			}
		})
	}
}
