package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestEmacsEglot drives a real Emacs (Debian's 28.2 with elpa-eglot 1.9,
// or an Emacs with eglot built in) in batch mode against the built server,
// through editors/emacs/agentls.el: a reply typed into a Markdown buffer is
// applied with agentls-apply-reply across two buffers, undone with
// agentls-undo, eglot-code-actions on a word of the reply (the range eglot
// sends) offers "Apply agent reply", a reply that creates a file opens its
// buffer, and with
// no model configured agentls-ask fails with a user-error that says what
// to set, not a raw jsonrpc-error (testdata/emacs/apply.el). It is skipped
// where Emacs or eglot is missing, unless AGENTLS_REQUIRE_EMACS is set.
// Not in parallel: it drives a real editor, whose script waits under
// deadlines that other tests' servers on the same cores must not eat into.
func TestEmacsEglot(t *testing.T) {
	emacs, eglotArgs := requireEmacs(t)
	bin := buildAgentls(t)
	root := writeFiles(t, map[string]string{
		"a.go":     "package p\n\n// Config holds settings.\ntype Config struct{}\n",
		"b.go":     "package p\n\nvar c Config\n",
		"reply.md": "# A reply\n\n",
	})
	reply := "Renaming Config.\n\n```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n"
	config, _ := filepath.Abs("../editors/emacs/agentls.el")
	script, _ := filepath.Abs("testdata/emacs/apply.el")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--batch", "-Q"}, eglotArgs...)
	args = append(args, "-l", config, "-l", script)
	cmd := exec.CommandContext(ctx, emacs, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AGENTLS_BIN="+bin, "AGENTLS_ROOT="+root, "AGENTLS_REPLY="+reply,
		"AGENTLS_MODEL=", // no model: asking must say what to set
		"HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("emacs: %v\n%s", err, out)
	}
	// The edits went to the buffers; the files on disk are untouched.
	if data, _ := os.ReadFile(filepath.Join(root, "a.go")); !strings.Contains(string(data), "type Config struct{}") {
		t.Errorf("a.go on disk = %q", data)
	}
}

// TestEmacsReadmeSetup runs the README's Emacs block as a user's init.el
// (a fresh HOME, no -Q: eglot comes from the system's packages, as it does
// for a user), with the clone's path for ~/src/agentls and the built
// binary on PATH: a Markdown file of a project starts agentls, a reply in
// it applies, and C-c a a asks the model the block sets (the fake model
// behind OPENAI_BASE_URL; no AGENTLS_MODEL): the command it runs waits
// for approval with a message naming C-c a y, which runs it
// (testdata/emacs/readme.el).
// Not in parallel: it drives a real editor, whose script waits under
// deadlines that other tests' servers on the same cores must not eat into.
func TestEmacsReadmeSetup(t *testing.T) {
	emacs, _ := requireEmacs(t)
	blocks := readmeBlocks(t, "**Emacs**", "", "elisp")
	if len(blocks) == 0 {
		t.Fatal("no elisp block in the README's Emacs section")
	}
	block := blocks[0]
	srv := modeltest.New(
		modeltest.Text("```shell\ntouch approved.txt\n```\n\n", 16),
		modeltest.Text("Made it.", 16),
	)
	defer srv.Close()
	clone, _ := filepath.Abs("..")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".emacs.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".emacs.d", "init.el"), []byte(strings.ReplaceAll(block, "~/src/agentls", clone)), 0o644); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Dir(buildAgentls(t))
	root := writeFiles(t, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a.go":      "package p\n\n// Config holds settings.\ntype Config struct{}\n",
		"reply.md":  "# A reply\n\n",
	})
	reply := "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"
	script, _ := filepath.Abs("testdata/emacs/readme.el")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// --batch loads no init file by itself: -l loads the user's, as an
	// interactive start would.
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-l", filepath.Join(home, ".emacs.d", "init.el"), "-l", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+home, pathWith(binDir),
		"AGENTLS_ROOT="+root, "AGENTLS_REPLY="+reply, "XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(),
		"XDG_CONFIG_HOME="+t.TempDir(), "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test-key",
		"AGENTLS_MODEL=") // the model must come from the README's block
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("emacs: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if m := reqs[0].Body.Model; m == "" || !strings.Contains(block, `:model "`+m+`"`) {
		t.Errorf("the model was asked as %q, not as the README's block names it", m)
	}
}

// requireEmacs returns emacs's path and the arguments that load eglot:
// Emacs 29 and newer have it built in; Debian's elpa-eglot for Emacs 28
// lives under /usr/share/emacs/site-lisp/elpa, which -Q leaves off the
// load-path. Where either is missing the test is skipped, unless
// AGENTLS_REQUIRE_EMACS is set.
func requireEmacs(t *testing.T) (string, []string) {
	t.Helper()
	skip := func(why string) {
		if os.Getenv("AGENTLS_REQUIRE_EMACS") != "" {
			t.Fatal(why + " but AGENTLS_REQUIRE_EMACS is set")
		}
		t.Skip(why)
	}
	emacs, err := exec.LookPath("emacs")
	if err != nil {
		skip("emacs is not installed")
	}
	out, err := exec.Command(emacs, "--batch", "-Q", "--eval", `(princ (or (locate-library "eglot") ""))`).Output()
	if err == nil && strings.TrimSpace(string(out)) != "" {
		return emacs, []string{"-l", "eglot"}
	}
	dirs, _ := filepath.Glob("/usr/share/emacs/site-lisp/elpa/eglot-*")
	if len(dirs) == 0 {
		skip("eglot is not installed (apt-get install elpa-eglot, or Emacs 29+)")
	}
	return emacs, []string{"-L", dirs[len(dirs)-1], "-l", "eglot"}
}
