package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// Real Helix, driven like a person: Helix has no headless mode, so it runs
// in a tmux pane of its own (send-keys, capture-pane), with the README's
// Helix set-up copied verbatim into a fresh HOME (~/.config/helix/languages.toml
// from the README's block, config.toml from editors/helix, as the README
// says), the agentls binary the test builds first on PATH, and the fake
// model behind OPENAI_BASE_URL. Every step waits for what the screen shows;
// a failure prints the last screen and the end of Helix's log (which holds
// every LSP message, Helix runs with -v).
//
// The tests use the hx of AGENTLS_HX, else hx on PATH; without one they are
// skipped, unless AGENTLS_REQUIRE_HX is set. CI has no Helix (nothing may
// build it there), so they run on a developer's machine that has one.

// helixDeadline bounds each wait on the screen: generous, the machine may
// be loaded; a pass never waits for it.
const helixDeadline = 60 * time.Second

// requireHx returns the hx to drive, and skips the test where there is
// none (or no tmux), unless AGENTLS_REQUIRE_HX is set.
func requireHx(t *testing.T) string {
	t.Helper()
	skip := func(why string) {
		t.Helper()
		if os.Getenv("AGENTLS_REQUIRE_HX") != "" {
			t.Fatal(why + " but AGENTLS_REQUIRE_HX is set")
		}
		t.Skip(why)
	}
	hx := os.Getenv("AGENTLS_HX")
	if hx == "" {
		found, err := exec.LookPath("hx")
		if err != nil {
			skip("no Helix: hx is not on PATH and AGENTLS_HX is not set (AGENTLS_HX=/path/to/hx runs these tests)")
		}
		hx = found
	} else if _, err := os.Stat(hx); err != nil {
		skip(fmt.Sprintf("AGENTLS_HX=%s: %v", hx, err))
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		skip("tmux is not installed (the Helix tests run hx in a tmux pane)")
	}
	return hx
}

// helixHome is a fresh HOME holding the README's Helix set-up: the
// README's languages.toml block as ~/.config/helix/languages.toml, and
// editors/helix/config.toml (the key bindings and the message settings
// the README says to copy) as ~/.config/helix/config.toml.
func helixHome(t *testing.T) string {
	t.Helper()
	blocks := readmeBlocks(t, "**Helix**", "**Emacs**", "toml")
	if len(blocks) == 0 {
		t.Fatal("no toml block in the README's Helix section")
	}
	config, err := os.ReadFile("../editors/helix/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "helix")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"languages.toml": blocks[0], "config.toml": string(config)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// A helixPane is one Helix running in a tmux server of its own.
type helixPane struct {
	t      *testing.T
	socket string // the tmux server's socket
	log    string // Helix's log file
	root   string
	last   string // the last screen captured
}

// startHelix runs hx on files in root, in a 200x50 tmux pane, with home as
// HOME and bin's folder first on PATH, the model at modelURL.
func startHelix(t *testing.T, hx, home, bin, root, modelURL string, files ...string) *helixPane {
	t.Helper()
	dir := t.TempDir()
	p := &helixPane{t: t, socket: filepath.Join(dir, "tmux.sock"), log: filepath.Join(dir, "helix.log"), root: root}
	// The pane stays after Helix exits, so a crash leaves its last screen;
	// no status bar, so the pane is the whole screen.
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-S", p.socket, "-f", conf, "new-session", "-d", "-s", "hx", "-x", "200", "-y", "50", "-c", root,
		hx, "-v", "--log", p.log}, files...)
	cmd := exec.Command("tmux", args...)
	// The other servers the README's languages.toml names (gopls, …) are
	// left off PATH where a machine has them: their code actions would
	// come first in the menus the test picks from.
	path := pathWithout(t, "gopls", "golangci-lint-lsp", "marksman", "markdown-oxide")
	path = "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + strings.TrimPrefix(path, "PATH=")
	cmd.Env = append(os.Environ(), "HOME="+home, path,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"OPENAI_BASE_URL="+modelURL, "OPENAI_API_KEY=test-key", "AGENTLS_MODEL=helix-test-model", "AGENTLS_PROMPT=full", "TERM=xterm-256color")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the last screen:\n%s\nthe end of Helix's log:\n%s", p.screen(), p.logTail(12000))
		}
		exec.Command("tmux", "-S", p.socket, "kill-server").Run()
	})
	p.await("Helix in normal mode", func(s string) bool { return strings.Contains(s, "NOR") })
	return p
}

func (p *helixPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys presses keys by their tmux names (Space, Enter, Down, Escape, a).
func (p *helixPane) keys(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", "hx"}, keys...)...)
}

// typed types text as it is.
func (p *helixPane) typed(text string) { p.tmux("send-keys", "-t", "hx", "-l", text) }

// paste pastes text as a terminal does (bracketed paste: Helix inserts it
// as it is, with no auto-indent or auto-pairs).
func (p *helixPane) paste(text string) {
	p.t.Helper()
	cmd := exec.Command("tmux", "-S", p.socket, "load-buffer", "-")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("tmux load-buffer: %v\n%s", err, out)
	}
	p.tmux("paste-buffer", "-p", "-d", "-t", "hx")
}

// command runs a typable command (":write-all") from normal mode.
func (p *helixPane) command(line string) {
	p.t.Helper()
	p.typed(":")
	p.await("the command prompt", func(s string) bool { return strings.HasPrefix(lastLine(s), ":") })
	p.typed(line)
	p.keys("Enter")
}

// normal leaves insert mode or closes a menu, and waits for normal mode
// (an Escape followed at once by another key would be read as Alt+key).
func (p *helixPane) normal() {
	p.t.Helper()
	p.keys("Escape")
	p.await("normal mode", func(s string) bool { return strings.Contains(s, "NOR") })
}

func (p *helixPane) screen() string {
	out, err := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-t", "hx").CombinedOutput()
	if err != nil {
		return p.last
	}
	p.last = string(out)
	return p.last
}

func (p *helixPane) logTail(n int) string {
	data, _ := os.ReadFile(p.log)
	return string(data[max(0, len(data)-n):])
}

// await polls the screen until cond holds, and fails the test at the
// deadline, saying what it waited for, with the last screen.
func (p *helixPane) await(what string, cond func(screen string) bool) string {
	p.t.Helper()
	s, ok := p.poll(helixDeadline, cond)
	if !ok {
		p.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
	}
	return s
}

func (p *helixPane) poll(d time.Duration, cond func(screen string) bool) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		s := p.screen()
		if cond(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(50 * time.Millisecond) // the polling interval, not a wait for something
	}
}

func (p *helixPane) awaitText(text string) string {
	p.t.Helper()
	return p.await(fmt.Sprintf("%q on the screen", text), func(s string) bool { return strings.Contains(s, text) })
}

// awaitFile waits until root/rel holds want.
func (p *helixPane) awaitFile(rel, want string) {
	p.t.Helper()
	deadline := time.Now().Add(helixDeadline)
	for {
		data, err := os.ReadFile(filepath.Join(p.root, rel))
		if err == nil && string(data) == want {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s on disk is %q (%v), want %q; the screen:\n%s", rel, data, err, want, p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitLog waits until Helix's log holds text (an LSP message).
func (p *helixPane) awaitLog(what, text string) string {
	p.t.Helper()
	deadline := time.Now().Add(helixDeadline)
	for {
		data, _ := os.ReadFile(p.log)
		if strings.Contains(string(data), text) {
			return string(data)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s in Helix's log; its end:\n%s", what, p.logTail(4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// agentlsTitle matches the start of every code action agentls offers: the
// only server of these buffers (gopls, marksman… are not installed here),
// so the rows of the code-action menu are the rows starting so at the
// menu's column.
var agentlsTitle = regexp.MustCompile(`^(Apply agent reply|Agent: |Ask agent: |Undo |Redo |Accept |Reject |Show diff |Approve|Deny|Send to agent)`)

// codeAction opens the code-action menu (space a) until it offers want,
// then picks it: Helix pre-selects the menu's first row, so Down as many
// times as want is below it, then Enter. It returns the menu's screen.
func (p *helixPane) codeAction(want string) string {
	p.t.Helper()
	deadline := time.Now().Add(helixDeadline)
	for {
		// space a again while a menu is open closes it (the popup passes a
		// key it does not know on) and opens a new one. Escape is never
		// sent before other keys: read together, they are Alt+key.
		p.keys("Space", "a")
		// The menu comes when every server answered; what agentls offers
		// can also lag a keystroke (its diagnostics, a turn still ending):
		// ask again until it is there.
		s, ok := p.poll(3*time.Second, func(s string) bool { return strings.Contains(s, want) })
		if ok {
			row, col := findOnScreen(s, want)
			lines := strings.Split(s, "\n")
			top := row
			for top > 0 && agentlsTitle.MatchString(cellsFrom(lines[top-1], col)) {
				top--
			}
			if n := row - top; n > 0 {
				down := make([]string, n)
				for i := range down {
					down[i] = "Down"
				}
				p.keys(down...)
			}
			p.keys("Enter")
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the code-action menu (space a) never offered %q; the screen:\n%s", want, s)
		}
	}
}

// findOnScreen returns the row and the column (in cells) of text's first
// occurrence.
func findOnScreen(screen, text string) (row, col int) {
	for i, line := range strings.Split(screen, "\n") {
		if j := strings.Index(line, text); j >= 0 {
			return i, utf8.RuneCountInString(line[:j])
		}
	}
	return -1, -1
}

// cellsFrom is line from its col-th cell on.
func cellsFrom(line string, col int) string {
	for i := range line {
		if col == 0 {
			return line[i:]
		}
		col--
	}
	return ""
}

// helixInitialize is Helix's initialize request, read from its log.
func helixInitialize(t *testing.T, log string) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		_, msg, ok := strings.Cut(sc.Text(), "agentls -> ")
		if !ok || !strings.Contains(msg, `"method":"initialize"`) {
			continue
		}
		var req struct {
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal([]byte(msg), &req); err != nil {
			t.Fatalf("Helix's initialize request in its log: %v\n%s", err, msg)
		}
		return req.Params
	}
	t.Fatal("no initialize request to agentls in Helix's log")
	return nil
}

const (
	helixA     = "package p\n\n// Config holds settings.\ntype Config struct{}\n"
	helixB     = "package p\n\nvar c Config\n"
	helixPatch = "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"
)

// TestHelixReal drives real Helix through what a user does with agentls.
func TestHelixReal(t *testing.T) {
	hx := requireHx(t)
	bin := buildAgentls(t)
	home := helixHome(t)
	version, _ := exec.Command(hx, "--version").CombinedOutput()
	t.Logf("%s", strings.TrimSpace(string(version)))

	// The fake editor's Helix profile is what real Helix announces: the
	// capabilities agentls reads (workspace edits, resource operations,
	// position encodings, progress, message requests) and the client's
	// name the server keys quirks on.
	t.Run("initialize", func(t *testing.T) {
		model := modeltest.New()
		defer model.Close()
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA})
		p := startHelix(t, hx, home, bin, root, model.URL, "a.go")
		params := helixInitialize(t, p.awaitLog("the initialize request", `"method":"initialize"`))
		profile := lsptest.Helix()
		info, _ := params["clientInfo"].(map[string]any)
		if info["name"] != profile.ClientInfo["name"] {
			t.Errorf("Helix's clientInfo.name is %v, the profile says %q", info["name"], profile.ClientInfo["name"])
		}
		if v, _ := info["version"].(string); !strings.HasPrefix(v, profile.ClientInfo["version"]) {
			t.Logf("Helix %s, the profile was recorded from %s: update it if the capabilities differ", v, profile.ClientInfo["version"])
		}
		caps, _ := params["capabilities"].(map[string]any)
		for _, section := range []string{"general", "workspace", "window", "textDocument"} {
			got, _ := json.Marshal(caps[section])
			want, _ := json.Marshal(profile.Capabilities[section])
			var g, w any
			json.Unmarshal(got, &g)
			json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("capabilities.%s:\nHelix sends  %s\nprofile says %s", section, got, want)
			}
		}
		if params["rootUri"] == nil {
			t.Errorf("Helix sent no rootUri: %v", params)
		}
	})

	// A reply pasted into a Markdown buffer: space a offers "Apply agent
	// reply (N edits in M files)"; the edits land in the buffers (a new
	// file through CreateFile), and :write-all puts them on disk.
	t.Run("apply pasted reply", func(t *testing.T) {
		model := modeltest.New()
		defer model.Close()
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA, "b.go": helixB, "reply.md": "# A reply\n"})
		p := startHelix(t, hx, home, bin, root, model.URL, "reply.md")
		p.keys("g", "e", "o") // a new line below the last one, in insert mode
		p.awaitText("INS")
		p.paste(reply)
		p.awaitText(">>>>>>> UPDATED")
		p.normal()
		menu := p.codeAction("Apply agent reply (2 edits in 3 files)")
		t.Logf("the code-action menu:\n%s", menu)
		t.Logf("applied:\n%s", p.awaitText("agentls: applied"))
		if got := readFile(t, root, "a.go"); got != helixA {
			t.Errorf("a.go reached the disk before :write-all: %q", got)
		}
		p.command("open a.go")
		t.Logf("a.go after the reply:\n%s", p.awaitText("type Settings struct{}"))
		p.command("write-all")
		p.awaitFile("a.go", strings.Replace(helixA, "type Config", "type Settings", 1))
		p.awaitFile("b.go", strings.Replace(helixB, "var c Config", "var c Settings", 1))
		p.awaitFile("c.go", "package p\n")
	})

	// A file the reply creates (issue 25): Helix makes a CreateFile's
	// file empty on disk and puts the text edit in a hidden buffer it
	// does not save; agentls writes a created file's content itself, so
	// it is on disk at once, and "Undo agent turn" removes it without a
	// save first.
	t.Run("created file and undo", func(t *testing.T) {
		model := modeltest.New()
		defer model.Close()
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA, "reply.md": "# A reply\n"})
		p := startHelix(t, hx, home, bin, root, model.URL, "reply.md")
		p.keys("g", "e", "o")
		p.awaitText("INS")
		p.paste("```save NOTES.txt\nfirst note\nsecond note\n```\n")
		p.awaitText("second note")
		p.normal()
		p.codeAction("Apply agent reply (1 edit in 1 file)")
		t.Logf("applied:\n%s", p.awaitText("agentls: applied"))
		p.awaitFile("NOTES.txt", "first note\nsecond note\n")
		p.keys("Space", "A", "u") // the README's key for undoing the last turn
		t.Logf("undone:\n%s", p.awaitText("undone"))
		deadline := time.Now().Add(helixDeadline)
		for {
			if _, err := os.Stat(filepath.Join(root, "NOTES.txt")); errors.Is(err, fs.ErrNotExist) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("NOTES.txt is still on disk after the undo; the screen:\n%s", p.screen())
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	// space A o opens the chat: Helix opens a window/showDocument
	// request's file though it does not announce the capability.
	t.Run("chat opens", func(t *testing.T) {
		model := modeltest.New()
		defer model.Close()
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA})
		p := startHelix(t, hx, home, bin, root, model.URL, "a.go")
		p.keys("Space", "A", "o")
		s := p.await("the chat document", func(s string) bool { return strings.Contains(s, "chat.md") && strings.Contains(s, "## You") })
		t.Logf("the chat:\n%s", s)
	})

	// Positions are UTF-8 (Helix offers it first): an edit after
	// multi-byte and astral characters on its line lands where it
	// belongs, byte for byte, on disk after :write.
	t.Run("utf-8 positions", func(t *testing.T) {
		model := modeltest.New()
		defer model.Close()
		u := "package p\n\nvar s = \"é🎉ü\" // Config é🎉\n"
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "u.go": u, "reply.md": "# A reply\n"})
		p := startHelix(t, hx, home, bin, root, model.URL, "reply.md")
		p.keys("g", "e", "o")
		p.awaitText("INS")
		p.paste("```patch u.go\n<<<<<<< ORIGINAL\nvar s = \"é🎉ü\" // Config é🎉\n=======\nvar s = \"é🎉ü\" // Settings é🎉!\n>>>>>>> UPDATED\n```\n")
		p.awaitText(">>>>>>> UPDATED")
		p.normal()
		p.codeAction("Apply agent reply (1 edit in 1 file)")
		p.awaitText("agentls: applied")
		p.command("open u.go")
		p.awaitText("// Settings é🎉!")
		p.command("write")
		p.awaitFile("u.go", "package p\n\nvar s = \"é🎉ü\" // Settings é🎉!\n")
	})

	// An AI! comment: space a offers "Agent: <instruction>"; the fake
	// model's patch lands in a.go's buffer; "Undo agent turn 1" (a code
	// action in a.go) reverts it.
	t.Run("AI comment and turn undo", func(t *testing.T) {
		model := modeltest.New(modeltest.Text("Renaming.\n"+helixPatch, 16), modeltest.Text("Renamed Config to Settings.", 16))
		defer model.Close()
		b := "package p\n\n// AI! rename Config to Settings\nvar c Config\n"
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA, "b.go": b})
		p := startHelix(t, hx, home, bin, root, model.URL, "b.go")
		p.command("3")
		p.codeAction("Agent: rename Config to Settings")
		// The answer first, then what the turn cost (issue 27: usage
		// shown in every editor).
		if done := p.awaitText("agentls: agent turn 1 done"); !regexp.MustCompile(`turn 1 done \(.*[0-9] tokens`).MatchString(done) {
			t.Errorf("the turn's end does not say what it cost; the screen:\n%s", done)
		}
		p.command("open a.go")
		p.awaitText("type Settings struct{}")
		if n := len(model.Requests()); n < 1 || !strings.Contains(fmt.Sprint(model.Requests()[0].Body.Messages), "rename Config to Settings") {
			t.Errorf("the model was not asked the comment's instruction: %d requests", n)
		}
		p.command("4")
		p.codeAction("Undo agent turn 1 (1 file)")
		s := p.await("the undo in a.go's buffer", func(s string) bool {
			return strings.Contains(s, "type Config struct{}") && !strings.Contains(s, "type Settings struct{}")
		})
		t.Logf("a.go after the undo:\n%s", s)
	})

	// A command the agent wants to run waits as a pending-approval
	// diagnostic on the comment's line (Helix has no message requests):
	// its "Approve" code action runs it.
	t.Run("approval", func(t *testing.T) {
		model := modeltest.New(modeltest.Text("Making it.\n```shell\ntouch approved.txt\n```\n", 16), modeltest.Text("Made it.", 16))
		defer model.Close()
		b := "package p\n\n// AI! make approved.txt\nvar c int\n"
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "b.go": b})
		p := startHelix(t, hx, home, bin, root, model.URL, "b.go")
		p.command("3")
		p.codeAction("Agent: make approved.txt")
		menu := p.codeAction("Approve: ")
		t.Logf("the approval menu:\n%s", menu)
		if !strings.Contains(menu, "touch approved.txt") {
			t.Errorf("the approval does not name its command:\n%s", menu)
		}
		deadline := time.Now().Add(helixDeadline)
		for len(model.Requests()) < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("the approved command's result never reached the model; the screen:\n%s", p.screen())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := os.Stat(filepath.Join(root, "approved.txt")); err != nil {
			t.Errorf("the approved command did not run: %v", err)
		}
	})

	// Review mode (.agentls/settings.json): an ask from the command line
	// (:lsp-workspace-command agentls.ask {"prompt": …}: Helix passes the
	// JSON after the command's name as its argument) waits as a pending
	// edit; "Accept agent edit 1" applies it (a turn of its own), "Reject
	// agent edit 2" drops the next one.
	t.Run("review and ask from the command line", func(t *testing.T) {
		model := modeltest.New(
			modeltest.Text("Renaming.\n"+helixPatch, 16), modeltest.Text("Renamed.", 16),
			modeltest.Text("Renaming again.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Settings struct{}\n=======\ntype Options struct{}\n>>>>>>> UPDATED\n```\n", 16), modeltest.Text("Renamed again.", 16),
		)
		defer model.Close()
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA,
			".agentls/settings.json": `{"applyMode": "review"}`, "AGENTS.md": "Keep names short.\n"})
		p := startHelix(t, hx, home, bin, root, model.URL, "a.go")
		p.command(`lsp-workspace-command agentls.ask {"prompt": "rename Config to Settings in @a.go"}`)
		p.awaitText("agent turn 1 done")
		// The project's rules and the prompt's mention reach the model,
		// and Helix's log (its output channel) says so (issue 27).
		p.awaitLog("the rules the turn took", "rules: AGENTS.md")
		p.awaitLog("what the mention added", "mention @a.go")
		if sent := fmt.Sprint(model.Requests()[0].Body.Messages); !strings.Contains(sent, "Keep names short.") || !strings.Contains(sent, "type Config struct{}") {
			t.Errorf("the rules or the mentioned file did not reach the model")
		}
		if s := p.screen(); strings.Contains(s, "type Settings struct{}") {
			t.Fatalf("review mode applied the edit at once:\n%s", s)
		}
		if !strings.Contains(fmt.Sprint(model.Requests()[0].Body.Messages), "rename Config to Settings") {
			t.Errorf("the model was not asked the command's prompt")
		}
		p.command("4")
		menu := p.codeAction("Accept agent edit 1")
		t.Logf("the review menu:\n%s", menu)
		p.awaitText("type Settings struct{}")
		p.command(`lsp-workspace-command agentls.ask {"prompt": "rename Settings to Options"}`)
		p.awaitText("agent turn 3 done") // the accept was turn 2
		p.codeAction("Reject agent edit 2")
		p.await("the pending edit's diagnostic gone", func(s string) bool { return !strings.Contains(s, "●") })
		if s := p.screen(); strings.Contains(s, "type Options struct{}") || !strings.Contains(s, "type Settings struct{}") {
			t.Errorf("the rejected edit reached the buffer:\n%s", s)
		}
		if n := len(model.Requests()); n != 4 {
			t.Errorf("%d model calls, want 4", n)
		}
		if got := readFile(t, root, "a.go"); got != helixA {
			t.Errorf("a.go on disk changed without a write: %q", got)
		}
	})

	// The agent's steps show in the status line while it works; space A c
	// (config.toml's cancel) stops the turn.
	t.Run("progress and cancel", func(t *testing.T) {
		model := modeltest.New(modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Thinking"}}, Stall: true})
		defer model.Close()
		root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA})
		p := startHelix(t, hx, home, bin, root, model.URL, "a.go")
		p.command(`lsp-workspace-command agentls.ask {"prompt": "take your time"}`)
		s := p.await("the turn's progress in the status line", func(s string) bool {
			return strings.Contains(lastLine(s), "agentls: ")
		})
		t.Logf("progress:\n%s", lastLine(s))
		if line := lastLine(s); !strings.Contains(line, "agentls: agent turn 1") || strings.Contains(line, "agentls: agentls:") {
			t.Errorf("the status line names the server once before the turn: %q", line)
		}
		p.keys("Space", "A", "c")
		p.await("the cancelled turn", func(s string) bool { return strings.Contains(strings.ToLower(lastLine(s)), "cancel") })
	})
}

// helixStatusLine is Helix 25.07's status line as its LSP messages set it
// (helix-term's application.rs): window/showMessage shows the message; a
// $/progress begin or report shows "<server>: <title> ⋅ <message>"; an
// end with a message shows it the same way, an end without one clears
// the line. The last of them is what the user reads.
type helixStatusLine struct {
	mu     sync.Mutex
	titles map[string]string // by progress token
	status string
	lines  []string // every status the progress set
	ended  int      // progress ends seen
	shown  []string // the messages
}

func (h *helixStatusLine) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch req.Method() {
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		json.Unmarshal(req.Params(), &p)
		h.status = p.Message
		h.shown = append(h.shown, p.Message)
	case protocol.MethodProgress:
		var p struct {
			Token string `json:"token"`
			Value struct {
				Kind, Title, Message string
			} `json:"value"`
		}
		json.Unmarshal(req.Params(), &p)
		if p.Value.Kind == "begin" {
			h.titles[p.Token] = p.Value.Title
		}
		switch {
		case p.Value.Kind == "end" && p.Value.Message == "":
			h.status = ""
		default:
			status := "agentls: " + h.titles[p.Token]
			if p.Value.Message != "" {
				status += " ⋅ " + p.Value.Message
			}
			h.status = status
			h.lines = append(h.lines, status)
		}
		if p.Value.Kind == "end" {
			h.ended++
		}
	case protocol.MethodWindowShowMessageRequest, "window/showDocument":
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "Method not found: "+req.Method()))
	}
	return reply(ctx, nil, nil)
}

// TestHelixStatusLineShowsOutcome: how a turn or an apply ended must be
// the last thing in Helix's status line. Helix shows a progress end in
// the status line too, over the message before it, so a server that
// shows its outcome and then ends the progress leaves the user reading
// "agentls: agent turn 1 ⋅ done" (seen in real Helix: the "applied 2
// edits …" of space a's "Apply agent reply" never showed). And since
// Helix names the server before a progress's title, the title does not
// name it again.
func TestHelixStatusLineShowsOutcome(t *testing.T) {
	cases := []struct {
		name    string
		command string
		arg     map[string]any
		title   string // the progress's
		want    string
	}{
		{"agent turn", "agentls.ask", map[string]any{"prompt": "say hello"}, "agent turn 1", "agent turn 1 done"},
		{"apply reply", "agentls.applyReply", map[string]any{"text": "No edits here, only words.\n"}, "apply reply", "no edits to apply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := modeltest.New(modeltest.Text("Hello.", 16))
			defer model.Close()
			root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": helixA})
			dir := t.TempDir()
			env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
				"XDG_CACHE_HOME": filepath.Join(dir, "cache"), "AGENTLS_MODEL": "m", "OPENAI_BASE_URL": model.URL, "OPENAI_API_KEY": "k"}
			getenv := func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return os.Getenv(k)
			}
			serverEnd, clientEnd := net.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			served := make(chan struct{})
			go func() {
				defer close(served)
				lsp.Serve(ctx, serverEnd, lsp.Options{Version: "test", Getenv: getenv})
			}()
			status := &helixStatusLine{titles: map[string]string{}}
			conn := jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
			// One message at a time, in order, as Helix reads them. An
			// answer the ended server cannot read is not returned: see
			// lsptest's Editor.handle (jsonrpc2 v0.10's conn.fail).
			conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
				status.handle(ctx, reply, req)
				return nil
			})
			defer func() { conn.Close(); cancel(); <-served }()
			profile := lsptest.Helix()
			var res json.RawMessage
			if _, err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{"processId": os.Getpid(), "clientInfo": profile.ClientInfo,
				"rootUri": string(uri.File(root)), "capabilities": profile.Capabilities}, &res); err != nil {
				t.Fatal(err)
			}
			conn.Notify(ctx, protocol.MethodInitialized, map[string]any{})
			if _, err := conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": c.command, "arguments": []any{c.arg}}, &res); err != nil {
				t.Fatalf("%s: %v", c.command, err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				status.mu.Lock()
				ended, shown, line := status.ended, slices.ContainsFunc(status.shown, func(m string) bool { return strings.Contains(m, c.want) }), status.status
				status.mu.Unlock()
				if ended > 0 && shown {
					if !strings.Contains(line, c.want) {
						t.Errorf("Helix's status line ends as %q, not with the outcome %q", line, c.want)
					}
					status.mu.Lock()
					defer status.mu.Unlock()
					for _, l := range status.lines {
						if strings.HasPrefix(l, "agentls: agentls:") || !strings.HasPrefix(l, "agentls: "+c.title) {
							t.Errorf("the status line %q, want the server named once before %q", l, c.title)
						}
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("no progress end and %q message after 30 s; the status line: %q", c.want, line)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestApprovalOnTheCommentLine: a command an AI! comment's turn wants to
// run waits as a pending-approval diagnostic on the comment's own line,
// where the user pressed space a, and its Approve code action is offered
// there. (Seen in real Helix: it showed on the first line of the context
// sent with the comment, up to 30 lines above it, so space a on the
// comment offered no Approve.)
func TestApprovalOnTheCommentLine(t *testing.T) {
	for _, commentLine := range []int{2, 45} {
		t.Run(fmt.Sprintf("line %d", commentLine), func(t *testing.T) {
			model := modeltest.New(modeltest.Text("Making it.\n```shell\ntouch approved.txt\n```\n", 16), modeltest.Text("Made it.", 16))
			defer model.Close()
			lines := []string{"package p", ""}
			for len(lines) < commentLine {
				lines = append(lines, fmt.Sprintf("var v%d int", len(lines)))
			}
			lines = append(lines, "// AI! make approved.txt", "var c int", "")
			root := writeFiles(t, map[string]string{"b.go": strings.Join(lines, "\n")})
			e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": model.URL}))
			e.OpenFile("b.go", "go")
			cursor := protocol.Range{Start: protocol.Position{Line: uint32(commentLine)}, End: protocol.Position{Line: uint32(commentLine), Character: 1}}
			var agentAction *protocol.CodeAction
			for _, a := range e.CodeActions("b.go", cursor) {
				if a.Title == "Agent: make approved.txt" {
					agentAction = &a
				}
			}
			if agentAction == nil {
				t.Fatalf("no \"Agent: make approved.txt\" on the comment's line: %v", e.CodeActions("b.go", cursor))
			}
			if err := e.RunCodeAction(*agentAction); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.Diagnostics(lsptest.ForFile("b.go"), lsptest.WithCode("pending-approval"), lsptest.AtLine(uint32(commentLine))))
			var approve *protocol.CodeAction
			for _, a := range e.CodeActions("b.go", cursor) {
				if strings.HasPrefix(a.Title, "Approve: ") {
					approve = &a
				}
			}
			if approve == nil {
				t.Fatalf("space a on the comment's line offers no Approve: %v", e.CodeActions("b.go", cursor))
			}
			if err := e.RunCodeAction(*approve); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 1 done"))
			if _, err := os.Stat(filepath.Join(root, "approved.txt")); err != nil {
				t.Errorf("the approved command did not run: %v", err)
			}
		})
	}
}
