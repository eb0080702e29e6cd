package diagnose

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Python tracebacks and pytest reports are read by hand: their message
// comes after all the frames, and belongs on the deepest frame inside the
// workspace, not on the library code that raised.
var (
	pyTraceback = regexp.MustCompile(`^\s*Traceback \(most recent call last\):`)
	pyFrame     = regexp.MustCompile(`^\s*File "(.+)", line (\d+)(?:, in (.+))?$`)
	pyException = regexp.MustCompile(`^[A-Za-z_][\w.]*(?::|$)`)

	pytestHeader   = regexp.MustCompile(`^_{3,} (.+?) _{3,}$`)
	pytestSection  = regexp.MustCompile(`^={3,}.*={3,}$`)
	pytestLocation = regexp.MustCompile(`^(\S+\.py):(\d+): ?(.*)$`)
	pytestError    = regexp.MustCompile(`^E(?: |$)`)
	pytestSummary  = regexp.MustCompile(`^(FAILED|ERROR) (\S+?\.py)(?:::(\S+))?(?: - (.*))?$`)
)

type pyLocation struct {
	file string
	line int
}

// deepest returns the last of locs that is a workspace file, and whether
// it is the last of all (the frame that raised).
func deepest(locs []pyLocation, r *resolver) (Diagnostic, bool, bool) {
	for i := len(locs) - 1; i >= 0; i-- {
		if path, ok := r.file(locs[i].file, ""); ok {
			return Diagnostic{Path: path, Line: locs[i].line, Severity: Error}, i == len(locs)-1, true
		}
	}
	return Diagnostic{}, false, false
}

// raisedIn says where an exception came from when that is outside the
// workspace.
func raisedIn(innermost bool, locs []pyLocation) string {
	if innermost || len(locs) == 0 {
		return ""
	}
	last := locs[len(locs)-1]
	return "\n(raised in " + last.file + ":" + strconv.Itoa(last.line) + ")"
}

// scanPythonTraceback places each traceback's exception line on its
// deepest workspace frame. A SyntaxError has frames without the
// "Traceback" header, so a frame line alone starts a traceback.
func scanPythonTraceback(lines []string, r *resolver) []Diagnostic {
	var diags []Diagnostic
	var frames []pyLocation
	for _, line := range lines {
		if pyTraceback.MatchString(line) {
			frames = frames[:0]
			continue
		}
		if m := pyFrame.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			frames = append(frames, pyLocation{file: m[1], line: n})
			continue
		}
		if len(frames) == 0 || line == "" || line[0] == ' ' || line[0] == '\t' {
			continue // source and caret lines of a frame
		}
		if pyException.MatchString(line) {
			if d, innermost, ok := deepest(frames, r); ok {
				d.Message = strings.TrimSpace(line) + raisedIn(innermost, frames)
				diags = append(diags, d)
			}
		}
		frames = frames[:0]
	}
	return diags
}

// A pytestFailure is one "____ test_name ____" section of a pytest report.
type pytestFailure struct {
	name      string
	locations []pyLocation
	errors    []string // the "E   " lines, without the E
}

// scanPytest reads pytest's failure sections (long or short tracebacks)
// and, for failures without one, its summary lines.
func scanPytest(lines []string, r *resolver) []Diagnostic {
	var diags []Diagnostic
	covered := map[string]bool{} // failure names already placed
	var cur *pytestFailure
	finish := func() {
		if cur == nil {
			return
		}
		if d, innermost, ok := deepest(cur.locations, r); ok {
			text := strings.Join(dedent(cur.errors), "\n")
			d.Message = withTest(cur.name, text) + raisedIn(innermost, cur.locations)
			diags = append(diags, d)
			covered[cur.name] = true
		}
		cur = nil
	}
	for _, line := range lines {
		switch {
		case pytestHeader.MatchString(line):
			finish()
			cur = &pytestFailure{name: pytestHeader.FindStringSubmatch(line)[1]}
		case pytestSection.MatchString(line):
			finish()
		case pytestError.MatchString(line):
			if cur != nil {
				cur.errors = append(cur.errors, line[1:])
			}
		case pytestLocation.MatchString(line):
			m := pytestLocation.FindStringSubmatch(line)
			n, _ := strconv.Atoi(m[2])
			if cur != nil {
				cur.locations = append(cur.locations, pyLocation{file: m[1], line: n})
			} else if m[3] != "" {
				// --tb=line: "/abs/tests/test_a.py:8: assert 2 == 3"
				if path, ok := r.file(m[1], ""); ok {
					diags = append(diags, Diagnostic{Path: path, Line: n, Severity: Error, Message: m[3]})
				}
			}
		case pytestSummary.MatchString(line):
			finish()
			if d, ok := pytestSummaryDiagnostic(pytestSummary.FindStringSubmatch(line), covered, r); ok {
				diags = append(diags, d)
			}
		}
	}
	finish()
	return diags
}

// pytestSummaryDiagnostic places a "FAILED tests/a.py::test_x - message"
// line whose failure had no section (pytest -q --tb=no) on the test's def
// line, or on the file for a collection ERROR.
func pytestSummaryDiagnostic(m []string, covered map[string]bool, r *resolver) (Diagnostic, bool) {
	id := strings.ReplaceAll(m[3], "::", ".")
	if covered[id] || (m[1] == "ERROR" && covered["ERROR collecting "+m[2]]) {
		return Diagnostic{}, false
	}
	// A failure section's name is the test's name without its class
	// ("test_x" for tests/a.py::TestA::test_x in older pytests).
	if i := strings.LastIndexByte(id, '.'); i >= 0 && !strings.Contains(id[i:], "[") && covered[id[i+1:]] {
		return Diagnostic{}, false
	}
	path, ok := r.file(m[2], "")
	if !ok {
		return Diagnostic{}, false
	}
	name := id
	if name == "" {
		name = m[1]
	}
	d := Diagnostic{Path: path, Severity: Error, Message: withTest(name, m[4])}
	if id != "" {
		d.Line = defLine(path, id)
	}
	return d, true
}

// defLine returns the line of "def <function>" for a test id like
// "TestA.test_x[param]", or 0.
func defLine(path, id string) int {
	if i := strings.IndexByte(id, '['); i >= 0 {
		id = id[:i]
	}
	if i := strings.LastIndexByte(id, '.'); i >= 0 {
		id = id[i+1:]
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		t = strings.TrimPrefix(t, "async ")
		if rest, ok := strings.CutPrefix(t, "def "+id); ok && strings.HasPrefix(rest, "(") {
			return n
		}
	}
	return 0
}

// dedent removes the indentation the lines share.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}
