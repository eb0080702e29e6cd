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
	runEmacsScript(t, emacs, eglotArgs, root, "testdata/emacs/apply.el", "AGENTLS_BIN="+bin, "AGENTLS_REPLY="+reply,
		"AGENTLS_MODEL=") // no model: asking must say what to set
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
		// Two lines: the message lists both, and C-c a y answers with the
		// digest of that listing.
		modeltest.Text("```shell\ntouch approved.txt\ntouch listed.txt\n```\n\n", 16),
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
		"XDG_CONFIG_HOME="+t.TempDir(), "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test-key", "AGENTLS_PROMPT=full",
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

// runEmacsScript runs a test script in a batch Emacs with eglot and
// agentls.el loaded (-Q: nothing of the machine's init), in root, with a
// fresh HOME and state folders and env added, and fails the test unless
// the script prints OK.
func runEmacsScript(t *testing.T, emacs string, eglotArgs []string, root, script string, env ...string) {
	t.Helper()
	config, _ := filepath.Abs("../editors/emacs/agentls.el")
	script, _ = filepath.Abs(script)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--batch", "-Q"}, eglotArgs...)
	args = append(args, "-l", config, "-l", script)
	cmd := exec.CommandContext(ctx, emacs, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AGENTLS_ROOT="+root, "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("emacs: %v\n%s", err, out)
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

// TestEmacsChatStreamsWithoutAsking is the chat as a newcomer meets it
// with the README's Emacs block as init.el (eglot's default
// eglot-confirm-server-initiated-edits, which asks before every server
// edit): C-c a o opens the chat, a message under "## You" and C-c a o
// again send it, and the reply streams into the chat buffer as one
// workspace/applyEdit per chunk. eglot asked "Server wants to edit
// chat.md … Proceed?" for each of them (18 times for the demo's first
// reply): the chat must stream without asking, while an agent edit of
// another file still asks (the user's setting applies there).
func TestEmacsChatStreamsWithoutAsking(t *testing.T) {
	emacs, _ := requireEmacs(t)
	blocks := readmeBlocks(t, "**Emacs**", "", "elisp")
	if len(blocks) == 0 {
		t.Fatal("no elisp block in the README's Emacs section")
	}
	srv := modeltest.New(
		modeltest.Text("Hello from the chat, streamed in small chunks so that every chunk is an edit.", 4),
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 200),
		modeltest.Text("Renamed.", 16),
	)
	defer srv.Close()
	clone, _ := filepath.Abs("..")
	home := t.TempDir()
	init := filepath.Join(home, ".emacs.d", "init.el")
	script := filepath.Join(home, "chat-test.el")
	if err := os.MkdirAll(filepath.Dir(init), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(init, []byte(strings.ReplaceAll(blocks[0], "~/src/agentls", clone)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(emacsChatScript), 0o644); err != nil {
		t.Fatal(err)
	}
	root := writeFiles(t, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a.go":      "package p\n\n// Config holds settings.\ntype Config struct{}\n",
		"notes.md":  "# Notes\n",
		"AGENTS.md": "Keep names short.\n",
	})
	binDir := filepath.Dir(buildAgentls(t))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-l", init, "-l", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+home, pathWith(binDir), "AGENTLS_ROOT="+root,
		"XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(),
		"OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test-key", "AGENTLS_MODEL=", "AGENTLS_PROMPT=full")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nOK\n") {
		t.Fatalf("emacs: %v\n%s", err, out)
	}
}

// emacsChatScript drives TestEmacsChatStreamsWithoutAsking. y-or-n-p
// (eglot's "Proceed?") records the files it was asked about and says yes.
const emacsChatScript = `;;; -*- lexical-binding: t; -*-
(defun chat-fail (fmt &rest args)
  (princ (concat "FAIL: " (apply #'format fmt args) "\n") #'external-debugging-output)
  (kill-emacs 1))
(defun chat-wait (what pred)
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (chat-fail "timed out waiting for %s" what))))
(defvar chat-messages nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (push message chat-messages))
(defvar chat-asked nil)
(advice-add 'y-or-n-p :override (lambda (prompt &rest _) (push prompt chat-asked) t))
(condition-case err
    (let* ((root (file-name-as-directory (getenv "AGENTLS_ROOT")))
           (default-directory root))
      ;; Batch Emacs has no idle time; eglot's confirmation is left as is.
      (setq eglot-sync-connect t eglot-send-changes-idle-time 0)
      (with-current-buffer (find-file-noselect (expand-file-name "notes.md" root))
        (run-hooks 'post-command-hook)
        (chat-wait "agentls to start" (lambda () (run-hooks 'post-command-hook) (eglot-current-server)))
        (cl-letf (((symbol-function 'read-string) (lambda (&rest _) "")))
          (call-interactively (key-binding (kbd "C-c a o")))))
      (let ((chat (find-buffer-visiting (expand-file-name ".agentls/chat/chat.md" root))))
        (unless chat (chat-fail "C-c a o did not open the chat"))
        ;; The server's hint names the key that sends, not a code action.
        (chat-wait "the chat's hint" (lambda () (seq-find (lambda (m) (string-match-p "your chat is" m)) chat-messages)))
        (let ((hint (seq-find (lambda (m) (string-match-p "your chat is" m)) chat-messages)))
          (unless (string-match-p "heading, and send it with C-c a o\\'" hint)
            (chat-fail "the chat's hint does not name C-c a o: %s" hint)))
        (with-current-buffer chat
          (chat-wait "agentls in the chat" (lambda () (run-hooks 'post-command-hook) (eglot-current-server)))
          (goto-char (point-max))
          (insert "hello\n")
          (call-interactively (key-binding (kbd "C-c a o")))
          (chat-wait "the streamed reply" (lambda () (string-search "every chunk is an edit." (buffer-string))))
          ;; The reply ends with a new "## You" heading: the next message
          ;; goes under it, once the turn is done.
          (chat-wait "the first turn's end" (lambda () (seq-find (lambda (m) (string-match-p "turn 1 done" m)) chat-messages)))
          ;; The project's rules the turn took are in the output buffer
          ;; (M-x agentls-output, C-c a l) (issue 27).
          (chat-wait "the rules in the output buffer"
                     (lambda () (with-current-buffer (get-buffer-create "*agentls output*")
                                  (string-search "rules: AGENTS.md" (buffer-string)))))
          ;; What the turn cost is in its last message (issue 27).
          (unless (seq-find (lambda (m) (string-match-p "turn 1 done (.*[0-9] tokens" m)) chat-messages)
            (chat-fail "the turn's end does not say what it cost: %S" chat-messages))
          (when chat-asked
            (chat-fail "eglot asked %d times before the chat's reply: %S" (length chat-asked) (car chat-asked)))
          ;; An edit of another file still asks, as the user's setting says.
          (goto-char (point-max))
          (insert "\nrename Config\n")
          (call-interactively (key-binding (kbd "C-c a o")))
          (chat-wait "the turn's end" (lambda () (seq-find (lambda (m) (string-match-p "turn 2 done" m)) chat-messages)))
          (unless (seq-find (lambda (p) (string-search "a.go" p)) chat-asked)
            (chat-fail "the edit of a.go was applied without asking: %S" chat-asked))))
      (princ "OK\n")
      (ignore-errors (eglot-shutdown (eglot-current-server)))
      (kill-emacs 0))
  (error (chat-fail "%s" (error-message-string err))))
`
