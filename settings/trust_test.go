package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTrustGrantWhile: a grant bound to a process holds while it runs,
// and not once it is gone (killed before it could revoke), nor for
// another process given its id.
func TestTrustGrantWhile(t *testing.T) {
	state := t.TempDir()
	trust := Trust{Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}}
	root := t.TempDir()
	content := []byte(`{"baseUrl": "http://127.0.0.1:7070/v1"}`)
	if err := trust.GrantWhile(root, content); err != nil {
		t.Fatal(err)
	}
	if !trust.Trusted(root, content) {
		t.Fatal("a grant bound to this running process is not honoured")
	}
	if trust.Trusted(root, append(content, ' ')) {
		t.Error("other content is trusted")
	}
	name, _ := trust.file(root)
	record, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	hash, owner, _ := strings.Cut(strings.TrimSpace(string(record)), "\n")

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("no `true` to run: %v", err)
	}
	_, start, _ := strings.Cut(strings.TrimPrefix(owner, "while "), " ")
	for _, tc := range []struct{ name, owner string }{
		{"its process is gone", "while " + itoa(gone.Process.Pid) + " " + start},
		{"its pid now names another process", "while " + itoa(os.Getpid()) + " 1"},
		{"an unreadable owner", "while me"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(name, []byte(hash+"\n"+tc.owner+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if trust.Trusted(root, content) {
				t.Errorf("a grant %q is honoured", tc.owner)
			}
		})
	}

	// A plain grant (agentls trust) holds whatever runs.
	if err := trust.Grant(root, content); err != nil || !trust.Trusted(root, content) {
		t.Errorf("a plain grant: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(name), "settings.sha256")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the record: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
