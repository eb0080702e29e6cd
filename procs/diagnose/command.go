package diagnose

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A plan is what a command line tells the parser: which presets apply,
// what to call the command, and which directories it cd'd into.
type plan struct {
	presets []string
	label   string
	test    bool     // the command runs tests: its diagnostics are failures
	dirs    []string // arguments of cd commands, in order
}

// Presets returns the names of the presets Parse uses for command: by the
// words of each simple command in it (`go vet ./... && go test ./...`
// gets both Go vet's and Go test's). Unknown programs get "generic";
// programs whose output is data rather than diagnostics (grep, cat, git,
// ls, ...) get none.
func Presets(command string) []string {
	return planCommand(command).presets
}

// Label returns the short name of command used in summaries and as the
// diagnostics' source: "go test", "cargo build", "pytest", "tsc".
func Label(command string) string {
	return planCommand(command).label
}

// dataCommands print file:line text that is not a diagnostic: search
// results, file contents, listings. Their output is never parsed.
var dataCommands = []string{
	"cd", "pushd", "popd", "ls", "cat", "bat", "head", "tail", "less", "more", "grep", "egrep", "fgrep",
	"rg", "ag", "ack", "git", "find", "fd", "tree", "echo", "printf", "sed", "awk", "diff", "wc",
	"sort", "uniq", "pwd", "true", "false", "jq", "xargs", "tee", "cut", "tr", "which", "type", "stat",
	"file", "du", "df", "ps", "env", "export", "set", "nl", "od", "xxd", "hexdump", "sleep", "kill",
}

// wrappers run the command that follows them; their own options (and a
// duration, for timeout) come first. runners do the same after a verb:
// `uv run pytest`, `bundle exec rake`.
var wrappers = []string{"sudo", "time", "nice", "nohup", "timeout", "env", "command", "exec", "npx", "bunx", "pnpx", "xvfb-run", "stdbuf"}

var runners = map[string]string{
	"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "rye": "run", "hatch": "run",
	"bundle": "exec", "pnpm": "exec", "npm": "exec", "yarn": "exec",
}

var (
	pythonName    = regexp.MustCompile(`^python(\d+(\.\d+)?)?$`)
	shellOperator = regexp.MustCompile(`&&|\|\||[;|&\n]`)
)

func planCommand(command string) plan {
	var p plan
	for _, words := range simpleCommands(command) {
		words = unwrap(words)
		if len(words) == 0 {
			continue
		}
		prog := filepath.Base(words[0])
		if prog == "cd" || prog == "pushd" {
			if len(words) > 1 && !strings.HasPrefix(words[1], "-") {
				p.dirs = append(p.dirs, words[1])
			}
			continue
		}
		names, label, test := presetsFor(prog, words[1:])
		if label == "" {
			label = prog
		}
		// The label is the first command with a real preset, else the
		// first command at all.
		if p.label == "" || (!slices.ContainsFunc(p.presets, isSpecific) && slices.ContainsFunc(names, isSpecific)) {
			p.label = label
		}
		p.test = p.test || test
		for _, n := range names {
			if !slices.Contains(p.presets, n) {
				p.presets = append(p.presets, n)
			}
		}
	}
	if p.label == "" {
		p.label = strings.Join(strings.Fields(command), " ")
		if len(p.label) > 40 {
			p.label = p.label[:40]
		}
	}
	return p
}

func isSpecific(preset string) bool { return preset != "generic" }

// presetsFor chooses presets for program prog run with args, and the
// command's label.
func presetsFor(prog string, args []string) (names []string, label string, test bool) {
	sub := firstOperand(args)
	switch {
	case slices.Contains(dataCommands, prog):
		return nil, prog, false
	case prog == "go":
		label = "go " + sub
		switch sub {
		case "build", "install":
			return []string{"go-build"}, label, false
		case "vet":
			return []string{"go-vet"}, label, false
		case "test":
			return []string{"go-build", "go-test"}, label, true
		case "run":
			return []string{"go-build", "go-panic"}, label, false
		case "generate":
			return []string{"generic"}, label, false
		}
		return nil, label, false // go mod, go list, go env, ...: no diagnostics
	case prog == "cargo" || prog == "rustc":
		if prog == "cargo" {
			label = "cargo " + sub
		}
		return []string{"rust", "rust-panic"}, label, sub == "test" || slices.Contains(args, "--test")
	case slices.Contains([]string{"gcc", "cc", "clang", "g++", "c++", "clang++", "make", "gmake", "ninja", "cmake"}, prog):
		return []string{"gcc"}, prog, false
	case prog == "tsc" || prog == "vue-tsc":
		return []string{"tsc"}, prog, false
	case prog == "eslint":
		return []string{"eslint", "eslint-compact", "eslint-unix"}, prog, false
	case prog == "pytest" || prog == "py.test":
		return []string{"pytest"}, "pytest", true
	case pythonName.MatchString(prog):
		if i := slices.Index(args, "-m"); i >= 0 && i+1 < len(args) {
			switch args[i+1] {
			case "pytest":
				return []string{"pytest"}, "pytest", true
			case "unittest":
				return []string{"python-traceback"}, "unittest", true
			default:
				return []string{"generic", "python-traceback"}, args[i+1], false
			}
		}
		return []string{"python-traceback"}, prog, false
	case slices.Contains([]string{"npm", "pnpm", "yarn", "bun"}, prog):
		// `npm run lint` runs a script we cannot see: most likely tsc or
		// eslint.
		return []string{"tsc", "eslint", "eslint-compact", "eslint-unix"}, strings.TrimSpace(prog + " " + strings.Join(args[:min(len(args), 2)], " ")), sub == "test"
	}
	return []string{"generic"}, prog, false
}

// firstOperand returns the first argument that is not an option.
func firstOperand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// unwrap drops leading wrapper programs (sudo, time, npx, env VAR=x, ...)
// and their options.
func unwrap(words []string) []string {
	for len(words) > 0 {
		prog := filepath.Base(words[0])
		if verb, ok := runners[prog]; ok && len(words) > 1 && words[1] == verb {
			words = words[1:]
		} else if !slices.Contains(wrappers, prog) {
			return words
		}
		words = words[1:]
		for len(words) > 0 && (strings.HasPrefix(words[0], "-") || (prog == "env" && strings.Contains(words[0], "="))) {
			words = words[1:]
		}
		if prog == "timeout" && len(words) > 0 {
			words = words[1:] // the duration
		}
		if prog == "env" && len(words) == 0 {
			return []string{"env"}
		}
	}
	return words
}

// simpleCommands returns the words of each simple command in command, in
// order. Words that are not plain text (expansions, substitutions) come
// back as "". When command does not parse, it is split on whitespace and
// the usual operators.
func simpleCommands(command string) [][]string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		var cmds [][]string
		for _, part := range shellOperator.Split(command, -1) {
			if words := strings.Fields(part); len(words) > 0 {
				cmds = append(cmds, words)
			}
		}
		return cmds
	}
	var cmds [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, w := range call.Args {
			words[i] = wordText(w)
		}
		cmds = append(cmds, words)
		return true
	})
	return cmds
}

// wordText returns the text of a word made of literals and quotes.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			b.WriteString(part.Value)
		case *syntax.SglQuoted:
			b.WriteString(part.Value)
		case *syntax.DblQuoted:
			for _, in := range part.Parts {
				if lit, ok := in.(*syntax.Lit); ok {
					b.WriteString(lit.Value)
				}
			}
		}
	}
	return b.String()
}
