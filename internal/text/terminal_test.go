package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStripEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                    "plain",
		"\x1b[31mred\x1b[0m":       "red",
		"\x1b[1;32mok\x1b[m":       "ok",
		"a\x1b[2Kb\x1b[1;1Hc":      "abc",
		"\x1b[?25lhidden\x1b[?25h": "hidden",
		"\x1b[38;5;196mx\x1b[0m":   "x",
		"\x1b[ q":                  "", // CSI with an intermediate (cursor style)
		"\x1b]0;title\x07kept":     "kept",
		"\x1b]8;;file:///a.c\x1b\\a.c\x1b]8;;\x1b\\": "a.c",
		"\x1b]0;title":                "",      // unterminated control string: to the end
		"\x1b]0;tït\x1b[1mbold":       "bold",  // ESC ends a control string
		"\x1bPq#0;2;0;0;0\x1b\\after": "after", // DCS (sixel)
		"\x1b_app\x1b\\x":             "x",     // APC
		"\x1b]0;t\x18rest":            "rest",  // CAN cancels
		"\x1b(Bascii":                 "ascii",
		"\x1b7saved\x1b8":             "saved",
		"\x1b=keypad\x1b>":            "keypad",
		"\x1bé":                       "é",
		"\x1b\x1b[1mx":                "x",
		"\x1b\nline":                  "\nline",
		"\x1b[1\nnext":                "\nnext", // a broken CSI keeps the line break
		"\x1b[1éa":                    "éa",     // and the character
		"unfinished \x1b[":            "unfinished ",
		"trailing \x1b":               "trailing ",
		"café \x1b[1mbar\x1b[0m":      "café bar",
	} {
		if got := StripEscapes(in); got != want {
			t.Errorf("StripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzStripEscapes checks that no ESC is left, that stripping twice
// changes nothing, and that valid UTF-8 stays valid.
func FuzzStripEscapes(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]8;;x\x1b\\y\x1b]8;;\x1b\\", "\x1bPq\x1b\\", "\x1b(B", "\x1b\x1b", "\x1b]é\x07é", "\x1b[1é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StripEscapes(s)
		if strings.IndexByte(got, esc) >= 0 {
			t.Fatalf("StripEscapes(%q) = %q: an ESC is left", s, got)
		}
		if again := StripEscapes(got); again != got {
			t.Fatalf("StripEscapes is not idempotent on %q: %q, then %q", s, got, again)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("StripEscapes(%q) = %q: invalid UTF-8", s, got)
		}
		if len(got) > len(s) {
			t.Fatalf("StripEscapes(%q) = %q: longer than its input", s, got)
		}
	})
}

func TestTrimBlankLines(t *testing.T) {
	tests := []struct {
		in                string
		leading, trailing bool
		want              string
	}{
		{"\n  \n  x\n  y  \n\t\n", true, true, "  x\n  y"},
		{"\n\n  x\n\n", true, false, "  x\n\n"},
		{"\n\n  x \r\n\n", false, true, "\n\n  x"},
		{" \n\t\n", true, true, ""},
		{"x", true, true, "x"},
	}
	for _, tt := range tests {
		if got := TrimBlankLines(tt.in, tt.leading, tt.trailing); got != tt.want {
			t.Errorf("TrimBlankLines(%q, %v, %v) = %q, want %q", tt.in, tt.leading, tt.trailing, got, tt.want)
		}
	}
}
