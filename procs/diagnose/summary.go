package diagnose

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Summary returns one short line about a finished command for the user:
// "go test: 3 failures in 2 files", "go vet: 1 warning in a.go", "gcc: 3
// problems (2 errors, 1 warning) in a.c", "go build: ok", "make: failed
// (exit 2)".
func Summary(command string, diags []Diagnostic, exitCode int) string {
	p := planCommand(command)
	if len(diags) == 0 {
		if exitCode == 0 {
			return p.label + ": ok"
		}
		return fmt.Sprintf("%s: failed (exit %d)", p.label, exitCode)
	}
	var counts [Hint + 1]int
	files := map[string]bool{}
	for _, d := range diags {
		if d.Severity >= Error && d.Severity <= Hint {
			counts[d.Severity]++
		} else {
			counts[Error]++ // a severity from outside this package
		}
		files[d.Path] = true
	}
	// Tests count their errors as failures; the rest is named by
	// severity, and several kinds together are "problems".
	var parts []string
	for _, s := range []struct {
		sev  Severity
		noun string
	}{{Error, "error"}, {Warning, "warning"}, {Info, "message"}, {Hint, "note"}} {
		if counts[s.sev] > 0 {
			if s.sev == Error && p.test {
				s.noun = "failure"
			}
			parts = append(parts, count(counts[s.sev], s.noun))
		}
	}
	var b strings.Builder
	switch {
	case len(parts) == 1 || p.test:
		fmt.Fprintf(&b, "%s: %s", p.label, strings.Join(parts, ", "))
	default:
		fmt.Fprintf(&b, "%s: %s (%s)", p.label, count(len(diags), "problem"), strings.Join(parts, ", "))
	}
	if len(files) == 1 {
		fmt.Fprintf(&b, " in %s", filepath.Base(diags[0].Path))
	} else {
		fmt.Fprintf(&b, " in %d files", len(files))
	}
	return b.String()
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
