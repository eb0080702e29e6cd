package termtext

import "testing"

func TestStripEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                    "plain",
		"\x1b[31mred\x1b[0m":       "red",
		"a\x1b[2Kb\x1b[1;1Hc":      "abc",
		"\x1b[?25lhidden\x1b[?25h": "hidden",
		"\x1b]0;title\x07kept":     "kept",
		"\x1b]8;;file:///a.c\x1b\\a.c\x1b]8;;\x1b\\": "a.c",
		"\x1b(Bascii":      "ascii",
		"\x1bé":            "é",
		"unfinished \x1b[": "unfinished ",
		"trailing \x1b":    "trailing ",
	} {
		if got := StripEscapes(in); got != want {
			t.Errorf("StripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
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
