package jobs

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/procs/shell"
)

// TestForegroundAndBackgroundCleanAlike: what a command printed for a
// terminal reaches the model cleaned the same way whether it ran in the
// foreground (shell's message) or as a `bg` job (`output N`). The shell
// used to strip CSI sequences only, so a title, a hyperlink or a charset
// switch reached the model raw from the foreground and clean from a job.
func TestForegroundAndBackgroundCleanAlike(t *testing.T) {
	tests := []struct{ name, out, want string }{
		{"colours", "\x1b[1;31merror\x1b[0m: x\nline 2\n", "error: x\nline 2"},
		{"title", "\x1b]0;make: building\x07build\ndone\n", "build\ndone"},
		{"hyperlink", "see \x1b]8;;file:///a.go\x1b\\a.go\x1b]8;;\x1b\\\nnext\n", "see a.go\nnext"},
		{"charset and device control", "\x1b(Bascii\x1bPq#0;2;0;0;0\x1b\\\nend\n", "ascii\nend"},
	}
	for _, tt := range tests {
		fg := (&shell.Result{Commands: []shell.Command{{Text: "make", Stdout: tt.out}}}).Message(shell.Limits{})
		bg := FormatOutput(Info{ID: 1, Command: "make"}, Output{Stdout: tt.out})
		for where, msg := range map[string]string{"foreground": fg, "background": bg} {
			if strings.Contains(msg, "\x1b") || !strings.Contains(msg, "\n"+tt.want+"\n") {
				t.Errorf("%s: %s output reaches the model as\n%q\nwant it to hold %q and no escape", tt.name, where, msg, tt.want)
			}
		}
	}
}
