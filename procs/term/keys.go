package term

import (
	"strconv"
	"strings"
)

// keyBytes turns one tmux send-keys argument into the bytes a terminal
// sends: a key name (Enter, C-c, M-x, Up, F5, ...; case does not matter)
// becomes its sequence, anything else is typed literally, as tmux does.
// appCursor selects the cursor-key sequences a program asked for (DECCKM).
func keyBytes(key string, appCursor bool) string {
	if seq, ok := namedKey(key, appCursor); ok {
		return seq
	}
	return key
}

func namedKey(key string, appCursor bool) (string, bool) {
	if len(key) > 2 && (key[:2] == "M-" || key[:2] == "m-") {
		// Meta sends ESC before the key, as xterm's metaSendsEscape does.
		rest := key[2:]
		if seq, ok := namedKey(rest, appCursor); ok {
			return "\x1b" + seq, true
		}
		if len(rest) == 1 {
			return "\x1b" + rest, true
		}
		return "", false
	}
	if len(key) > 2 && (key[:2] == "C-" || key[:2] == "c-") {
		return ctrlKey(key[2:])
	}
	if len(key) == 2 && key[0] == '^' {
		return ctrlKey(key[1:])
	}
	lower := strings.ToLower(key)
	if seq, ok := plainKeys[lower]; ok {
		return seq, true
	}
	if seq, ok := cursorKeys[lower]; ok {
		if appCursor {
			return "\x1bO" + seq, true
		}
		return "\x1b[" + seq, true
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(lower, "f")); err == nil && lower[0] == 'f' && n >= 1 && n <= 12 {
		return functionKeys[n-1], true
	}
	return "", false
}

// ctrlKey maps C-x: letters and @[\]^_? to their control codes, and
// C-Space to NUL.
func ctrlKey(k string) (string, bool) {
	if strings.EqualFold(k, "space") {
		return "\x00", true
	}
	if len(k) != 1 {
		return "", false
	}
	c := k[0]
	switch {
	case c >= 'a' && c <= 'z':
		return string(rune(c - 'a' + 1)), true
	case c >= '@' && c <= '_': // A-Z and @[\]^_
		return string(rune(c - '@')), true
	case c == '?':
		return "\x7f", true
	case c == ' ' || c == '2':
		return "\x00", true
	}
	return "", false
}

var plainKeys = map[string]string{
	"enter":    "\r",
	"escape":   "\x1b",
	"esc":      "\x1b",
	"tab":      "\t",
	"btab":     "\x1b[Z",
	"bspace":   "\x7f",
	"space":    " ",
	"ic":       "\x1b[2~",
	"insert":   "\x1b[2~",
	"dc":       "\x1b[3~",
	"delete":   "\x1b[3~",
	"pageup":   "\x1b[5~",
	"pgup":     "\x1b[5~",
	"ppage":    "\x1b[5~",
	"pagedown": "\x1b[6~",
	"pgdn":     "\x1b[6~",
	"npage":    "\x1b[6~",
}

// cursorKeys send ESC [ x normally and ESC O x in application mode.
var cursorKeys = map[string]string{
	"up":    "A",
	"down":  "B",
	"right": "C",
	"left":  "D",
	"home":  "H",
	"end":   "F",
}

var functionKeys = [12]string{
	"\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS",
	"\x1b[15~", "\x1b[17~", "\x1b[18~", "\x1b[19~",
	"\x1b[20~", "\x1b[21~", "\x1b[23~", "\x1b[24~",
}
