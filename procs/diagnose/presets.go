package diagnose

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reviewdog/errorformat"
	"github.com/reviewdog/errorformat/fmts"
)

// A preset is how to read one kind of tool's output: errorformat strings,
// a hand-written scanner, or both.
type preset struct {
	name     string
	formats  []string
	severity Severity // for entries whose format gives no type
	// refine adjusts a diagnostic made from an entry: codes and
	// severities that sit inside the message ("[-Wformat=]").
	refine func(d *Diagnostic, e *errorformat.Entry)
	// scan reads the whole output itself, for what errorformat cannot
	// express (paths relative to a later line, the deepest frame in the
	// workspace).
	scan func(lines []string, r *resolver) []Diagnostic
}

// presetNames lists every preset, for tests and documentation.
var presetNames = []string{
	"go-build", "go-vet", "go-test", "go-panic", "gcc", "tsc", "eslint", "eslint-compact", "eslint-unix",
	"python-traceback", "pytest", "rust", "rust-panic", "generic",
}

// presetByName returns the named preset. Where reviewdog's fmts package
// has a correct preset it is used as is (tsc, eslint, eslint-compact);
// the others are ours, each saying why.
func presetByName(name string) preset {
	switch name {
	case "go-build":
		// fmts' govet drops the tab-indented lines that continue a
		// compile error ("\thave (int)\n\twant ()", "\tother declaration
		// of F"); these keep them in the message.
		return preset{name: name, severity: Error, formats: []string{
			`%C%\t%m`,
			`%E%f:%l:%c: %m`,
			`%E%f:%l: %m`,
			`%-G%.%#`,
		}}
	case "go-vet":
		// vet's findings are warnings; the type errors it reports with a
		// "vet: " prefix (which fmts' govet misses) are errors.
		return preset{name: name, severity: Warning, formats: []string{
			`%C%\t%m`,
			`%Evet: %f:%l:%c: %m`,
			`%W%f:%l:%c: %m`,
			`%W%f:%l: %m`,
			`%-G%.%#`,
		}}
	case "go-test":
		return preset{name: name, scan: func(lines []string, r *resolver) []Diagnostic { return scanGoTest(lines, r, true) }}
	case "go-panic":
		return preset{name: name, scan: func(lines []string, r *resolver) []Diagnostic { return scanGoTest(lines, r, false) }}
	case "gcc":
		// fmts has no gcc/clang preset. Notes become hints; linker errors
		// ("a.c:(.text+0x5): undefined reference to `foo'") mark the file.
		return preset{name: name, severity: Error, refine: trailingBracketCode(gccFlag), formats: []string{
			`%f:%l:%c: fatal %trror: %m`,
			`%f:%l:%c: %trror: %m`,
			`%f:%l:%c: %tarning: %m`,
			`%f:%l:%c: %tote: %m`,
			`%f:%l: %trror: %m`,
			`%f:%l: %tarning: %m`,
			`%f:%l: %tote: %m`,
			`%f:(%*[^)]): %m`,
			`%f:%l:%c: %m`,
			`%f:%l: %m`,
			`%-G%.%#`,
		}}
	case "tsc":
		// fmts' tsc reads the plain format (`a.ts(3,5): error TS2322: ...`);
		// in a terminal tsc prints `a.ts:3:5 - error TS2322: ...`, added
		// here.
		return preset{name: name, severity: Error, refine: tscCode, formats: append([]string{
			`%E%f:%l:%c - error TS%n: %m`,
			`%W%f:%l:%c - warning TS%n: %m`,
		}, definedFormats("tsc")...)}
	case "eslint":
		return preset{name: name, severity: Error, refine: stylishRule, formats: definedFormats("eslint")}
	case "eslint-compact":
		return preset{name: name, severity: Error, refine: trailingParenRule, formats: definedFormats("eslint-compact")}
	case "eslint-unix":
		// fmts has no preset for `eslint -f unix`:
		// "/p/a.js:1:10: 'x' is defined but never used. [Error/no-unused-vars]".
		return preset{name: name, severity: Error, refine: unixRule, formats: []string{
			`%f:%l:%c: %m`,
			`%-G%.%#`,
		}}
	case "python-traceback":
		return preset{name: name, scan: scanPythonTraceback}
	case "pytest":
		return preset{name: name, scan: scanPytest}
	case "rust":
		// fmts' cargo-check reads only --message-format=short; this reads
		// the default human format:
		//   error[E0308]: mismatched types
		//    --> src/main.rs:2:18
		return preset{name: name, severity: Error, refine: rustCode, formats: []string{
			`%Eerror[E%n]: %m`,
			`%Eerror: %m`,
			`%Wwarning: %m`,
			`%C%\s%#--> %f:%l:%c`,
			`%C%.%#`,
		}}
	case "rust-panic":
		// A panic in a test or program, new format (Rust 1.73+) first:
		//   thread 'tests::it_works' (2705) panicked at src/main.rs:8:9:
		//   assertion `left == right` failed
		return preset{name: name, severity: Error, refine: rustPanic, formats: []string{
			`%Ethread %m panicked at %f:%l:%c:`,
			`%Ethread %.%# panicked at %m\, %f:%l:%c`,
			`%-Cstack backtrace:`,
			`%-Cnote: %.%#`,
			`%Z`,
			`%C%m`,
		}}
	case "generic":
		// Any tool printing "file:line:col: message" (fmts' pep8/golint
		// shape); files must exist, which keeps stray text out.
		return preset{name: name, severity: Warning, refine: genericRefine, formats: []string{
			`%f:%l:%c: %m`,
			`%f:%l: %m`,
			`%-G%.%#`,
		}}
	}
	panic(fmt.Sprintf("diagnose: no preset %q", name)) // presetNames and this switch are kept in step by a test
}

// definedFormats returns a copy of fmts' preset.
func definedFormats(name string) []string {
	f, ok := fmts.DefinedFmts()[name]
	if !ok {
		return nil
	}
	return slices.Clone(f.Errorformat)
}

var (
	gccFlag       = regexp.MustCompile(`^-W[\w=+-]*$`)
	bracketSuffix = regexp.MustCompile(`\s+\[([^\[\]\s]+)\]$`)
	parenSuffix   = regexp.MustCompile(`\s+\(([@\w/-]+)\)$`)
	unixSuffix    = regexp.MustCompile(`\s+\[(Error|Warning)(?:/([^\]]*))?\]$`)
	stylishSuffix = regexp.MustCompile(`\s{2,}(@?[\w-]+(?:/[\w-]+)*)$`)
	severityWord  = regexp.MustCompile(`^(?i)(fatal error|error|warning|warn|note|info|hint)(\[[^\]]*\])?:\s*`)
	leadingCode   = regexp.MustCompile(`^([A-Z]{1,4}\d{2,5})\s+(?:\[\*\]\s+)?`)
	threadName    = regexp.MustCompile(`^'([^']*)'(?: \(\d+\))?\s*`)
)

// trailingBracketCode moves a trailing "[code]" that ok accepts from the
// message to the code: gcc's "[-Wunused-variable]", mypy's "[assignment]".
func trailingBracketCode(ok *regexp.Regexp) func(d *Diagnostic, e *errorformat.Entry) {
	return func(d *Diagnostic, e *errorformat.Entry) {
		first, rest, _ := strings.Cut(d.Message, "\n")
		if m := bracketSuffix.FindStringSubmatchIndex(first); m != nil && ok.MatchString(first[m[2]:m[3]]) {
			d.Code = first[m[2]:m[3]]
			d.Message = joinFirst(first[:m[0]], rest)
		}
	}
}

func joinFirst(first, rest string) string {
	if rest == "" {
		return first
	}
	return first + "\n" + rest
}

func tscCode(d *Diagnostic, e *errorformat.Entry) {
	if e.Nr > 0 {
		d.Code = fmt.Sprintf("TS%d", e.Nr)
	}
}

func rustCode(d *Diagnostic, e *errorformat.Entry) {
	if e.Nr > 0 {
		d.Code = fmt.Sprintf("E%04d", e.Nr)
	}
}

// rustPanic turns "'tests::it_works' (2705)\nassertion failed" into
// "thread 'tests::it_works' panicked:\nassertion failed".
func rustPanic(d *Diagnostic, e *errorformat.Entry) {
	if m := threadName.FindStringSubmatch(d.Message); m != nil {
		d.Message = joinFirst("thread '"+m[1]+"' panicked:", strings.TrimPrefix(d.Message, m[0]))
	}
}

// stylishRule splits eslint's stylish "message  rule-id".
func stylishRule(d *Diagnostic, e *errorformat.Entry) {
	if m := stylishSuffix.FindStringSubmatchIndex(d.Message); m != nil && m[0] > 0 {
		d.Code = d.Message[m[2]:m[3]]
		d.Message = d.Message[:m[0]]
	}
}

// trailingParenRule splits eslint's compact "message (rule-id)".
func trailingParenRule(d *Diagnostic, e *errorformat.Entry) {
	if m := parenSuffix.FindStringSubmatchIndex(d.Message); m != nil && m[0] > 0 {
		d.Code = d.Message[m[2]:m[3]]
		d.Message = d.Message[:m[0]]
	}
}

// unixRule splits eslint's unix "message [Error/rule-id]".
func unixRule(d *Diagnostic, e *errorformat.Entry) {
	if m := unixSuffix.FindStringSubmatchIndex(d.Message); m != nil {
		d.Severity = severityOf(rune(d.Message[m[2]]), Error)
		if m[4] >= 0 {
			d.Code = d.Message[m[4]:m[5]]
		}
		d.Message = d.Message[:m[0]]
	}
}

// genericRefine reads what unknown tools commonly put in the message: a
// leading "error:"/"warning:" (mypy, clang-tidy), a leading code (ruff,
// flake8: "E501 line too long") and a trailing "[code]" (mypy).
func genericRefine(d *Diagnostic, e *errorformat.Entry) {
	if m := severityWord.FindStringSubmatch(d.Message); m != nil {
		switch strings.ToLower(m[1]) {
		case "error", "fatal error":
			d.Severity = Error
		case "warning", "warn":
			d.Severity = Warning
		case "info":
			d.Severity = Info
		case "note", "hint":
			d.Severity = Hint
		}
		if m[2] != "" {
			d.Code = strings.Trim(m[2], "[]")
		}
		d.Message = d.Message[len(m[0]):]
	}
	if m := leadingCode.FindStringSubmatch(d.Message); m != nil {
		d.Code = m[1]
		d.Message = d.Message[len(m[0]):]
	}
	if d.Code == "" {
		trailingBracketCode(mypyCode)(d, e)
	}
}

var mypyCode = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
