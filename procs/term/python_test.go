package term

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPython runs cells in order in one interpreter, since starting one
// costs seconds on some machines (a pyenv shim): the plain python3 REPL,
// and IPython where it is installed, which shows the same output.
func TestPython(t *testing.T) {
	t.Run("python", func(t *testing.T) { testREPL(t, InterpreterPython) })
	t.Run("ipython", func(t *testing.T) {
		if !findInterpreter(context.Background(), testPython(t), InterpreterAuto).ipython {
			t.Skipf("IPython is not installed for %s (pip install ipython, or Debian's ipython3)", testPython(t))
		}
		testREPL(t, InterpreterAuto)
	})
}

func testREPL(t *testing.T, mode string) {
	m := newManager(t, Options{Dir: t.TempDir(), Python: testPython(t), Interpreter: mode})
	ctx := context.Background()
	repl, err := m.Python(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := m.Python(ctx); again != repl {
		t.Fatal("Python returned a second interpreter")
	}
	steps := []struct {
		name, code string
		want       string // exact output, or with contains: a substring
		contains   bool
	}{
		{name: "assignment prints nothing", code: "x = 41", want: ""},
		{name: "state persists", code: "x + 1", want: "42"},
		{name: "def then call in one block", code: "def double(n):\n    return 2 * n\n\nprint('calling')\ndouble(x)", want: "calling\n82"},
		{name: "blank lines inside blocks", code: "class C:\n    a = 1\n\n    def f(self):\n\n        return self.a\n\nC().f()", want: "1"},
		{name: "None is not shown", code: "None", want: ""},
		{name: "strings show their repr", code: "'a' + 'b'", want: "'ab'"},
		{name: "last value is _", code: "_ * 2", want: "'abab'"},
		{name: "exception is output", code: "def boom():\n    return 1 / 0\nboom()", want: "ZeroDivisionError: division by zero", contains: true},
		{name: "traceback shows the cell's code", code: "def boom2():\n    raise ValueError('bad value')\nboom2()", want: "raise ValueError('bad value')", contains: true},
		{name: "still works after an exception", code: "x", want: "41"},
		{name: "syntax error", code: "def broken(:\n    pass", want: "SyntaxError", contains: true},
		{name: "stderr", code: "import sys\nprint('to stderr', file=sys.stderr)", want: "to stderr"},
		{name: "progress bar reads as its final state", code: "import sys\nfor i in range(0, 101, 25):\n    sys.stdout.write('\\rprogress %3d%%' % i)\nprint()", want: "progress 100%"},
		{name: "colours stripped", code: "print('\\x1b[31mred\\x1b[0m')", want: "red"},
		{name: "prompt-like output is kept", code: "print('>>> not a prompt')", want: ">>> not a prompt"},
		{name: "long output", code: "for i in range(300):\n    print(i)", want: "0\n1\n2", contains: true},
		{name: "no trailing newline", code: "print('partial', end='')", want: "partial"},
		{name: "works in the configured dir", code: "import os\nos.getcwd() == " + pyQuote(m.opts.Dir), want: "True"},
	}
	for _, st := range steps {
		out, err := repl.Run(ctx, st.code)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if st.contains && !strings.Contains(out, st.want) || !st.contains && out != st.want {
			t.Errorf("%s: output %q, want %q", st.name, out, st.want)
		}
	}
	if out, _ := repl.Run(ctx, "for i in range(300):\n    print(i)"); !strings.HasSuffix(out, "\n299") || strings.Count(out, "\n") != 299 {
		t.Errorf("300 lines came back as %d lines ending %q", strings.Count(out, "\n")+1, out[max(len(out)-10, 0):])
	}

	t.Run("cancel interrupts a busy loop and keeps state", func(t *testing.T) {
		cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		out, err := repl.Run(cctx, "while True:\n    pass")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		if !strings.Contains(out, "KeyboardInterrupt") {
			t.Errorf("output %q lacks KeyboardInterrupt", out)
		}
		if out, err := repl.Run(ctx, "x"); err != nil || out != "41" {
			t.Errorf("after the interrupt: %q, %v; want 41", out, err)
		}
	})

	t.Run("exit restarts with a note", func(t *testing.T) {
		if _, err := repl.Run(ctx, "exit()"); err != nil {
			t.Fatal(err)
		}
		out, err := repl.Run(ctx, "'x' in globals()")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "restarted") || !strings.HasSuffix(out, "False") {
			t.Errorf("after exit(): %q", out)
		}
	})
}

var (
	pythonOnce sync.Once
	pythonPath string
)

// testPython resolves python3 to the interpreter itself once, so that the
// tests that start several interpreters do not go through a slow launcher
// (a pyenv shim takes seconds) each time.
func testPython(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() {
		out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		if err == nil {
			pythonPath = strings.TrimSpace(string(out))
		}
	})
	if pythonPath == "" {
		t.Skip("no python3")
	}
	return pythonPath
}

func pyQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func TestCellRecorderSplitMarkers(t *testing.T) {
	raw := ">>> __agentls_run(7)\r\n\x1b]7770;agentls-start-n-7\x07hello\r\n10%\r99%\r\n\x1b]7770;agentls-done-n-7\x07>>> "
	for cut := 0; cut <= len(raw); cut++ {
		for cut2 := cut; cut2 <= len(raw); cut2 += 7 {
			rec := newCellRecorder("n", 7, 40, 100)
			rec.feed([]byte(raw[:cut]))
			rec.feed([]byte(raw[cut:cut2]))
			rec.feed([]byte(raw[cut2:]))
			select {
			case <-rec.ended:
			default:
				t.Fatalf("cuts %d,%d: end marker not seen", cut, cut2)
			}
			if got := rec.text(); got != "hello\n99%" {
				t.Fatalf("cuts %d,%d: text %q", cut, cut2, got)
			}
		}
	}
	// Another cell's markers are not ours.
	rec := newCellRecorder("n", 8, 40, 100)
	rec.feed([]byte(raw))
	select {
	case <-rec.started:
		t.Fatal("cell 8 started on cell 7's marker")
	default:
	}
}
