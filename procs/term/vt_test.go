package term

import (
	"strings"
	"testing"
)

func TestTerminalScreen(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		in         string
		screen     string
		capture    string // defaults to screen
	}{
		{name: "plain lines", cols: 20, rows: 5, in: "a\r\nb\r\n", screen: "a\nb"},
		{name: "progress redraw with CR", cols: 20, rows: 3,
			in: "10%\r50%\r100%\r\ndone\r\n", screen: "100%\ndone"},
		{name: "shorter redraw keeps the tail unless erased", cols: 20, rows: 3,
			in: "downloading\rok\x1b[K\r\n", screen: "ok"},
		{name: "backspace overwrites", cols: 20, rows: 3, in: "abc\b\bX", screen: "aXc"},
		{name: "tab stops", cols: 20, rows: 3, in: "a\tb\tc", screen: "a       b       c"},
		{name: "tab at the end stays in the last column", cols: 10, rows: 2, in: "abcdefghi\tX", screen: "abcdefghiX"},
		{name: "LF alone keeps the column", cols: 10, rows: 3, in: "ab\ncd", screen: "ab\n  cd"},
		{name: "autowrap", cols: 4, rows: 3, in: "abcdefg", screen: "abcd\nefg"},
		{name: "deferred wrap: CR at the margin stays on the line", cols: 4, rows: 3, in: "abcd\rX", screen: "Xbcd"},
		{name: "autowrap off overwrites the last column", cols: 4, rows: 3, in: "\x1b[?7labcdefg", screen: "abcg"},
		{name: "scroll into history", cols: 10, rows: 2, in: "1\r\n2\r\n3\r\n4",
			screen: "3\n4", capture: "1\n2\n3\n4"},
		{name: "clear screen", cols: 10, rows: 3, in: "old\r\ntext\x1b[H\x1b[2Jnew", screen: "new"},
		{name: "clear scrollback", cols: 10, rows: 2, in: "1\r\n2\r\n3\x1b[3J", screen: "2\n3"},
		{name: "cursor position and erase", cols: 10, rows: 3,
			in: "xxxxx\r\nyyyyy\x1b[1;3H\x1b[1K\x1b[2;2H\x1b[0K", screen: "   xx\ny"},
		{name: "erase display below", cols: 5, rows: 3, in: "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[J", screen: "aaa\nb"},
		{name: "erase display above", cols: 5, rows: 3, in: "aaa\r\nbbb\r\nccc\x1b[2;2H\x1b[1J", screen: "\n  b\nccc"},
		{name: "cursor moves", cols: 10, rows: 4,
			in: "\x1b[3;5HX\x1b[2AY\x1b[3DZ\x1b[BW\x1b[10CE", screen: "   Z Y\n    W    E\n    X"},
		{name: "moves clamp to the screen", cols: 5, rows: 2, in: "\x1b[99;99HX\x1b[99AY\x1b[99DZ", screen: "Z   Y\n    X"},
		{name: "column and row absolute", cols: 10, rows: 3, in: "\x1b[3dA\x1b[5GB\x1b[1`C", screen: "\n\nC   B"},
		{name: "next and previous line", cols: 10, rows: 3, in: "ab\x1b[2Ec\x1b[Fd", screen: "ab\nd\nc"},
		{name: "insert and delete chars", cols: 10, rows: 2, in: "abcdef\x1b[1;3H\x1b[2@XY\x1b[1;1H\x1b[1P", screen: "bXYcdef"},
		{name: "erase chars", cols: 10, rows: 2, in: "abcdef\x1b[1;2H\x1b[3X", screen: "a   ef"},
		{name: "insert mode", cols: 10, rows: 2, in: "abc\x1b[1;2H\x1b[4hXY\x1b[4lZ", screen: "aXYZc"},
		{name: "insert and delete lines", cols: 5, rows: 4,
			in: "1\r\n2\r\n3\r\n4\x1b[2;1H\x1b[L", screen: "1\n\n2\n3"},
		{name: "delete lines", cols: 5, rows: 4, in: "1\r\n2\r\n3\r\n4\x1b[2;1H\x1b[2M", screen: "1\n4"},
		{name: "scroll region keeps the header and writes no history", cols: 10, rows: 4,
			in: "head\x1b[2;4r\x1b[4;1Ha\r\nb\r\nc\r\nd", screen: "head\nb\nc\nd"},
		{name: "reverse index at the top scrolls down", cols: 5, rows: 3, in: "a\r\nb\x1b[H\x1bMz", screen: "z\na\nb"},
		{name: "scroll up and down", cols: 5, rows: 3, in: "a\r\nb\r\nc\x1b[1S", screen: "b\nc", capture: "a\nb\nc"},
		{name: "scroll down", cols: 5, rows: 3, in: "a\r\nb\r\nc\x1b[1T", screen: "\na\nb"},
		{name: "save and restore cursor", cols: 10, rows: 3, in: "ab\x1b7\x1b[3;1Hz\x1b8c\x1b[sq\x1b[2;2H\x1b[ur", screen: "abcr\n\nz"},
		{name: "alternate screen hides and restores", cols: 20, rows: 3,
			in: "shell$ \x1b[?1049h\x1b[Hfull screen app\x1b[?1049lback", screen: "shell$ back"},
		{name: "alternate screen shows while active", cols: 20, rows: 3,
			in: "shell\x1b[?1049h\x1b[Hmenu", screen: "menu"},
		{name: "SGR colours vanish", cols: 20, rows: 2, in: "\x1b[1;31mred\x1b[0m \x1b[38;5;208mor\x1b[38:2:1:2:3mange\x1b[m", screen: "red orange"},
		{name: "OSC title with BEL and ST", cols: 20, rows: 2, in: "\x1b]0;title\x07a\x1b]2;t\x1b\\b", screen: "ab"},
		{name: "DCS and APC skipped", cols: 20, rows: 2, in: "\x1bPq#0;2;0;0;0\x1b\\a\x1b_hidden\x1b\\b", screen: "ab"},
		{name: "charset designation", cols: 20, rows: 2, in: "\x1b(Ba\x1b)0b", screen: "ab"},
		{name: "CAN aborts a sequence", cols: 20, rows: 2, in: "\x1b[3\x18ab", screen: "ab"},
		{name: "utf-8 text", cols: 20, rows: 2, in: "héllo wörld", screen: "héllo wörld"},
		{name: "wide characters take two cells", cols: 6, rows: 2, in: "日本語x", screen: "日本語\nx"},
		{name: "wide character does not split at the margin", cols: 5, rows: 2, in: "abcd日", screen: "abcd\n日"},
		{name: "overwriting half a wide character blanks it", cols: 10, rows: 2, in: "日本\x1b[1;2Hx", screen: " x本"},
		{name: "invalid utf-8 shows replacement", cols: 10, rows: 2, in: "a\xffb\xe6c", screen: "a\uFFFDb\uFFFDc"},
		{name: "combining marks dropped", cols: 10, rows: 2, in: "e\u0301!", screen: "e!"},
		{name: "repeat last character", cols: 10, rows: 2, in: "-\x1b[4b", screen: "-----"},
		{name: "reset", cols: 10, rows: 2, in: "junk\x1bcok", screen: "ok"},
		{name: "origin mode", cols: 10, rows: 4, in: "\x1b[2;3r\x1b[?6h\x1b[1;1HX\x1b[9;1HY", screen: "\nX\nY"},
		{name: "trailing blank lines trimmed", cols: 10, rows: 5, in: "a\r\n\r\n", screen: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := NewTerminal(tt.cols, tt.rows, 100)
			term.Write([]byte(tt.in))
			if got := term.Screen(); got != tt.screen {
				t.Errorf("Screen() = %q, want %q", got, tt.screen)
			}
			want := tt.capture
			if want == "" {
				want = tt.screen
			}
			if got := term.Capture(); got != want {
				t.Errorf("Capture() = %q, want %q", got, want)
			}
			// Any split of the input must give the same screen.
			for cut := 1; cut < len(tt.in); cut++ {
				split := NewTerminal(tt.cols, tt.rows, 100)
				split.Write([]byte(tt.in[:cut]))
				split.Write([]byte(tt.in[cut:]))
				if got := split.Screen(); got != tt.screen {
					t.Fatalf("split at %d: Screen() = %q, want %q", cut, got, tt.screen)
				}
			}
		})
	}
}

func TestTerminalReplies(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"ab\x1b[6n", "\x1b[1;3R"},
		{"\x1b[3;4H\x1b[6n", "\x1b[3;4R"},
		{"\x1b[5n", "\x1b[0n"},
		{"\x1b[c", "\x1b[?1;2c"},
		{"\x1b[>c", "\x1b[>0;10;1c"},
		{"\x1b[2;3r\x1b[?6h\x1b[2;1H\x1b[6n", "\x1b[2;1R"},
		{"no query", ""},
	}
	for _, tt := range tests {
		term := NewTerminal(10, 5, 0)
		term.Write([]byte(tt.in))
		if got := string(term.TakeReplies()); got != tt.want {
			t.Errorf("%q: replies %q, want %q", tt.in, got, tt.want)
		}
		if got := term.TakeReplies(); len(got) != 0 {
			t.Errorf("%q: replies not forgotten: %q", tt.in, got)
		}
	}
	// A flood of queries is bounded.
	term := NewTerminal(10, 5, 0)
	term.Write([]byte(strings.Repeat("\x1b[6n", 10000)))
	if n := len(term.TakeReplies()); n > maxReplies {
		t.Errorf("replies grew to %d bytes", n)
	}
}

func TestTerminalScrollbackBounded(t *testing.T) {
	term := NewTerminal(10, 3, 5)
	for i := range 100 {
		term.Write([]byte(strings.Repeat("x", i%7) + "\r\n"))
	}
	lines := strings.Split(term.Capture(), "\n")
	if len(lines) > 5+3 {
		t.Errorf("capture has %d lines, want at most 8", len(lines))
	}
	if term.Scrolled() != 98 {
		t.Errorf("Scrolled() = %d, want 98", term.Scrolled())
	}
}

func TestTerminalAppCursorKeys(t *testing.T) {
	term := NewTerminal(10, 3, 0)
	if term.AppCursorKeys() {
		t.Fatal("application cursor keys on at start")
	}
	term.Write([]byte("\x1b[?1h\x1b="))
	if !term.AppCursorKeys() {
		t.Fatal("DECCKM set was not seen")
	}
	term.Write([]byte("\x1b[?1l"))
	if term.AppCursorKeys() {
		t.Fatal("DECCKM reset was not seen")
	}
}
