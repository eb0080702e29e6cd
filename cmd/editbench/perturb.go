package main

import (
	"fmt"
	"strings"
)

// base is what a case is made from: a corpus file and a ground-truth edit.
type base struct {
	path  string
	lines []string
	final bool
	e     anEdit
	r     *rng
}

// A perturbation turns a clean case into one that mimics a way models (or
// files) go wrong (editbench.md §3.3), with the outcome a correct engine
// must reach.
type perturbation struct {
	id      string
	about   string
	formats []string // nil: the text formats
	make    func(b base, format string) (testCase, bool)
}

func perturbations() []perturbation {
	return []perturbation{
		{"P0", "clean", allFormats(), func(b base, f string) (testCase, bool) { return clean(b, f), true }},
		{"W1", "indentation drift: ORIGINAL and UPDATED one tab deeper", nil, func(b base, f string) (testCase, bool) {
			orig := mapNonBlank(b.e.orig, func(l string) string { return "\t" + l })
			return withLines(b, f, orig, mapNonBlank(b.e.upd, func(l string) string { return "\t" + l })), recoverable(b, orig)
		}},
		{"W2", "tabs written as 4 spaces", nil, func(b base, f string) (testCase, bool) {
			orig := mapNonBlank(b.e.orig, tabsToSpaces)
			if !strings.Contains(strings.Join(b.e.orig, "\n"), "\t") {
				return testCase{}, false
			}
			return withLines(b, f, orig, mapNonBlank(b.e.upd, tabsToSpaces)), recoverable(b, orig)
		}},
		{"W3", "trailing whitespace added to ORIGINAL", nil, func(b base, f string) (testCase, bool) {
			orig := mapNonBlank(b.e.orig, func(l string) string { return l + "  " })
			return withLines(b, f, orig, b.e.upd), recoverable(b, orig)
		}},
		{"W5", "CRLF file, LF patch", allFormats(), func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			c.disk, c.target = crlf(c.disk), crlf(c.target)
			c.region = regionOf(c.disk, b.e)
			return c, true
		}},
		{"W6", "no final newline", allFormats(), func(b base, f string) (testCase, bool) {
			b.final = false
			return clean(b, f), true
		}},
		{"W7", "byte-order mark", allFormats(), func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			c.disk, c.target = "\ufeff"+c.disk, "\ufeff"+c.target
			c.region = [2]int{c.region[0] + 3, c.region[1] + 3}
			return c, true
		}},
		{"D1", "ORIGINAL occurs twice (a copy appended)", nil, func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			dup := strings.Join(b.e.orig, "\n") + "\n"
			if !b.final {
				dup = "\n" + dup
			}
			c.disk += dup
			c.target += dup
			c.expect = expectReject
			if f == fmtV4A && b.e.scope != "" {
				c.expect = expectEither // the @@ scope may pick the first copy
			}
			return c, true
		}},
		{"D2", "ORIGINAL's last line cut mid-line", []string{fmtConflict, fmtSearchReplace}, func(b base, f string) (testCase, bool) {
			last := b.e.orig[len(b.e.orig)-1]
			if len(strings.TrimSpace(last)) < 10 {
				return testCase{}, false
			}
			orig := append(append([]string{}, b.e.orig[:len(b.e.orig)-1]...), last[:len(last)/2])
			if countWhole(b.lines, orig) != 0 {
				return testCase{}, false
			}
			c := withLines(b, f, orig, b.e.upd)
			c.expect = expectReject
			return c, true
		}},
		{"S4", "already applied", allFormats(), func(b base, f string) (testCase, bool) {
			edited := b.e.apply(b.lines)
			if countWhole(edited, b.e.orig) != 0 {
				return testCase{}, false // a pure insertion: ORIGINAL is still there
			}
			c := clean(b, f)
			c.disk = c.target
			c.expect = expectEither // refuse, or succeed changing nothing
			return c, true
		}},
		{"H1", "one ORIGINAL line hallucinated", nil, func(b base, f string) (testCase, bool) {
			j := b.r.intn(len(b.e.orig))
			l := b.e.orig[j]
			if strings.TrimSpace(l) == "" {
				return testCase{}, false
			}
			orig := append([]string{}, b.e.orig...)
			orig[j] = leading(l) + "hallucinated(" + fmt.Sprint(b.r.intn(1000)) + ")"
			c := withLines(b, f, orig, b.e.upd)
			c.expect = expectReject
			return c, true
		}},
		{"E1", "placeholders for context in both", []string{fmtConflict, fmtSearchReplace}, func(b base, f string) (testCase, bool) {
			if b.e.ctx < 2 {
				return testCase{}, false
			}
			ph := leading(b.e.orig[1]) + "// ..."
			orig := append([]string{b.e.orig[0], ph}, b.e.orig[b.e.ctx:]...)
			upd := append([]string{b.e.upd[0], ph}, b.e.upd[b.e.ctx:]...)
			c := withLines(b, f, orig, upd)
			c.expect = expectEither // pieces that are not unique are refused
			return c, true
		}},
		{"E2", "placeholder only in UPDATED (lazy deletion)", []string{fmtConflict, fmtSearchReplace}, func(b base, f string) (testCase, bool) {
			upd := append(append([]string{}, b.e.upd[:len(b.e.upd)-b.e.ctx]...), leading(b.e.upd[len(b.e.upd)-1])+"// ... existing code ...")
			c := withLines(b, f, b.e.orig, upd)
			c.expect = expectReject
			return c, true
		}},
		{"O1", "two hunks out of order", []string{fmtConflict}, func(b base, f string) (testCase, bool) {
			e2, ok := secondEdit(b)
			if !ok {
				return testCase{}, false
			}
			c := clean(b, f)
			c.reply = "```patch " + b.path + "\n" + conflictHunk(e2.orig, e2.upd) + "\n" + conflictHunk(b.e.orig, b.e.upd) + "\n```\n"
			// Line numbers are the original file's: apply the later edit first.
			if e2.first > b.e.first {
				c.target = joinFile(b.e.apply(e2.apply(b.lines)), b.final)
			} else {
				c.target = joinFile(e2.apply(b.e.apply(b.lines)), b.final)
			}
			c.region = [2]int{0, len(c.disk)}
			return c, true
		}},
		{"O3", "overlapping hunks", []string{fmtConflict}, func(b base, f string) (testCase, bool) {
			end := b.e.first + b.e.n
			if end+1 >= len(b.lines) {
				return testCase{}, false
			}
			orig2 := b.lines[end-1 : end+1]
			upd2 := []string{orig2[0], orig2[1] + " // overlap"}
			c := clean(b, f)
			c.reply = "```patch " + b.path + "\n" + conflictHunk(b.e.orig, b.e.upd) + "\n" + conflictHunk(orig2, upd2) + "\n```\n"
			c.expect = expectReject
			return c, true
		}},
		{"S1", "stale: lines inserted elsewhere since the view", []string{fmtAnchored}, func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			if b.e.first < 8 {
				return testCase{}, false
			}
			ins := "// inserted since the view\n// and another line\n"
			c.disk = ins + c.disk
			c.target = ins + c.target
			c.region = [2]int{c.region[0] + len(ins), c.region[1] + len(ins)}
			c.trueLine += 2
			return c, true
		}},
		{"S2", "stale: an edited line changed since the view", []string{fmtAnchored}, func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			lines := append([]string{}, b.lines...)
			lines[b.e.first+b.e.ctx] += " // changed since the view"
			c.disk = joinFile(lines, b.final)
			c.expect = expectReject
			return c, true
		}},
		{"A1", "an unknown anchor", []string{fmtAnchored}, func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			c.reply = "```patch_anchored " + b.path + "\n[{\"anchor\": \"zz00zz\", \"op\": \"delete\"}]\n```\n"
			c.expect = expectReject
			return c, true
		}},
		{"M1", "marker noise", []string{fmtConflict}, func(b base, f string) (testCase, bool) {
			c := clean(b, f)
			c.reply = "```patch " + b.path + "\n<<<<<<<< ORIGINAL  \n" + strings.Join(b.e.orig, "\n") + "\n======= \n" + strings.Join(b.e.upd, "\n") + "\n>>>>>>>UPDATED\n```\n"
			return c, true
		}},
	}
}

// clean is the unperturbed case.
func clean(b base, format string) testCase {
	disk := joinFile(b.lines, b.final)
	return testCase{
		format:   format,
		expect:   expectApply,
		path:     b.path,
		disk:     disk,
		reply:    b.e.render(format, b.path, b.lines),
		target:   joinFile(b.e.apply(b.lines), b.final),
		region:   regionOf(disk, b.e),
		trueLine: b.e.first + 1,
		lineText: b.lines[b.e.first],
	}
}

// recoverable reports whether a perturbed ORIGINAL still means only the
// true place: if it stands exactly somewhere in the file, that place is
// what it says, and expecting the true place would be a wrong label.
func recoverable(b base, orig []string) bool { return countWhole(b.lines, orig) == 0 }

// withLines is the clean case with the request's ORIGINAL and UPDATED
// lines replaced; the target stays the clean one.
func withLines(b base, format string, orig, upd []string) testCase {
	c := clean(b, format)
	e := b.e
	e.orig, e.upd = orig, upd
	c.reply = e.render(format, b.path, b.lines)
	return c
}

// secondEdit draws an edit that neither overlaps nor touches b's.
func secondEdit(b base) (anEdit, bool) {
	for range 20 {
		e2, ok := genEdit(b.r, b.lines)
		if !ok {
			return anEdit{}, false
		}
		if e2.first+e2.n+1 < b.e.first || b.e.first+b.e.n+1 < e2.first {
			return e2, true
		}
	}
	return anEdit{}, false
}

// regionOf returns the byte range of the edit's lines in disk.
func regionOf(disk string, e anEdit) [2]int {
	start := 0
	for range e.first {
		start += strings.IndexByte(disk[start:], '\n') + 1
	}
	end := start
	for range e.n {
		i := strings.IndexByte(disk[end:], '\n')
		if i < 0 {
			return [2]int{start, len(disk)}
		}
		end += i + 1
	}
	return [2]int{start, end}
}

func mapNonBlank(lines []string, f func(string) string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			out[i] = l
		} else {
			out[i] = f(l)
		}
	}
	return out
}

func tabsToSpaces(l string) string {
	ind := leading(l)
	return strings.ReplaceAll(ind, "\t", "    ") + l[len(ind):]
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
