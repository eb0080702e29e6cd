package jobs

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		line      string
		verb, arg string
		ok        bool
	}{
		{"bg go test ./...", "bg", "go test ./...", true},
		{"  BG   npm run dev  ", "bg", "npm run dev", true},
		{"$ bg make", "bg", "make", true},
		{"bg\tsleep 1", "bg", "sleep 1", true},
		{"bg", "bg", "", true},
		{"bg   ", "bg", "", true},
		{"bgfoo", "", "", false},
		// Found by FuzzParse: whitespace after the # is not part of the id.
		{"output #\f3", "output", "3", true},
		{"kill # 4", "kill", "4", true},
		{"jobs", "jobs", "", true},
		{"JOBS", "jobs", "", true},
		{"$ jobs", "jobs", "", true},
		{"jobs -l", "", "", false},
		{"jobsx", "", "", false},
		{"output 3", "output", "3", true},
		{"Output #12", "output", "12", true},
		{"output abc", "output", "abc", true}, // the caller answers "Invalid job ID"
		{"output", "", "", false},
		{"output #", "", "", false},
		{"output 1 2", "", "", false},
		{"kill 3", "kill", "3", true},
		{"kill #3", "kill", "3", true},
		{"KILL 42", "kill", "42", true},
		{"kill -9 123", "", "", false},
		{"kill %1", "", "", false},
		{"kill", "", "", false},
		{"kill 3 4", "", "", false},
		{"kill 3x", "", "", false},
		{"bg make\nbg test", "", "", false},
		{"echo bg", "", "", false},
		{"", "", "", false},
		{"$ ", "", "", false},
	}
	for _, tt := range tests {
		verb, arg, ok := Parse(tt.line)
		if verb != tt.verb || arg != tt.arg || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.line, verb, arg, ok, tt.verb, tt.arg, tt.ok)
		}
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		arg string
		id  int
		ok  bool
	}{
		{"1", 1, true},
		{"007", 7, true},
		{"0", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1e3", 0, false},
		{"٣", 0, false}, // Arabic-Indic three: not ASCII
		{"99999999999999999999999", 0, false},
	}
	for _, tt := range tests {
		id, ok := ParseID(tt.arg)
		if id != tt.id || ok != tt.ok {
			t.Errorf("ParseID(%q) = %d, %v; want %d, %v", tt.arg, id, ok, tt.id, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"bg make", "jobs", "output #3", "kill 12", "kill -9 1", "$ bg x", "output", "BG\t", "kill #"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		verb, arg, ok := Parse(line)
		if !ok {
			if verb != "" || arg != "" {
				t.Fatalf("Parse(%q) = %q, %q, false", line, verb, arg)
			}
			return
		}
		if strings.ContainsAny(arg, "\r\n") {
			t.Fatalf("Parse(%q): arg %q holds a newline", line, arg)
		}
		if arg != strings.TrimSpace(arg) {
			t.Fatalf("Parse(%q): arg %q not trimmed", line, arg)
		}
		switch verb {
		case VerbBg:
			if !strings.Contains(strings.ToLower(line), "bg") || !strings.Contains(line, arg) {
				t.Fatalf("Parse(%q) = bg %q", line, arg)
			}
		case VerbJobs:
			if arg != "" {
				t.Fatalf("Parse(%q) = jobs %q", line, arg)
			}
		case VerbOutput:
			if arg == "" || strings.ContainsAny(arg, " \t") {
				t.Fatalf("Parse(%q) = output %q", line, arg)
			}
		case VerbKill:
			if arg == "" || !allDigits(arg) {
				t.Fatalf("Parse(%q) = kill %q: not all digits", line, arg)
			}
		default:
			t.Fatalf("Parse(%q): unknown verb %q", line, verb)
		}
		// Surrounding blanks change nothing, nor does a prompt.
		again := " " + line + "\t"
		if !strings.HasPrefix(strings.TrimSpace(line), "$ ") {
			again = "$ " + again
		}
		if v2, a2, ok2 := Parse(again); !ok2 || v2 != verb || a2 != arg {
			t.Fatalf("Parse(%q) = %q %q, but Parse(%q) = %q %q %v", line, verb, arg, again, v2, a2, ok2)
		}
	})
}
