package edittool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// TestReadSecretAsks is the attack of a model that reads what `cat` may
// not show it unasked: `read .env`, `read deploy/id_rsa`, a link to .env,
// view_anchored of a key. Each is put to the user as `cat .env` is; with
// nobody to ask it is skipped with a note and the secret never reaches the
// output; the other files of the same call are read.
func TestReadSecretAsks(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	t.Setenv("HOME", t.TempDir())
	os.MkdirAll(filepath.Join(root, "deploy"), 0o755)
	os.WriteFile(filepath.Join(root, ".env"), []byte("OPENAI_API_KEY=sk-SECRET1\n"), 0o600)
	os.WriteFile(filepath.Join(root, "deploy", "id_rsa"), []byte("-----BEGIN SECRET2-----\n"), 0o600)
	os.WriteFile(filepath.Join(root, ".env.example"), []byte("OPENAI_API_KEY=\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644)
	os.Symlink(".env", filepath.Join(root, "notes.txt"))
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		use     tools.ToolUse
		answer  approval.Answer
		nobody  bool
		want    string // in the output
		wantErr string // in the error
		secret  bool   // the secret is in the output
		asked   int
	}{
		{name: "env, nobody to ask", use: readUse(".env"), nobody: true, wantErr: "may hold secrets"},
		{name: "key, nobody to ask", use: readUse("deploy/id_rsa"), nobody: true, wantErr: "nobody can be asked"},
		{name: "link to env, nobody to ask", use: readUse("notes.txt"), nobody: true, wantErr: "may hold secrets"},
		{name: "with another file", use: tools.ToolUse{Tool: "read", Content: "main.go\n.env\n"}, nobody: true, want: "package main"},
		{name: "view_anchored of a key", use: tools.ToolUse{Tool: "view_anchored", Args: []string{"deploy/id_rsa"}}, nobody: true, wantErr: "may hold secrets"},
		{name: "declined", use: readUse(".env"), answer: approval.Skip, wantErr: "the user declined", asked: 1},
		{name: "stopped", use: readUse(".env"), answer: approval.StopTurn, wantErr: "stopped the turn", asked: 1},
		{name: "approved", use: readUse(".env"), answer: approval.Run, want: "OPENAI_API_KEY", secret: true, asked: 1},
		{name: "template is no secret", use: readUse(".env.example"), nobody: true, want: "OPENAI_API_KEY="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := &askingDisk{diskWorkspace: diskWorkspace{root: root}, answer: tc.answer, nobody: tc.nobody}
			out, err := runsIn(ws)[tc.use.Tool](ctx, tc.use)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q (out %q)", err, tc.wantErr, out)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("out = %q, want %q", out, tc.want)
			}
			all := out
			if err != nil {
				all += err.Error()
			}
			if leaked := strings.Contains(all, "SECRET1") || strings.Contains(all, "SECRET2"); leaked != tc.secret {
				t.Errorf("secret in the output: %v, want %v: %q", leaked, tc.secret, all)
			}
			if len(ws.asked) != tc.asked {
				t.Errorf("asked %d times, want %d: %+v", len(ws.asked), tc.asked, ws.asked)
			}
			if tc.answer == approval.StopTurn && !errors.Is(err, approval.ErrStopTurn) {
				t.Errorf("a stop is not ErrStopTurn: %v", err)
			}
			if tc.asked > 0 && len(ws.asked) > 0 && !strings.Contains(ws.asked[0].Reason, "secrets") {
				t.Errorf("asked %+v", ws.asked[0])
			}
		})
	}
}

func readUse(p string) tools.ToolUse { return tools.ToolUse{Tool: "read", Args: []string{p}} }

// askingDisk is a diskWorkspace whose user answers answer (or nobody).
type askingDisk struct {
	diskWorkspace
	answer approval.Answer
	nobody bool
	asked  []approval.Question
}

func (w *askingDisk) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	if w.nobody {
		return approval.Skip, approval.ErrNobodyToAsk
	}
	w.asked = append(w.asked, q)
	return w.answer, nil
}
