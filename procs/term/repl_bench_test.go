package term

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkREPL is what the ipython tool costs in each interpreter: a
// start (the first call of a turn that has none) and a small cell.
func BenchmarkREPL(b *testing.B) {
	exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Skip("no python3")
	}
	out := strings.TrimSpace(string(exe)) // the interpreter itself, not a slow launcher
	for _, mode := range []struct{ name, interp string }{{"python", InterpreterPython}, {"ipython", InterpreterAuto}} {
		if mode.interp == InterpreterAuto && !findInterpreter(context.Background(), out, InterpreterAuto).ipython {
			continue
		}
		b.Run(mode.name+"/start", func(b *testing.B) {
			for b.Loop() {
				m := NewManager(Options{Dir: b.TempDir(), Python: out, Interpreter: mode.interp})
				repl, err := m.Python(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if _, err := repl.Run(context.Background(), "1"); err != nil {
					b.Fatal(err)
				}
				m.Close()
			}
		})
		b.Run(mode.name+"/cell", func(b *testing.B) {
			m := NewManager(Options{Dir: b.TempDir(), Python: out, Interpreter: mode.interp})
			defer m.Close()
			repl, err := m.Python(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := repl.Run(context.Background(), "x = sum(range(100))\nx"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
