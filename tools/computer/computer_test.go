package computer

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/computer/xvfbtest"
	"github.com/agentls/agentls/tools/vision"
)

// confirmer answers every question with answer (or err), and keeps them.
type confirmer struct {
	answer approval.Answer
	err    error
	mu     sync.Mutex
	asked  []approval.Question
}

func (c *confirmer) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, q)
	return c.answer, c.err
}

type images struct {
	mu  sync.Mutex
	got []tools.Image
}

func (i *images) AttachImage(img tools.Image) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.got = append(i.got, img)
	return nil
}

func md(action string, args ...string) tools.ToolUse {
	return tools.ToolUse{Tool: "computer", Args: append([]string{action}, args...)}
}

// TestRefusesBadArguments: arguments an action does not take are refused
// with a message that says what it takes, before the user is asked and
// before xdotool runs (the display does not exist: any run would fail
// with another message).
func TestRefusesBadArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		use  tools.ToolUse
		want string
	}{
		{"no action", tools.ToolUse{Tool: "computer"}, "no action given"},
		{"unknown action", md("rm"), `"rm" is not an action`},
		{"x not a number", md("mouse_move", "$(reboot)", "10"), `x is "$(reboot)", not a number`},
		{"y not a number", tools.ToolUse{Tool: "computer", Kwargs: map[string]any{"action": "mouse_move", "x": 10.0, "y": "ten"}}, `y is "ten", not a number`},
		{"fractional x", tools.ToolUse{Tool: "computer", Kwargs: map[string]any{"action": "left_click", "x": 1.5, "y": 2.0}}, "whole number"},
		{"negative y", md("mouse_move", "10", "-5"), "is -5"},
		{"one coordinate", md("mouse_move", "10"), "takes a point"},
		{"no point to move to", md("left_click_drag"), "needs the point"},
		{"bad coordinate", tools.ToolUse{Tool: "computer", Kwargs: map[string]any{"action": "mouse_move", "coordinate": []any{1.0}}}, "coordinate is [x, y]"},
		{"key with shell metacharacters", md("key", "ctrl+s;", "rm", "-rf", "~"), `"ctrl+s;" is not a key`},
		{"key with a command substitution", md("key", "$(reboot)"), `"$(reboot)" is not a key`},
		{"key that is an xdotool option", md("key", "--window", "1"), `"--window" is not a key`},
		{"key with an empty part", md("key", "ctrl++"), `"ctrl++" is not a key`},
		{"no key", md("key"), "key needs the keys"},
		{"too many keys", md("key", strings.Fields(strings.Repeat("a ", MaxKeys+1))...), "at most"},
		{"nothing to type", md("type"), "type needs the text"},
		{"too much to type", tools.ToolUse{Tool: "computer", Args: []string{"type"}, Content: strings.Repeat("a", MaxTypeBytes+1)}, "at most"},
		{"a NUL to type", tools.ToolUse{Tool: "computer", Args: []string{"type"}, Content: "a\x00b"}, "NUL"},
		{"screenshot with arguments", md("screenshot", "http://example.com/"), "takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &confirmer{answer: approval.Run}
			_, err := New(c, Options{Display: ":nonexistent"}).Run(context.Background(), tc.use)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if len(c.asked) != 0 {
				t.Errorf("the user was asked %v about a call that is refused anyway", c.asked)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		use  tools.ToolUse
		want Action
	}{
		{"markdown key", md("key", "ctrl+s", "Return"), Action{Name: "key", Keys: []string{"ctrl+s", "Return"}}},
		{"markdown key in the body", tools.ToolUse{Args: []string{"key"}, Content: "shift+Tab\n"}, Action{Name: "key", Keys: []string{"shift+Tab"}}},
		{"markdown type", tools.ToolUse{Args: []string{"type"}, Content: "echo hi\n"}, Action{Name: "type", Text: "echo hi\n"}},
		{"markdown move", md("mouse_move", "640", "400"), Action{Name: "mouse_move", X: 640, Y: 400, HasPoint: true}},
		{"move in the body", tools.ToolUse{Args: []string{"mouse_move"}, Content: "640,400"}, Action{Name: "mouse_move", X: 640, Y: 400, HasPoint: true}},
		{"native move", tools.ToolUse{Kwargs: map[string]any{"action": "mouse_move", "x": 640.0, "y": 400.0}}, Action{Name: "mouse_move", X: 640, Y: 400, HasPoint: true}},
		{"native coordinate", tools.ToolUse{Kwargs: map[string]any{"action": "left_click_drag", "coordinate": []any{3.0, 4.0}}}, Action{Name: "left_click_drag", X: 3, Y: 4, HasPoint: true}},
		{"native type", tools.ToolUse{Kwargs: map[string]any{"action": "type", "text": "hi"}}, Action{Name: "type", Text: "hi"}},
		{"click where the pointer is", md("left_click"), Action{Name: "left_click"}},
		{"xml text", tools.ToolUse{Args: []string{"key", "ctrl+c"}}, Action{Name: "key", Keys: []string{"ctrl+c"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.use)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tc.want.Name || strings.Join(got.Keys, " ") != strings.Join(tc.want.Keys, " ") || got.Text != tc.want.Text ||
				got.X != tc.want.X || got.Y != tc.want.Y || got.HasPoint != tc.want.HasPoint {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCheckAllowlist(t *testing.T) {
	if err := CheckAllowlist([]string{"screenshot", "cursor_*", "*_click"}); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"[", "screenshoot", "rm *"} {
		if err := CheckAllowlist([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestQuestion: the user sees exactly what would be typed, quoted, and
// "Always" allows that action only, for the rest of the turn.
func TestQuestion(t *testing.T) {
	a, err := Parse(tools.ToolUse{Args: []string{"type"}, Content: "rm -rf ~\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.String(), `computer: type "rm -rf ~\n"`; got != want {
		t.Errorf("asked %q, want %q", got, want)
	}
	c := &confirmer{answer: approval.Always}
	comp := New(c, Options{Display: ":0"})
	if err := comp.approve(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := comp.approve(context.Background(), a); err != nil || len(c.asked) != 1 || c.asked[0].Pattern != "type" {
		t.Errorf("after Always: %v, asked %+v", err, c.asked)
	}
	c.answer, c.err = approval.Skip, approval.ErrNobodyToAsk
	if err := comp.approve(context.Background(), Action{Name: "key", Keys: []string{"Return"}}); err == nil || !strings.Contains(err.Error(), "nothing was done") {
		t.Errorf("key after Always for type: %v", err)
	}
	c.err = nil
	for answer, want := range map[approval.Answer]string{approval.Skip: "declined", approval.StopTurn: approval.ErrStopTurn.Error()} {
		c.answer = answer
		if err := comp.approve(context.Background(), Action{Name: "left_click"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v", answer, err)
		}
	}
}

// terminal is an xterm at the screen's top left whose shell appends each
// line typed into it to a file, the way a shell would run it.
type terminal struct{ out string }

func startTerminal(t *testing.T, display string) terminal {
	t.Helper()
	dir := t.TempDir()
	term := terminal{out: filepath.Join(dir, "typed")}
	cmd := exec.Command("xterm", "-geometry", "80x24+0+0", "-e", "sh", "-c", `while IFS= read -r l; do printf '%s\n' "$l" >> "$0"; done`, term.out)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	xvfbtest.WaitFor(t, "the xterm's window to be mapped", func() bool {
		return exec.Command("xdotool", "search", "--onlyvisible", "--class", "xterm").Run() == nil
	})
	return term
}

func (term terminal) lines(t *testing.T) []string {
	data, err := os.ReadFile(term.out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestX11 works a real window under Xvfb: keys and text reach a terminal,
// the pointer moves, clicks reach a window, and a screenshot of the
// whole screen reaches the model. The attack: a prompt-injected file has
// the model type a command into the terminal, where nobody can be asked;
// nothing is typed.
func TestX11(t *testing.T) {
	display := xvfbtest.Start(t, "xterm", "xev", "import")
	t.Setenv("DISPLAY", display) // for the test's own xdotool and xterm runs
	term := startTerminal(t, display)
	allowed := New(nil, Options{Display: display, Allowlist: []string{"*"}}).Run
	run := func(run tools.RunFunc, use tools.ToolUse) (string, error) {
		return run(context.Background(), use)
	}
	if _, err := run(allowed, md("mouse_move", "100", "100")); err != nil { // over the terminal: focus follows the pointer
		t.Fatal(err)
	}

	t.Run("type and key", func(t *testing.T) {
		for _, use := range []tools.ToolUse{{Args: []string{"type"}, Content: "echo abcx"}, md("key", "BackSpace"), md("key", "Return")} {
			if _, err := run(allowed, use); err != nil {
				t.Fatal(err)
			}
		}
		xvfbtest.WaitFor(t, "the typed line in the terminal", func() bool { return len(term.lines(t)) == 1 })
		if got := term.lines(t); got[0] != "echo abc" {
			t.Errorf("the terminal read %q", got)
		}
	})

	t.Run("injected command, nobody to ask", func(t *testing.T) {
		for _, c := range []*confirmer{{err: approval.ErrNobodyToAsk}, {answer: approval.Skip}} {
			asking := New(c, Options{Display: display, Allowlist: []string{"screenshot"}}).Run
			_, err := run(asking, tools.ToolUse{Args: []string{"type"}, Content: "rm -rf ~\n"})
			if err == nil || !strings.Contains(err.Error(), "nothing was done") {
				t.Fatalf("typing an injected command: %v", err)
			}
			if _, err := run(asking, md("key", "Return")); err == nil {
				t.Fatal("a key was pressed without asking")
			}
		}
		// A line typed with approval comes next in the terminal: had
		// anything been typed before it, it would be on its line.
		if _, err := run(allowed, tools.ToolUse{Args: []string{"type"}, Content: "approved\n"}); err != nil {
			t.Fatal(err)
		}
		xvfbtest.WaitFor(t, "the approved line", func() bool { return len(term.lines(t)) >= 2 })
		if got := term.lines(t); len(got) != 2 || got[1] != "approved" {
			t.Errorf("the terminal read %q", got)
		}
	})

	t.Run("pointer", func(t *testing.T) {
		out, err := run(allowed, md("mouse_move", "321", "234"))
		if err != nil || !strings.Contains(out, "x=321 y=234") {
			t.Fatalf("mouse_move: %q, %v", out, err)
		}
		out, err = run(allowed, md("cursor_position"))
		if err != nil || out != "The pointer is at x=321 y=234." {
			t.Fatalf("cursor_position: %q, %v", out, err)
		}
		if _, err := run(allowed, md("mouse_move", "5000", "10")); err == nil || !strings.Contains(err.Error(), "off the screen") {
			t.Errorf("off the screen: %v", err)
		}
	})

	t.Run("clicks", func(t *testing.T) {
		// xev prints each button event its window gets, with the button
		// and the point on the screen.
		var events bytes.Buffer
		var mu sync.Mutex
		xev := exec.Command("xev", "-geometry", "300x300+600+0")
		xev.Stdout = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return events.Write(p) })
		if err := xev.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = xev.Process.Kill(); _ = xev.Wait() }()
		defer func() {
			if t.Failed() {
				mu.Lock()
				t.Logf("xev printed:\n%s", events.String())
				mu.Unlock()
			}
		}()
		xvfbtest.WaitFor(t, "xev's window", func() bool {
			return exec.Command("xdotool", "search", "--onlyvisible", "--name", "Event Tester").Run() == nil
		})
		count := func(s string) int { // in the events' words, whatever their line breaks
			mu.Lock()
			defer mu.Unlock()
			return strings.Count(strings.Join(strings.Fields(events.String()), " "), s)
		}
		for _, step := range []struct {
			use  tools.ToolUse
			want string
			n    int
		}{
			{md("left_click", "700", "100"), "root:(700,100), state 0x0, button 1", 1},
			{md("right_click"), "button 3,", 1},
			{md("middle_click"), "button 2,", 1},
			{md("double_click", "710", "110"), "root:(710,110), state 0x0, button 1", 2},
			{md("mouse_move", "720", "120"), "", 0},
			{md("left_click_drag", "800", "200"), "root:(800,200), state 0x100, button 1", 1}, // released over there, button 1 held
		} {
			before := count(step.want)
			if _, err := run(allowed, step.use); err != nil {
				t.Fatalf("%v: %v", step.use.Args, err)
			}
			if step.want != "" {
				xvfbtest.WaitFor(t, step.use.Args[0]+": "+step.want, func() bool { return count(step.want) >= before+step.n })
			}
		}
		if n := count("ButtonRelease event"); n < 6 {
			t.Errorf("%d buttons released, want 6", n)
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		ims := &images{}
		ctx := tools.WithImageAttacher(context.Background(), ims)
		out, err := allowed(ctx, md("screenshot"))
		if err != nil {
			t.Fatal(err)
		}
		if len(ims.got) != 1 || ims.got[0].MIMEType != "image/png" {
			t.Fatalf("images: %+v", ims.got)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(ims.got[0].Data))
		if err != nil || cfg.Width != xvfbtest.Width || cfg.Height != xvfbtest.Height {
			t.Errorf("the image is %+v (%v), want the screen's %d×%d", cfg, err, xvfbtest.Width, xvfbtest.Height)
		}
		if !strings.Contains(out, "1024×768, sent") {
			t.Errorf("the model was told %q", out)
		}
		small := New(nil, Options{Display: display, Allowlist: []string{"screenshot"}, Vision: visionOpts(512)}).Run
		if _, err := small(ctx, md("screenshot")); err != nil || ims.got[1].Width != 512 || ims.got[1].Height != 384 {
			t.Errorf("fitted to 512: %v, %dx%d", err, ims.got[1].Width, ims.got[1].Height)
		}
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func visionOpts(maxSide int) vision.Options { return vision.Options{MaxSide: maxSide} }
