package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSecretRule: the read tools' rule is the shell's: what `cat` asks
// about (.env, keys, credential stores, links to them) is a secret for
// them too; ordinary files and committed templates are not.
func TestSecretRule(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(root, "deploy"), 0o755)
	os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY=1"), 0o600)
	os.Symlink(".env", filepath.Join(root, "notes.txt"))
	r := NewSecretRule(root, home)
	for _, tc := range []struct {
		path   string
		secret bool
	}{
		{".env", true},
		{".env.local", true},
		{"deploy/id_rsa", true},
		{"deploy/.ssh/config", true},
		{".git-credentials", true},
		{".git/config", true},
		{"notes.txt", true}, // a link to .env
		// Key and certificate stores, which agent/context.go listed apart
		// before it used this rule.
		{"deploy/server.pem", true},
		{"deploy/server.key", true},
		{"deploy/client.p12", true},
		{"deploy/client.PFX", true},
		{".env.example", false},
		{"main.go", false},
		{"deploy/id_rsa.pub", false},
	} {
		abs := filepath.Join(root, filepath.FromSlash(tc.path))
		if got := r.File(abs); (got != "") != tc.secret {
			t.Errorf("File(%s) = %q, want secret %v", tc.path, got, tc.secret)
		}
	}
	if got := r.Name(filepath.Join(root, "notes.txt")); got != "" {
		t.Errorf("Name follows links: %q", got)
	}
	// The home folder opened as the workspace: its dotfiles are secrets.
	hr := NewSecretRule(home, home)
	if hr.File(filepath.Join(home, ".bash_history")) == "" || hr.File(filepath.Join(home, "proj", "main.go")) != "" {
		t.Error("a home workspace's dotfiles are not secrets, or its projects are")
	}
}

// BenchmarkSecretRuleName: rag checks every file it lists (up to
// MaxFiles, 200k) with Name.
func BenchmarkSecretRuleName(b *testing.B) {
	r := NewSecretRule("/home/u/src/proj", "/home/u")
	p := "/home/u/src/proj/internal/server/handlers/user_handler_test.go"
	for b.Loop() {
		r.Name(p)
	}
}

// TestCatKeyFileAsks: the shell asks before cat shows a key store, as the
// read tools and the request's context do.
func TestCatKeyFileAsks(t *testing.T) {
	root := t.TempDir()
	p, err := New(Config{Root: root, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"cat deploy/server.pem", "head -5 tls.key", "cat store.p12"} {
		if v := p.Check(line); v.Decision != Ask {
			t.Errorf("Check(%q) = %+v, want ask", line, v)
		}
	}
	if v := p.Check("cat main.go"); v.Decision != Allow {
		t.Errorf("cat main.go = %+v", v)
	}
}
