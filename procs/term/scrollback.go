package term

// scrollback is a ring of the rendered lines that scrolled off the top of
// the screen, oldest first, holding at most max lines. Slots are reused, so
// a program that prints without end costs no allocations once it is full.
type scrollback struct {
	lines [][]byte
	start int // index of the oldest line once the ring is full
	max   int
}

func (s *scrollback) push(row []rune) {
	if s.max == 0 {
		return
	}
	if len(s.lines) < s.max {
		s.lines = append(s.lines, appendLine(make([]byte, 0, len(row)), row))
		return
	}
	s.lines[s.start] = appendLine(s.lines[s.start][:0], row)
	s.start++
	if s.start == len(s.lines) {
		s.start = 0
	}
}

func (s *scrollback) len() int { return len(s.lines) }

// each calls f on every line, oldest first. f must not keep the slice.
func (s *scrollback) each(f func(line []byte)) {
	for i := range s.lines {
		f(s.lines[(s.start+i)%len(s.lines)])
	}
}

func (s *scrollback) clear() {
	s.lines, s.start = nil, 0
}
