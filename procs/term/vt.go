package term

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Terminal is a small VT/xterm model: it takes a program's output bytes and
// keeps the screen a terminal would show, plus the lines that scrolled off
// its top. It understands what programs use to redraw (CR, LF, BS, TAB,
// cursor movement and positioning, erase in line and display, insert and
// delete of characters and lines, scroll regions, the alternate screen,
// save/restore cursor, insert mode) and drops what does not change the text
// (colours and other SGR attributes, titles and other OSC/DCS strings,
// charset designations). Cursor-position and device-attribute queries are
// answered (see TakeReplies) so that programs which ask do not stall.
//
// It is not safe for concurrent use; Session guards it with a mutex.
type Terminal struct {
	cols, rows int
	main, alt  [][]rune // rows lines of cols cells; blank cells are ' '
	screen     [][]rune // main or alt
	onAlt      bool

	x, y       int
	wrapNext   bool // the last column was written; the next character wraps first
	top, bot   int  // scroll region, inclusive
	autowrap   bool
	insertMode bool
	originMode bool
	appCursor  bool // DECCKM: cursor keys send ESC O x instead of ESC [ x
	saved      [2]savedCursor
	lastRune   rune // for REP

	history  scrollback
	scrolled uint64 // lines ever pushed into history, a cheap change signal

	// Parser state.
	state   parseState
	params  [maxParams]int
	nparams int
	private byte // '?', '>', '<' or '=' right after CSI
	inter   byte // last intermediate byte of a CSI or ESC sequence
	utf8buf [utf8.UTFMax]byte
	utf8n   int // bytes collected of a multi-byte character
	utf8len int // bytes that character needs

	replies []byte
}

type savedCursor struct {
	x, y       int
	originMode bool
}

type parseState uint8

const (
	stGround parseState = iota
	stEscape
	stEscapeInter // ESC followed by intermediates, e.g. ESC ( B
	stCSI
	stString    // OSC, DCS, SOS, PM, APC: skipped until BEL or ST
	stStringEsc // ESC inside a string: ST if '\' follows
)

const (
	maxParams   = 16
	maxParam    = 65535
	maxReplies  = 4096
	wideTail    = rune(-1) // the right half of a double-width character
	tabWidth    = 8
	minTermSize = 1
)

// Bounds on the screen and history, so that no option can make a session
// hold unbounded memory.
const (
	maxCols            = 1000
	maxRows            = 500
	maxScrollbackLines = 100_000
)

// NewTerminal returns a blank terminal of cols×rows that keeps at most
// scrollbackLines lines of history (clamped to sane bounds).
func NewTerminal(cols, rows, scrollbackLines int) *Terminal {
	cols = clamp(cols, minTermSize, maxCols)
	rows = clamp(rows, minTermSize, maxRows)
	t := &Terminal{cols: cols, rows: rows}
	t.history.max = clamp(scrollbackLines, 0, maxScrollbackLines)
	t.main = newGrid(cols, rows)
	t.reset()
	return t
}

func newGrid(cols, rows int) [][]rune {
	cells := make([]rune, cols*rows)
	for i := range cells {
		cells[i] = ' '
	}
	g := make([][]rune, rows)
	for i := range g {
		g[i] = cells[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return g
}

// reset puts the terminal in its power-on state, keeping the history.
func (t *Terminal) reset() {
	t.screen, t.onAlt = t.main, false
	for _, l := range t.main {
		blank(l)
	}
	t.alt = nil
	t.x, t.y, t.wrapNext = 0, 0, false
	t.top, t.bot = 0, t.rows-1
	t.autowrap, t.insertMode, t.originMode, t.appCursor = true, false, false, false
	t.saved = [2]savedCursor{}
	t.state = stGround
	t.utf8n = 0
}

// Size returns the terminal's columns and rows.
func (t *Terminal) Size() (cols, rows int) { return t.cols, t.rows }

// Cursor returns the cursor's column and row, from 0.
func (t *Terminal) Cursor() (x, y int) { return t.x, t.y }

// AppCursorKeys reports whether the program asked for application cursor
// keys (DECCKM), which changes what the arrow keys must send.
func (t *Terminal) AppCursorKeys() bool { return t.appCursor }

// Scrolled returns how many lines have ever scrolled into the history:
// together with Screen it tells whether the output changed.
func (t *Terminal) Scrolled() uint64 { return t.scrolled }

// TakeReplies returns the answers to the program's queries (cursor
// position, device status and attributes) that must be written back to it,
// and forgets them.
func (t *Terminal) TakeReplies() []byte {
	r := t.replies
	t.replies = nil
	return r
}

// Screen returns the visible screen as text: one line per row, trailing
// blanks and trailing empty lines dropped.
func (t *Terminal) Screen() string {
	var b strings.Builder
	t.appendLines(&b, t.screen)
	return trimTrailingNewlines(b.String())
}

// Capture returns the history followed by the visible screen, as text, like
// `tmux capture-pane -S -`: what scrolled off the top is kept, what a
// program erased or overwrote is not.
func (t *Terminal) Capture() string {
	var b strings.Builder
	t.history.each(func(line []byte) {
		b.Write(line)
		b.WriteByte('\n')
	})
	t.appendLines(&b, t.screen)
	return trimTrailingNewlines(b.String())
}

func (t *Terminal) appendLines(b *strings.Builder, lines [][]rune) {
	var buf []byte
	for _, l := range lines {
		buf = appendLine(buf[:0], l)
		b.Write(buf)
		b.WriteByte('\n')
	}
}

// appendLine renders one row without its trailing blanks.
func appendLine(dst []byte, l []rune) []byte {
	end := len(l)
	for end > 0 && (l[end-1] == ' ' || l[end-1] == wideTail) {
		end--
	}
	for _, r := range l[:end] {
		switch {
		case r == wideTail:
		case r < utf8.RuneSelf:
			dst = append(dst, byte(r))
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

func trimTrailingNewlines(s string) string {
	return strings.TrimRight(s, "\n")
}

// Write feeds program output to the terminal. It never fails; sequences
// may be split across calls at any byte.
func (t *Terminal) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		b := p[i]
		if t.state == stGround && t.utf8n == 0 && b >= 0x20 && b < 0x7f {
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			t.printASCII(p[i:j])
			i = j
			continue
		}
		t.step(b)
		i++
	}
	return len(p), nil
}

// step handles one byte outside the printable-ASCII fast path.
func (t *Terminal) step(b byte) {
	if t.utf8n > 0 {
		if b&0xC0 == 0x80 {
			t.utf8buf[t.utf8n] = b
			t.utf8n++
			if t.utf8n == t.utf8len {
				r, _ := utf8.DecodeRune(t.utf8buf[:t.utf8n])
				t.utf8n = 0
				t.printRune(r)
			}
			return
		}
		// A broken sequence: show it as one replacement character, then
		// handle this byte afresh.
		t.utf8n = 0
		t.printRune(utf8.RuneError)
	}
	switch t.state {
	case stGround:
		switch {
		case b < 0x20:
			t.control(b)
		case b < 0x7f:
			t.printRune(rune(b))
		case b == 0x7f:
			// DEL is ignored by terminals.
		default:
			t.startUTF8(b)
		}
	case stEscape:
		t.escape(b)
	case stEscapeInter:
		switch {
		case b < 0x20:
			t.control(b)
		case b < 0x30:
			t.inter = b
		default:
			// Charset designations and the like: nothing to show.
			t.state = stGround
		}
	case stCSI:
		t.csiByte(b)
	case stString:
		switch b {
		case 0x07:
			t.state = stGround
		case 0x1b:
			t.state = stStringEsc
		case 0x18, 0x1a:
			t.state = stGround
		}
	case stStringEsc:
		if b == '\\' {
			t.state = stGround
			return
		}
		t.state = stEscape
		t.escape(b)
	}
}

func (t *Terminal) startUTF8(b byte) {
	var n int
	switch {
	case b&0xE0 == 0xC0:
		n = 2
	case b&0xF0 == 0xE0:
		n = 3
	case b&0xF8 == 0xF0:
		n = 4
	default:
		t.printRune(utf8.RuneError)
		return
	}
	t.utf8buf[0] = b
	t.utf8n, t.utf8len = 1, n
}

// control executes a C0 control character.
func (t *Terminal) control(b byte) {
	switch b {
	case 0x08: // BS
		t.wrapNext = false
		if t.x > 0 {
			t.x--
		}
	case 0x09: // HT
		t.wrapNext = false
		t.x = min((t.x/tabWidth+1)*tabWidth, t.cols-1)
	case 0x0a, 0x0b, 0x0c: // LF, VT, FF
		t.lineFeed()
	case 0x0d: // CR
		t.x, t.wrapNext = 0, false
	case 0x18, 0x1a: // CAN, SUB abort a sequence
		t.state = stGround
	case 0x1b:
		t.state = stEscape
		t.inter = 0
	}
}

func (t *Terminal) escape(b byte) {
	t.state = stGround
	switch {
	case b < 0x20:
		t.control(b)
		return
	case b < 0x30:
		t.inter = b
		t.state = stEscapeInter
		return
	}
	switch b {
	case '[':
		t.state = stCSI
		t.nparams, t.params[0], t.private, t.inter = 0, 0, 0, 0
	case ']', 'P', 'X', '^', '_':
		t.state = stString
	case '7':
		t.saveCursor()
	case '8':
		t.restoreCursor()
	case 'D':
		t.lineFeed()
	case 'E':
		t.x = 0
		t.lineFeed()
	case 'M':
		t.reverseIndex()
	case 'c':
		t.reset()
	}
}

func (t *Terminal) csiByte(b byte) {
	switch {
	case b >= '0' && b <= '9':
		if t.nparams == 0 {
			t.nparams = 1
		}
		if p := &t.params[t.nparams-1]; *p < maxParam {
			*p = *p*10 + int(b-'0')
		}
	case b == ';' || b == ':':
		if t.nparams == 0 {
			t.nparams = 1
		}
		if t.nparams < maxParams {
			t.params[t.nparams] = 0
			t.nparams++
		}
	case b >= 0x3c && b <= 0x3f:
		if t.nparams == 0 && t.private == 0 {
			t.private = b
		}
	case b >= 0x20 && b < 0x30:
		t.inter = b
	case b >= 0x40 && b < 0x7f:
		t.state = stGround
		t.dispatchCSI(b)
	case b < 0x20:
		t.control(b)
	}
}

// param returns CSI parameter i, or def when it is missing or zero.
func (t *Terminal) param(i, def int) int {
	if i >= t.nparams || t.params[i] == 0 {
		return def
	}
	return t.params[i]
}

func (t *Terminal) dispatchCSI(final byte) {
	if t.inter != 0 {
		return // DECSCUSR, DECSTR and friends: nothing to show
	}
	if t.private != 0 {
		switch {
		case t.private == '?' && (final == 'h' || final == 'l'):
			for i := 0; i < max(t.nparams, 1); i++ {
				t.setPrivateMode(t.params[i], final == 'h')
			}
		case t.private == '>' && final == 'c':
			t.reply("\x1b[>0;10;1c")
		case t.private == '?' && final == 'J':
			t.eraseDisplay(t.param(0, 0))
		case t.private == '?' && final == 'K':
			t.eraseLine(t.param(0, 0))
		}
		return
	}
	n := t.param(0, 1)
	switch final {
	case '@':
		t.insertChars(n)
	case 'A':
		t.cursorUp(n)
	case 'B', 'e':
		t.cursorDown(n)
	case 'C', 'a':
		t.moveTo(t.x+n, t.y)
	case 'D':
		t.moveTo(t.x-n, t.y)
	case 'E':
		t.cursorDown(n)
		t.x = 0
	case 'F':
		t.cursorUp(n)
		t.x = 0
	case 'G', '`':
		t.moveTo(n-1, t.y)
	case 'H', 'f':
		t.cursorPosition(t.param(0, 1), t.param(1, 1))
	case 'd':
		if t.originMode {
			t.moveTo(t.x, min(t.top+n-1, t.bot))
		} else {
			t.moveTo(t.x, n-1)
		}
	case 'J':
		t.eraseDisplay(t.param(0, 0))
	case 'K':
		t.eraseLine(t.param(0, 0))
	case 'L':
		t.insertLines(n)
	case 'M':
		t.deleteLines(n)
	case 'P':
		t.deleteChars(n)
	case 'X':
		t.wrapNext = false
		l := t.screen[t.y]
		blank(l[t.x:min(t.x+n, t.cols)])
		t.fixWide(l, t.x)
		t.fixWide(l, min(t.x+n, t.cols))
	case 'S':
		t.scrollUp(t.top, t.bot, n)
	case 'T':
		if t.nparams <= 1 {
			t.scrollDown(t.top, t.bot, n)
		}
	case 'b':
		if t.lastRune != 0 {
			for range min(n, t.cols*t.rows) {
				t.printRune(t.lastRune)
			}
		}
	case 'c':
		if t.param(0, 0) == 0 {
			t.reply("\x1b[?1;2c")
		}
	case 'n':
		switch t.param(0, 0) {
		case 5:
			t.reply("\x1b[0n")
		case 6:
			y := t.y
			if t.originMode {
				y -= t.top
			}
			t.reply("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(t.x+1) + "R")
		}
	case 'h', 'l':
		for i := 0; i < max(t.nparams, 1); i++ {
			if t.params[i] == 4 {
				t.insertMode = final == 'h'
			}
		}
	case 'r':
		top, bot := t.param(0, 1)-1, t.param(1, t.rows)-1
		bot = min(bot, t.rows-1)
		if top < bot {
			t.top, t.bot = top, bot
			t.cursorPosition(1, 1)
		}
	case 's':
		t.saveCursor()
	case 'u':
		t.restoreCursor()
	}
}

func (t *Terminal) setPrivateMode(mode int, on bool) {
	switch mode {
	case 1:
		t.appCursor = on
	case 6:
		t.originMode = on
		t.cursorPosition(1, 1)
	case 7:
		t.autowrap = on
		if !on {
			t.wrapNext = false
		}
	case 47, 1047:
		t.switchScreen(on, mode == 1047 && !on)
	case 1048:
		if on {
			t.saveCursor()
		} else {
			t.restoreCursor()
		}
	case 1049:
		if on {
			t.saveCursor()
			t.switchScreen(true, false)
			for _, l := range t.screen {
				blank(l)
			}
		} else {
			t.switchScreen(false, false)
			t.restoreCursor()
		}
	}
}

// switchScreen moves to the alternate screen or back to the main one.
// clearAlt clears the alternate screen on the way out (mode 1047).
func (t *Terminal) switchScreen(toAlt, clearAlt bool) {
	if toAlt == t.onAlt {
		return
	}
	if toAlt {
		if t.alt == nil {
			t.alt = newGrid(t.cols, t.rows)
		}
		t.screen = t.alt
	} else {
		if clearAlt {
			for _, l := range t.alt {
				blank(l)
			}
		}
		t.screen = t.main
	}
	t.onAlt = toAlt
	t.wrapNext = false
}

func (t *Terminal) reply(s string) {
	if len(t.replies)+len(s) <= maxReplies {
		t.replies = append(t.replies, s...)
	}
}

func (t *Terminal) saveCursor() {
	t.saved[t.screenIndex()] = savedCursor{x: t.x, y: t.y, originMode: t.originMode}
}

func (t *Terminal) restoreCursor() {
	s := t.saved[t.screenIndex()]
	t.originMode = s.originMode
	t.moveTo(s.x, s.y)
}

func (t *Terminal) screenIndex() int {
	if t.onAlt {
		return 1
	}
	return 0
}

// moveTo puts the cursor at (x, y), clamped to the screen.
func (t *Terminal) moveTo(x, y int) {
	t.x = clamp(x, 0, t.cols-1)
	t.y = clamp(y, 0, t.rows-1)
	t.wrapNext = false
}

// cursorPosition handles CUP's 1-based row and column, relative to the
// scroll region in origin mode.
func (t *Terminal) cursorPosition(row, col int) {
	if t.originMode {
		t.moveTo(col-1, min(t.top+row-1, t.bot))
		return
	}
	t.moveTo(col-1, row-1)
}

// cursorUp and cursorDown stop at the scroll region's edge when the cursor
// starts inside it, as VT terminals do.
func (t *Terminal) cursorUp(n int) {
	limit := 0
	if t.y >= t.top {
		limit = t.top
	}
	t.moveTo(t.x, max(t.y-n, limit))
}

func (t *Terminal) cursorDown(n int) {
	limit := t.rows - 1
	if t.y <= t.bot {
		limit = t.bot
	}
	t.moveTo(t.x, min(t.y+n, limit))
}

func (t *Terminal) lineFeed() {
	t.wrapNext = false
	switch {
	case t.y == t.bot:
		t.scrollUp(t.top, t.bot, 1)
	case t.y < t.rows-1:
		t.y++
	}
}

func (t *Terminal) reverseIndex() {
	t.wrapNext = false
	switch {
	case t.y == t.top:
		t.scrollDown(t.top, t.bot, 1)
	case t.y > 0:
		t.y--
	}
}

// scrollUp moves rows top..bot up by n; rows leaving the top of a
// full-height region of the main screen go into the history.
func (t *Terminal) scrollUp(top, bot, n int) {
	n = min(n, bot-top+1)
	lines := t.screen[top : bot+1]
	toHistory := top == 0 && !t.onAlt
	for i := range n {
		if toHistory {
			t.history.push(lines[i])
			t.scrolled++
		}
		blank(lines[i])
	}
	rotateLeft(lines, n)
}

// scrollDown moves rows top..bot down by n, blank rows entering at top.
func (t *Terminal) scrollDown(top, bot, n int) {
	n = min(n, bot-top+1)
	lines := t.screen[top : bot+1]
	rotateLeft(lines, len(lines)-n)
	for i := range n {
		blank(lines[i])
	}
}

func (t *Terminal) insertLines(n int) {
	if t.y < t.top || t.y > t.bot {
		return
	}
	t.scrollDown(t.y, t.bot, n)
	t.x, t.wrapNext = 0, false
}

func (t *Terminal) deleteLines(n int) {
	if t.y < t.top || t.y > t.bot {
		return
	}
	n = min(n, t.bot-t.y+1)
	lines := t.screen[t.y : t.bot+1]
	for i := range n {
		blank(lines[i])
	}
	rotateLeft(lines, n)
	t.x, t.wrapNext = 0, false
}

func (t *Terminal) insertChars(n int) {
	t.wrapNext = false
	l := t.screen[t.y]
	n = min(n, t.cols-t.x)
	t.fixWide(l, t.x)
	copy(l[t.x+n:], l[t.x:])
	blank(l[t.x : t.x+n])
	t.fixWide(l, t.cols)
}

func (t *Terminal) deleteChars(n int) {
	t.wrapNext = false
	l := t.screen[t.y]
	n = min(n, t.cols-t.x)
	t.fixWide(l, t.x)
	t.fixWide(l, t.x+n)
	copy(l[t.x:], l[t.x+n:])
	blank(l[t.cols-n:])
}

func (t *Terminal) eraseLine(mode int) {
	l := t.screen[t.y]
	switch mode {
	case 0:
		t.fixWide(l, t.x)
		blank(l[t.x:])
	case 1:
		t.fixWide(l, t.x+1)
		blank(l[:t.x+1])
	case 2:
		blank(l)
	}
	t.wrapNext = false
}

func (t *Terminal) eraseDisplay(mode int) {
	switch mode {
	case 0:
		t.eraseLine(0)
		for _, l := range t.screen[t.y+1:] {
			blank(l)
		}
	case 1:
		t.eraseLine(1)
		for _, l := range t.screen[:t.y] {
			blank(l)
		}
	case 2:
		for _, l := range t.screen {
			blank(l)
		}
	case 3:
		t.history.clear()
	}
}

// printASCII writes a run of printable ASCII: the hot path.
func (t *Terminal) printASCII(s []byte) {
	if t.insertMode {
		for _, b := range s {
			t.printRune(rune(b))
		}
		return
	}
	t.lastRune = rune(s[len(s)-1])
	for len(s) > 0 {
		if t.wrapNext {
			t.wrap()
		}
		l := t.screen[t.y]
		n := min(len(s), t.cols-t.x)
		t.fixWide(l, t.x)
		t.fixWide(l, t.x+n)
		dst := l[t.x : t.x+n]
		for i := range dst {
			dst[i] = rune(s[i])
		}
		t.x += n
		s = s[n:]
		if t.x >= t.cols {
			t.x, t.wrapNext = t.cols-1, true
		}
	}
}

// wrap handles a character written after the last column.
func (t *Terminal) wrap() {
	t.wrapNext = false
	if t.autowrap {
		t.x = 0
		t.lineFeed()
	}
}

func (t *Terminal) printRune(r rune) {
	w := runeWidth(r)
	if w == 0 {
		// Combining marks and zero-width characters have no cell of their
		// own; a cell holds one rune, so they are dropped.
		return
	}
	if w > t.cols {
		w = 1
		r = utf8.RuneError
	}
	t.lastRune = r
	if t.wrapNext {
		t.wrap()
	}
	if w == 2 && t.x == t.cols-1 {
		// A wide character does not fit in the last column: it wraps.
		if t.autowrap {
			t.screen[t.y][t.x] = ' '
			t.x = 0
			t.lineFeed()
		} else {
			t.x = max(t.cols-2, 0)
		}
	}
	l := t.screen[t.y]
	if t.insertMode {
		t.fixWide(l, t.x)
		copy(l[t.x+w:], l[t.x:])
		t.fixWide(l, t.cols)
	}
	t.fixWide(l, t.x)
	t.fixWide(l, t.x+w)
	l[t.x] = r
	if w == 2 {
		l[t.x+1] = wideTail
	}
	t.x += w
	if t.x >= t.cols {
		t.x, t.wrapNext = t.cols-1, true
	}
}

// fixWide keeps double-width characters whole when a change begins or ends
// at column x: a half left behind becomes a blank.
func (t *Terminal) fixWide(l []rune, x int) {
	if x <= 0 || x >= len(l) {
		if x == len(l) && x > 0 && runeWidthCell(l[x-1]) == 2 {
			l[x-1] = ' ' // a head whose tail was shifted out
		}
		return
	}
	if l[x] == wideTail {
		l[x-1] = ' '
		l[x] = ' '
	}
}

// runeWidthCell reports 2 for the head of a double-width character stored
// in a cell, else 1.
func runeWidthCell(r rune) int {
	if r != wideTail && r >= 0x1100 && runeWidth(r) == 2 {
		return 2
	}
	return 1
}

func blank(l []rune) {
	for i := range l {
		l[i] = ' '
	}
}

// rotateLeft moves lines[n:] to the front, lines[:n] to the back, reusing
// the row buffers.
func rotateLeft(lines [][]rune, n int) {
	if n <= 0 || n >= len(lines) {
		return
	}
	if n == 1 { // every line feed at the bottom: keep it cheap
		first := lines[0]
		copy(lines, lines[1:])
		lines[len(lines)-1] = first
		return
	}
	tmp := make([][]rune, n)
	copy(tmp, lines[:n])
	copy(lines, lines[n:])
	copy(lines[len(lines)-n:], tmp)
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
