package diagnose

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity is how bad a diagnostic is. The values are LSP's
// DiagnosticSeverity, so the server can convert with a cast.
type Severity int

const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
	Hint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// A Diagnostic is one problem a command reported, placed on a file.
type Diagnostic struct {
	Path     string // absolute and clean; an existing file inside Options.Root
	Line     int    // 1-based; 0 when the tool named only the file
	Col      int    // 1-based; 0 when unknown
	Severity Severity
	Message  string // may span lines (a test failure's following lines)
	Code     string // the tool's code for the problem if it gave one: "TS2322", "E0308", "-Wformat="
}

// Options says where a command ran.
type Options struct {
	// Dir is the command's working directory: relative paths in its
	// output are resolved against it. Empty means Root.
	Dir string
	// Formats are extra errorformat strings (from the user's config),
	// tried before each preset's own; a format that gives no type (%t,
	// %E, %W, ...) takes the preset's default severity, or Error when
	// the command has no errorformat preset.
	Formats []string
	// Root is the workspace root: diagnostics on files outside it are
	// dropped. Empty keeps files anywhere.
	Root string
}

// Parse returns the diagnostics in the output of command, which ran in
// opts.Dir, read with the presets Presets(command) names; they are sorted
// by path, line and column, duplicates merged. Its only error is an
// invalid errorformat string in opts.Formats.
func Parse(command, output string, opts Options) ([]Diagnostic, error) {
	extra, err := compileFormats(opts.Formats)
	if err != nil {
		return nil, err
	}
	p := planCommand(command)
	r := newResolver(opts.Dir, opts.Root, p.dirs)
	out := splitOutput(output)

	var diags []Diagnostic
	ranFormats := false
	for _, name := range p.presets {
		pr := presetByName(name)
		if len(pr.formats) > 0 {
			diags = append(diags, runFormats(pr, opts.Formats, out, r)...)
			ranFormats = true
		}
		if pr.scan != nil {
			diags = append(diags, pr.scan(out.lines, r)...)
		}
	}
	if !ranFormats && extra {
		diags = append(diags, runFormats(preset{name: "config", severity: Error}, opts.Formats, out, r)...)
	}
	return mergeDiagnostics(diags), nil
}

// mergeDiagnostics sorts diags and merges those that say the same thing at
// the same place: tools repeat themselves (`go vet` prints a type error
// once from the compiler and once from vet) and presets overlap. A
// diagnostic without a column merges into one with a column, and the
// merged one keeps the worst severity and the first code.
func mergeDiagnostics(diags []Diagnostic) []Diagnostic {
	type place struct {
		path    string
		line    int
		col     int
		message string
	}
	index := map[place]int{}
	var merged []Diagnostic
	for _, d := range diags {
		key := place{d.Path, d.Line, d.Col, d.Message}
		if i, ok := index[key]; ok {
			merged[i].Severity = min(merged[i].Severity, d.Severity)
			merged[i].Code = cmp.Or(merged[i].Code, d.Code)
			continue
		}
		index[key] = len(merged)
		if d.Col > 0 {
			if _, ok := index[place{d.Path, d.Line, -1, d.Message}]; !ok {
				index[place{d.Path, d.Line, -1, d.Message}] = len(merged) // the first located copy of the message
			}
		}
		merged = append(merged, d)
	}
	// Fold column-less copies into a located one (marked by a zero
	// Severity, then dropped).
	for j, d := range merged {
		if d.Col == 0 {
			if i, ok := index[place{d.Path, d.Line, -1, d.Message}]; ok {
				merged[i].Severity = min(merged[i].Severity, d.Severity)
				merged[i].Code = cmp.Or(merged[i].Code, d.Code)
				merged[j].Severity = 0
			}
		}
	}
	merged = slices.DeleteFunc(merged, func(d Diagnostic) bool { return d.Severity == 0 })
	slices.SortFunc(merged, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Severity, b.Severity),
			cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return merged
}
