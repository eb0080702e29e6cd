package diagnose

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reviewdog/errorformat"
)

// compileFormats checks the user's errorformat strings one by one, so the
// error names the bad one, and reports whether there are any.
func compileFormats(formats []string) (bool, error) {
	for _, f := range formats {
		if _, err := newErrorformat([]string{f}); err != nil {
			return false, fmt.Errorf("errorformat %q: %w", f, err)
		}
	}
	return len(formats) > 0, nil
}

// newErrorformat compiles formats. errorformat indexes past the end of a
// format that ends in the middle of a % sequence ("file:%"), so a panic
// there is an invalid format like any other.
func newErrorformat(formats []string) (efm *errorformat.Errorformat, err error) {
	defer func() {
		if recover() != nil {
			efm, err = nil, errors.New("a % sequence is cut off by the end of the format")
		}
	}()
	return errorformat.NewErrorformat(formats)
}

// runFormats scans the output with the user's formats followed by the
// preset's, segment by segment so each make directory resolves its own
// paths.
func runFormats(pr preset, extra []string, out output, r *resolver) (diags []Diagnostic) {
	efm, err := newErrorformat(append(slices.Clone(extra), pr.formats...))
	if err != nil {
		return nil // the presets' formats are tested, the user's checked by compileFormats
	}
	// errorformat is third-party code fed arbitrary text: if it ever
	// panics, this preset yields what it had and the others still run.
	defer func() { _ = recover() }()
	for _, seg := range out.segments {
		sc := efm.NewScanner(strings.NewReader(out.text(seg)))
		for sc.Scan() {
			if d, ok := entryDiagnostic(sc.Entry(), pr, seg.dir, r); ok {
				diags = append(diags, d)
			}
		}
	}
	return diags
}

// entryDiagnostic converts one errorformat entry, if it names a file in
// the workspace.
func entryDiagnostic(e *errorformat.Entry, pr preset, dir string, r *resolver) (Diagnostic, bool) {
	if !e.Valid || e.Filename == "" {
		return Diagnostic{}, false
	}
	path, ok := r.file(e.Filename, dir)
	if !ok {
		return Diagnostic{}, false
	}
	d := Diagnostic{
		Path:     path,
		Line:     max(e.Lnum, 0),
		Col:      max(e.Col, 0),
		Severity: severityOf(e.Type, pr.severity),
		Message:  strings.TrimSpace(e.Text),
	}
	if pr.refine != nil {
		pr.refine(&d, e)
	}
	if d.Message == "" && len(e.Lines) > 0 {
		d.Message = strings.TrimSpace(e.Lines[0])
	}
	return d, true
}

// severityOf maps errorformat's %t letter (or the E/W/I of %E, %W, %I).
func severityOf(t rune, otherwise Severity) Severity {
	switch t {
	case 'e', 'E':
		return Error
	case 'w', 'W':
		return Warning
	case 'i', 'I':
		return Info
	case 'n', 'N':
		return Hint
	}
	return otherwise
}
