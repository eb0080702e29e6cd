package diagnose

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// go test output is read by hand: a failure's file name is relative to its
// package's directory, and which package that is comes on a later line
// ("FAIL\texample.com/m/sub\t0.01s"); whether a logged line is a failure
// depends on the verdict of its test, which `go test -v` prints after it.
var (
	goTestStart   = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)`)
	goTestVerdict = regexp.MustCompile(`^\s*--- (FAIL|PASS|SKIP): (\S+)`)
	goTestLog     = regexp.MustCompile(`^( +)([^\s:]+\.go):(\d+):(?: (.*))?$`)
	goPackageDone = regexp.MustCompile(`^(FAIL|ok)\s+(\S+)`)
	goPanic       = regexp.MustCompile(`^panic: `)
	goFrame       = regexp.MustCompile(`^\t(.+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// A goTestMessage is a line a test logged (with its continuation lines),
// waiting for its package's verdict.
type goTestMessage struct {
	test   string
	file   string
	line   int
	indent string // continuation lines are indented 4 more
	text   []string
}

type goTestScan struct {
	r       *resolver
	tests   bool // read test logs, not only panics (false for go run)
	current string
	failed  map[string]bool
	pending []goTestMessage
	open    bool // the last pending message may still continue

	panicking bool
	panicText string
	panicTest string

	diags []Diagnostic
}

// scanGoTest reads the failures of `go test` (tests) or only the panics of
// `go run` (!tests). A panic is placed on the first frame of its trace
// inside the workspace.
func scanGoTest(lines []string, r *resolver, tests bool) []Diagnostic {
	s := &goTestScan{r: r, tests: tests, failed: map[string]bool{}}
	for _, line := range lines {
		s.line(line)
	}
	s.packageDone("", true) // output cut short: whatever failed still counts
	return s.diags
}

func (s *goTestScan) line(line string) {
	if s.open {
		last := &s.pending[len(s.pending)-1]
		if rest, ok := strings.CutPrefix(line, last.indent+"    "); ok {
			last.text = append(last.text, rest)
			return
		}
		s.open = false
	}
	if s.panicking {
		if m := goFrame.FindStringSubmatch(line); m != nil {
			if path, ok := s.r.file(m[1], ""); ok && filepath.IsAbs(m[1]) {
				n, _ := strconv.Atoi(m[2])
				s.diags = append(s.diags, Diagnostic{Path: path, Line: n, Severity: Error, Message: withTest(s.panicTest, s.panicText)})
				s.panicking = false
			}
			return
		}
	}
	if m := goPanic.FindStringSubmatch(line); m != nil && !s.panicking {
		s.panicking, s.panicText, s.panicTest = true, line, s.current
		return
	}
	if !s.tests {
		return
	}
	if m := goTestStart.FindStringSubmatch(line); m != nil {
		s.current = m[1]
		return
	}
	if m := goTestVerdict.FindStringSubmatch(line); m != nil {
		s.current = m[2]
		if m[1] == "FAIL" {
			s.failed[m[2]] = true
		}
		return
	}
	if m := goTestLog.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[3])
		s.pending = append(s.pending, goTestMessage{test: s.current, file: m[2], line: n, indent: m[1], text: []string{m[4]}})
		s.open = true
		return
	}
	if m := goPackageDone.FindStringSubmatch(line); m != nil {
		s.packageDone(m[2], m[1] == "FAIL")
	}
}

// packageDone places the messages of the package that just ended, keeping
// those of failed tests (and, if the package failed, those of no test).
func (s *goTestScan) packageDone(importPath string, failed bool) {
	for _, msg := range s.pending {
		if msg.test != "" && !s.failed[msg.test] || msg.test == "" && !failed {
			continue
		}
		path, ok := s.r.inPackage(importPath, msg.file)
		if !ok && strings.ContainsRune(msg.file, '/') {
			path, ok = s.r.file(msg.file, "")
		}
		if !ok {
			path, ok = s.r.unique(msg.file)
		}
		if !ok {
			continue
		}
		text := strings.TrimRight(strings.Join(msg.text, "\n"), " \n")
		s.diags = append(s.diags, Diagnostic{Path: path, Line: msg.line, Severity: Error, Message: withTest(msg.test, text)})
	}
	s.pending, s.open, s.current, s.panicking = s.pending[:0], false, "", false
	clear(s.failed)
}

// withTest prefixes a message with the test it came from.
func withTest(test, text string) string {
	if test == "" {
		return text
	}
	if text == "" {
		return test + " failed"
	}
	return test + ": " + text
}
