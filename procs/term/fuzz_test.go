package term

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTerminal feeds arbitrary output, split at an arbitrary point, to
// terminals of small arbitrary sizes: the model never panics, keeps the
// screen and history within their bounds, keeps the cursor on the screen,
// and reads the same however the bytes arrive.
func FuzzTerminal(f *testing.F) {
	seeds := []string{
		"a\r\nb\x1b[2J\x1b[H\x1b[?1049hx\x1b[?1049l",
		"\x1b[5;10r\x1b[?6h\x1b[99;99H\x1b[L\x1b[M\x1b[3@\x1b[2P\x1b[4X",
		"日本語\x1b[1;2Hx\x1b[4h本\x1b[4l",
		"\x1b]0;title\x07\x1bP+q\x1b\\\x1b_apc\x1b\\\x1b[6n\x1b[c",
		"\xe6\x97\xff\x80\x1b[\x18\x1b[38:2:1:2:3m",
		"\x1b7\x1b[s\x1b8\x1b[u\x1bM\x1bD\x1bE\x1bc\x1b[?7l" + strings.Repeat("x", 30),
		"\x1b[2;3r\x1b[5S\x1b[5T\x1b[65535b\x1b[3J",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint8(7), uint8(4), uint8(3), uint16(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, cols, rows, history uint8, cut uint16) {
		c, r, h := int(cols%50)+1, int(rows%20)+1, int(history%10)
		whole := NewTerminal(c, r, h)
		whole.Write(data)
		check(t, whole, c, r, h)

		split := NewTerminal(c, r, h)
		at := int(cut) % (len(data) + 1)
		split.Write(data[:at])
		split.Write(data[at:])
		if whole.Screen() != split.Screen() || whole.Capture() != split.Capture() {
			t.Fatalf("split at %d reads differently:\n%q\n%q", at, whole.Screen(), split.Screen())
		}
	})
}

func check(t *testing.T, term *Terminal, cols, rows, history int) {
	t.Helper()
	screen := term.Screen()
	lines := strings.Split(screen, "\n")
	if len(lines) > rows {
		t.Fatalf("%d screen lines on a %d-row terminal", len(lines), rows)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > cols {
			t.Fatalf("line of %d runes on a %d-column terminal: %q", n, cols, l)
		}
	}
	if n := strings.Count(term.Capture(), "\n") + 1; n > rows+history {
		t.Fatalf("capture of %d lines, bound %d", n, rows+history)
	}
	if x, y := term.Cursor(); x < 0 || x >= cols || y < 0 || y >= rows {
		t.Fatalf("cursor at %d,%d on %dx%d", x, y, cols, rows)
	}
	if len(term.TakeReplies()) > maxReplies {
		t.Fatal("replies unbounded")
	}
}

// FuzzTmuxSplitting checks the tool body and key splitters never panic and
// never invent text: every command is a piece of the body.
func FuzzTmuxSplitting(f *testing.F) {
	for _, s := range []string{
		"send-keys 1 'a; b' Enter; inspect-pane 1",
		`send-keys 1 "say \"hi\"" don\'t Enter`,
		"new-session while :; do date; done\nwait 1 30 2",
		"'unclosed\n;;\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, c := range splitCommands(body) {
			if c == "" || !strings.Contains(body, c) {
				t.Fatalf("command %q is not a piece of %q", c, body)
			}
			_, args := cutSpace(c)
			joinLiterals(splitKeys(args))
		}
	})
}
