package edittool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools/approval"
)

func TestProtectedReason(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	// A link inside the workspace that leads to .git is .git.
	os.Symlink(".git", filepath.Join(root, "gitlink"))
	os.Symlink("../.git/config", filepath.Join(root, "src", "cfg"))
	private := filepath.Join(root, "home", ".config", "agentls")
	for _, tc := range []struct {
		path string
		want string // a word of the reason, "" for not protected
	}{
		{".git/config", "git's own data"},
		{".git/hooks/pre-commit", "git's own data"},
		{"sub/module/.git/config", "git's own data"},
		{".GIT/config", "git's own data"},
		{"vendor/.git", "git's own data"}, // a gitdir pointer
		{"gitlink/config", "git's own data"},
		{"src/cfg", "git's own data"},
		{".agentls/settings.json", "agentls's own folder"},
		{".gitattributes", "diff and filter drivers"},
		{"docs/.gitattributes", "diff and filter drivers"},
		{".gitmodules", "submodules"},
		{".envrc", "direnv"},
		{".vscode/tasks.json", "VS Code"},
		{".helix/languages.toml", "language servers"},
		{".nvim.lua", "exrc"},
		{".dir-locals.el", "Emacs"},
		{"home/.config/agentls/settings.json", "your own agentls settings"},
		{"main.go", ""},
		{"src/git/config.go", ""},
		{".github/workflows/ci.yml", ""},
		{"agentls/settings.json", ""},
		{".vscode", ""}, // a file named like the folder holds no settings
		{".gitignore", ""},
	} {
		got := ProtectedReason(root, tc.path, private)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: reason %q, want one with %q", tc.path, got, tc.want)
		}
	}
}

// confirmFunc answers questions with a function.
type confirmFunc func(approval.Question) approval.Answer

func (f confirmFunc) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	return f(q), nil
}

// TestConfirmProtected: the attack of a model that saves .git/config with
// core.fsmonitor, so that the next `git status` — a command it may run
// unasked — runs its program. The edit is put to the user first, with the
// diff; refused, or with nobody to ask, the batch is not applied and the
// model is told.
func TestConfirmProtected(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	newBatch := func(t *testing.T) *Batch {
		b := &Batch{Root: root, Source: DiskSource{Root: root}}
		if _, err := b.Save(context.Background(), "main.go", "package main\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Save(context.Background(), ".git/config", "[core]\n\tbare = false\n\tfsmonitor = touch PWNED\n"); err != nil {
			t.Fatal(err)
		}
		return b
	}
	var asked approval.Question
	for _, tc := range []struct {
		name    string
		answer  approval.Answer
		nobody  bool
		wantErr string
	}{
		{"approved", approval.Run, false, ""},
		{"declined", approval.Skip, false, "the user did not approve editing .git/config"},
		{"stopped", approval.StopTurn, false, "stopped the turn"},
		{"nobody to ask", 0, true, "nobody can be asked here; nothing was applied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(t)
			var c approval.Confirmer = confirmFunc(func(q approval.Question) approval.Answer { asked = q; return tc.answer })
			if tc.nobody {
				c = nil
			}
			err := b.ConfirmProtected(context.Background(), c)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if tc.answer == approval.StopTurn && !errors.Is(err, approval.ErrStopTurn) {
				t.Errorf("a stop is not ErrStopTurn: %v", err)
			}
			if tc.nobody {
				return
			}
			if !asked.Edit || asked.Action != ".git/config" || !strings.Contains(asked.Detail, "+\tfsmonitor = touch PWNED") || strings.Contains(asked.Detail, "main.go") {
				t.Errorf("asked %+v", asked)
			}
			if asked.What() != "edit .git/config" {
				t.Errorf("What() = %q", asked.What())
			}
		})
	}
	b := &Batch{Root: root, Source: DiskSource{Root: root}}
	b.Save(context.Background(), "main.go", "package main\n")
	if err := b.ConfirmProtected(context.Background(), nil); err != nil {
		t.Errorf("an ordinary batch needed approval: %v", err)
	}
}
