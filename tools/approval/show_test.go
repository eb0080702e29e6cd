package approval

import (
	"strings"
	"testing"
)

// TestCommand: a command's question shows all of it. A short line is its
// own summary; anything more comes whole in Detail, every line
// numbered, and the summary says how much more there is.
func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		name, text     string
		action, detail string
	}{
		{"one short line", "go test ./...", "go test ./...", ""},
		{"three lines", "import math  # harmless\nos.system('touch pwned')\nprint(1)",
			"import math  # harmless … (+2 lines)", "1│ import math  # harmless\n2│ os.system('touch pwned')\n3│ print(1)"},
		{"a long line", "ls" + strings.Repeat(" ", 200) + "; rm -rf ~",
			"ls" + strings.Repeat(" ", 98) + "…", "1│ ls" + strings.Repeat(" ", 200) + "; rm -rf ~"},
		{"a carriage return hides the start", "rm -rf ~\r# just a comment",
			`rm -rf ~\x0d# just a comment`, `1│ rm -rf ~\x0d# just a comment`},
		{"ten lines are numbered to width", strings.Repeat("x\n", 9) + "y", "x … (+9 lines)",
			" 1│ x\n 2│ x\n 3│ x\n 4│ x\n 5│ x\n 6│ x\n 7│ x\n 8│ x\n 9│ x\n10│ y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := Command(tc.text, "not on the allowlist", "p")
			if q.Action != tc.action || q.Detail != tc.detail {
				t.Errorf("Command(%q) = Action %q, Detail %q; want %q, %q", tc.text, q.Action, q.Detail, tc.action, tc.detail)
			}
		})
	}
}

// TestEscape: what a terminal or an editor would not show as itself is
// written as an escape; everything else is left as it is.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain; ümlaut 日本 \\n tab\there":   "plain; ümlaut 日本 \\n tab\there",
		"ansi \x1b[2K\x1b[1Aup":            `ansi \x1b[2K\x1b[1Aup`,
		"bidi \u202eevil\u202c":            `bidi \u202eevil\u202c`,
		"zero\u200bwidth\ufeff":            `zero\u200bwidth\ufeff`,
		"bad \xff utf8":                    `bad \xff utf8`,
		"del \x7f and c1 \u0085":           `del \x7f and c1 \u0085`,
		"line\u2028separator":              `line\u2028separator`,
		"isolate \u2066x\u2069 mark\u200f": `isolate \u2066x\u2069 mark\u200f`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if got := Escape(Escape(in)); got != Escape(in) {
			t.Errorf("Escape is not idempotent on %q: %q", in, got)
		}
	}
}

// TestDigest: the digest changes with anything shown.
func TestDigest(t *testing.T) {
	base := Command("a\nb", "r", "p")
	seen := map[string]string{base.Digest(): "base"}
	for name, q := range map[string]Question{
		"another line":   Command("a\nc", "r", "p"),
		"an edit":        {Action: base.Action, Detail: base.Detail, Edit: true},
		"another action": {Action: "a", Detail: base.Detail},
	} {
		d := q.Digest()
		if other, ok := seen[d]; ok {
			t.Errorf("%s has the digest of %s", name, other)
		}
		seen[d] = name
	}
	if Command("a\nb", "another reason", "q").Digest() != base.Digest() {
		t.Error("the digest depends on the reason or pattern, which do not run")
	}
}
