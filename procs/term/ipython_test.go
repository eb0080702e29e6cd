package term

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// startIPython returns a REPL running IPython, or skips saying why not.
func startIPython(t *testing.T) (*REPL, *Manager) {
	t.Helper()
	py := testPython(t)
	if !findInterpreter(context.Background(), py, InterpreterAuto).ipython {
		t.Skipf("IPython is not installed for %s (pip install ipython, or Debian's ipython3): the IPython tests need it", py)
	}
	m := newManager(t, Options{Dir: t.TempDir(), Python: py})
	repl, err := m.Python(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := repl.Interpreter(context.Background()); !strings.HasPrefix(got, "IPython ") {
		t.Fatalf("Interpreter() = %q, want IPython", got)
	}
	return repl, m
}

// recorder is CellHooks that allows the commands allow says yes to and
// records every command and image asked for.
type recorder struct {
	allow  func(cmd string) bool
	mu     sync.Mutex
	asked  []string
	dirs   []string
	images []string
}

func (rc *recorder) hooks() CellHooks {
	return CellHooks{
		System: func(_ context.Context, dir, cmd string) error {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			rc.asked, rc.dirs = append(rc.asked, cmd), append(rc.dirs, dir)
			if rc.allow != nil && rc.allow(cmd) {
				return nil
			}
			return errors.New("the user declined it")
		},
		ViewImage: func(_ context.Context, dir, path string) (string, error) {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			rc.images = append(rc.images, filepath.Join(dir, path))
			if path == "missing.png" {
				return "", errors.New("no such image")
			}
			return "(image " + path + ", 2×2, sent)", nil
		},
	}
}

// TestIPython: magics work, the last value shows without an Out prompt,
// !commands run when the hook allows them, and view_image asks agentls.
func TestIPython(t *testing.T) {
	repl, m := startIPython(t)
	ctx := context.Background()
	rc := &recorder{allow: func(cmd string) bool { return strings.HasPrefix(cmd, "echo ") }}
	steps := []struct {
		name, code string
		want       string // a substring of the output
		exact      bool
	}{
		{name: "last value, no Out prompt", code: "x = 6 * 7\nx", want: "42", exact: true},
		{name: "timeit", code: "%timeit -n 1 -r 1 sum(range(100))", want: "per loop"},
		{name: "line magic", code: "%pwd", want: m.opts.Dir},
		{name: "!cmd allowed, expanded as it runs", code: "!echo hello $x", want: "hello 42"},
		{name: "captured output", code: "out = !echo captured\nout", want: "['captured']"},
		{name: "%%bash allowed", code: "%%bash\necho from bash", want: "from bash"},
		{name: "%%script is gone", code: "%%script bash\necho no", want: "Cell magic `%%script` not found"},
		{name: "a declined command says so", code: "!ls /", want: "agentls: not run: the user declined it"},
		{name: "view_image", code: "view_image('shot.png')", want: "(image shot.png, 2×2, sent)", exact: true},
		{name: "view_image refused", code: "view_image('missing.png')", want: "RuntimeError: no such image"},
		{name: "exception", code: "1/0", want: "ZeroDivisionError"},
	}
	for _, st := range steps {
		out, err := repl.RunWith(ctx, st.code, rc.hooks())
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if st.exact && out != st.want || !strings.Contains(out, st.want) {
			t.Errorf("%s: output %q, want %q", st.name, out, st.want)
		}
	}
	want := []string{"echo hello 42", "echo captured", "echo from bash\n", "ls /"}
	if strings.Join(rc.asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked about %q, want %q", rc.asked, want)
	}
	if len(rc.dirs) == 0 || rc.dirs[0] != m.opts.Dir {
		t.Errorf("commands asked in %q, want %s", rc.dirs, m.opts.Dir)
	}
	if len(rc.images) != 2 || rc.images[0] != filepath.Join(m.opts.Dir, "shot.png") {
		t.Errorf("images asked for: %q", rc.images)
	}
}

// TestIPythonCommandsNeedAgentls is the attack: the model writes shell
// commands in a cell, in each of IPython's ways of running one, and
// nobody allows them (Run has no hooks; a turn with nobody to ask
// declines). Nothing is created.
func TestIPythonCommandsNeedAgentls(t *testing.T) {
	repl, _ := startIPython(t)
	dir := t.TempDir()
	ctx := context.Background()
	for i, cell := range []string{
		"!touch PWNED",
		"!!touch PWNED",
		"out = !touch PWNED",
		"%system touch PWNED",
		"%sx touch PWNED",
		"%%bash\ntouch PWNED",
		"%%sh\ntouch PWNED",
		"get_ipython().system('touch PWNED')",
		"get_ipython().system_raw('touch PWNED')",
		"get_ipython().getoutput('touch PWNED')",
	} {
		pwned := filepath.Join(dir, "pwned"+string(rune('a'+i)))
		code := strings.ReplaceAll(cell, "PWNED", pwned)
		out, err := repl.Run(ctx, code)
		if err != nil {
			t.Fatalf("%q: %v", code, err)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Errorf("%q ran with nobody to allow it (output %q)", code, out)
		}
		if !strings.Contains(out, "not run") {
			t.Errorf("%q: output %q does not say the command was not run", code, out)
		}
	}
}

// TestIPythonCheckedIsRun: the command the hook allows is the command
// that runs. IPython expands {expr} and $var in a command, and would
// expand the result again: the model sets y to "hi; touch pwned" and x to
// "{y}", and asks for `!echo $x`, which reads as a harmless echo of
// "{y}"; expanded twice, bash would run "echo hi; touch pwned".
func TestIPythonCheckedIsRun(t *testing.T) {
	repl, _ := startIPython(t)
	pwned := filepath.Join(t.TempDir(), "pwned")
	rc := &recorder{allow: func(cmd string) bool { return !strings.ContainsAny(cmd, ";&|") }}
	out, err := repl.RunWith(context.Background(), "y = 'hi; touch "+pwned+"'\nx = '{y}'\n!echo $x", rc.hooks())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("the command run was not the one allowed (%q): output %q", rc.asked, out)
	}
	if len(rc.asked) != 1 || rc.asked[0] != "echo {y}" || out != "{y}" {
		t.Errorf("asked %q, output %q; want echo {y} run as it is", rc.asked, out)
	}
}

// TestPlainPythonViewImage: the plain REPL has view_image too, asked over
// the same socket; its "!" is Python's syntax error, not a command.
func TestPlainPythonViewImage(t *testing.T) {
	m := newManager(t, Options{Dir: t.TempDir(), Python: testPython(t), Interpreter: InterpreterPython})
	repl, err := m.Python(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := repl.Interpreter(context.Background()); !strings.HasPrefix(got, "python3 (IPython is not installed") {
		t.Errorf("Interpreter() = %q", got)
	}
	rc := &recorder{}
	out, err := repl.RunWith(context.Background(), "view_image('shot.png')", rc.hooks())
	if err != nil || out != "(image shot.png, 2×2, sent)" {
		t.Errorf("view_image: %q, %v", out, err)
	}
	pwned := filepath.Join(t.TempDir(), "pwned")
	if out, _ := repl.RunWith(context.Background(), "!touch "+pwned, rc.hooks()); !strings.Contains(out, "SyntaxError") {
		t.Errorf("!touch in plain python: %q", out)
	}
	if _, err := os.Stat(pwned); err == nil || len(rc.asked) != 0 {
		t.Errorf("plain python ran or asked about a command: %q", rc.asked)
	}
}
