package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An allowlisted test or build runner runs code from the workspace: `go
// test` runs every test file's TestMain and every package's init, `make`
// its recipes, `npm test` package.json's scripts, `pytest` conftest.py,
// `cargo test` build.rs. The user who allowed `go test` allowed the tests
// as they were, not whatever the agent writes next: so a runner the
// policy allows asks again when the turn has written a file it runs
// (WrittenRunBy). The files are matched by name, wherever they are (which
// package `go test ./x` builds is not worked out: any .go file counts).

// A runner is a program that runs workspace code, and which of the files
// it runs.
type runner struct {
	// subs are the subcommands that run code (`go test`); nil: every
	// invocation does (`make`, `pytest`).
	subs []string
	// runs reports whether a file (slash-separated path) is one it runs.
	runs func(p string) bool
}

// Subcommands that run code.
var (
	goRuns    = []string{"test", "run", "generate", "build", "install", "tool"}
	cargoRuns = []string{"test", "t", "build", "b", "run", "r", "bench", "check", "c", "clippy", "doc", "d",
		"install", "fix", "nextest", "llvm-cov", "tarpaulin", "miri", "rustc"}
	pipRuns = []string{"install", "wheel", "download"}
	npmRuns = []string{"test", "t", "tst", "run", "run-script", "rum", "urn", "start", "restart", "stop",
		"install", "i", "in", "ins", "inst", "add", "ci", "clean-install", "ic", "install-clean", "install-test",
		"it", "cit", "exec", "x", "rebuild", "rb", "pack", "publish"}
)

// lookupRunner returns the runner a program is, by its name (lower case,
// base name).
func lookupRunner(name string) (runner, bool) {
	switch name {
	case "go":
		return runner{subs: goRuns, runs: goFile}, true
	case "cargo":
		return runner{subs: cargoRuns, runs: rustFile}, true
	case "pytest", "py.test", "pypy", "pypy3":
		return runner{runs: pythonFile}, true
	case "pip", "pip3":
		return runner{subs: pipRuns, runs: pythonFile}, true
	case "node", "nodejs", "tsx", "ts-node", "jest", "vitest", "mocha":
		return runner{runs: jsFile}, true
	case "npm":
		return runner{subs: npmRuns, runs: codeFile}, true
	case "sh", "bash", "zsh", "dash", "ksh", "fish":
		return runner{runs: shellFile}, true
	case "make", "gmake", "bmake", "just", "task", "mage", "ninja", "meson", "cmake",
		"ctest", "bazel", "bazelisk", "scons", "rake", "gradle", "gradlew", "mvn", "mvnw", "sbt", "ant",
		"tox", "nox", "invoke", "npx", "pnpx", "bunx", "yarn", "pnpm", "bun", "deno", "mix", "composer",
		"bundle", "rspec", "phpunit", "dotnet", "uv", "poetry", "pipenv", "hatch", "pdm", "rye",
		"ruby", "perl", "php", "lua", "rscript", "julia":
		// These run what their own files name (recipes, package.json's
		// scripts, tasks), which can be any program of the workspace.
		return runner{runs: codeFile}, true
	}
	if strings.HasPrefix(name, "python") { // python3, python3.12
		return runner{runs: pythonFile}, true
	}
	return runner{}, false
}

// WrittenRunBy says why running line, which the policy allows, needs the
// user's approval again: the first runner in it that runs one of the files
// the agent wrote this turn (written: paths relative to the workspace,
// slash-separated), as "the agent changed x_test.go, which `go test`
// runs"; and the files it runs. "" and nil: no runner in line runs a
// written file. A line that does not parse gives "" (the policy does not
// allow it).
func WrittenRunBy(line string, written []string) (string, []string) {
	if len(written) == 0 {
		return "", nil
	}
	f, err := parse(line)
	if err != nil {
		return "", nil
	}
	return writtenRunIn(f, written, 0)
}

// maxNesting bounds `sh -c 'sh -c …'`.
const maxNesting = 8

func writtenRunIn(f *syntax.File, written []string, depth int) (why string, files []string) {
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || why != "" {
			return why == ""
		}
		why, files = writtenRunByCall(literalWords(call.Args), written, depth)
		return why == ""
	})
	return why, files
}

// writtenRunByCall is WrittenRunBy for one simple command's words (""
// for a word with expansions).
func writtenRunByCall(words, written []string, depth int) (string, []string) {
	i := commandStart(words)
	if i >= len(words) {
		return "", nil
	}
	name := strings.ToLower(path.Base(words[i]))
	// A program the agent wrote, run by its path (./build.sh).
	if strings.Contains(words[i], "/") {
		if p, ok := writtenAs(words[i], written); ok {
			return fmt.Sprintf("the agent changed %s, which `%s` runs", p, words[i]), []string{p}
		}
	}
	// Code given to a shell runs as a line of its own.
	if depth < maxNesting {
		if code, ok := shellCode(name, words[i+1:]); ok {
			if f, err := parse(code); err == nil {
				if why, files := writtenRunIn(f, written, depth+1); why != "" {
					return why, files
				}
			}
		}
	}
	r, ok := lookupRunner(name)
	if !ok {
		return "", nil
	}
	label := name
	if r.subs != nil {
		sub := ""
		for _, w := range words[i+1:] {
			if slices.Contains(r.subs, w) {
				sub = w
				break
			}
		}
		if sub == "" {
			return "", nil
		}
		label += " " + sub
	}
	var files []string
	for _, p := range written {
		if p == UnknownFile || r.runs(p) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return "", nil
	}
	return fmt.Sprintf("the agent changed %s, which `%s` runs", listFiles(files), label), files
}

// runWrappers run the command that follows their options (and, for
// timeout and the like, one more word).
var runWrappers = map[string]bool{
	"env": true, "command": true, "exec": true, "builtin": true, "time": true, "nice": true, "nohup": true,
	"timeout": true, "sudo": true, "doas": true, "xargs": true, "stdbuf": true, "ionice": true, "chrt": true,
	"taskset": true, "setsid": true, "unbuffer": true, "watch": true, "flock": true, "caffeinate": true,
}

// commandStart returns the index of the program a simple command runs,
// past assignments and wrappers with their options.
func commandStart(words []string) int {
	i := 0
	for i < len(words) {
		w := words[i]
		switch {
		case isAssignment(w):
			i++
		case runWrappers[strings.ToLower(path.Base(w))]:
			i++
			for i < len(words) && (strings.HasPrefix(words[i], "-") || isAssignment(words[i]) || startsWithDigit(words[i])) {
				i++
			}
		default:
			return i
		}
	}
	return i
}

func startsWithDigit(s string) bool { return s != "" && '0' <= s[0] && s[0] <= '9' }

// shellCode returns the code a shell runs from its command line: `sh -c
// CODE`, `eval WORDS`.
func shellCode(name string, args []string) (string, bool) {
	switch name {
	case "eval":
		return strings.Join(args, " "), len(args) > 0
	case "sh", "bash", "zsh", "dash", "ksh":
		for i, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return "", false
}

// writtenAs returns the written file a command's path names, if any:
// compared without a leading ./, and as the end of a written path (the
// shell may be in a subfolder).
func writtenAs(w string, written []string) (string, bool) {
	w = path.Clean(strings.TrimPrefix(w, "./"))
	for _, p := range written {
		if p == w || strings.HasSuffix(p, "/"+w) || strings.HasSuffix(w, "/"+p) {
			return p, true
		}
	}
	return "", false
}

// UnknownFile stands among the files written for those of an edit whose
// files could not be told: every runner runs it.
const UnknownFile = "*"

// listFiles names files for a question: all of them up to three.
func listFiles(files []string) string {
	files = slices.Clone(files)
	for i, p := range files {
		if p == UnknownFile {
			files[i] = "a file it did not name"
		}
	}
	switch n := len(files); {
	case n == 1:
		return files[0]
	case n <= 3:
		return strings.Join(files[:n-1], ", ") + " and " + files[n-1]
	default:
		return fmt.Sprintf("%s and %d more files", strings.Join(files[:3], ", "), n-3)
	}
}

// literalWords are a command's words after quote removal; a word with an
// expansion is "" (no runner is named by one, and the policy does not
// allow a command whose name is one).
func literalWords(args []*syntax.Word) []string {
	out := make([]string, len(args))
	for i, w := range args {
		out[i] = literal(w)
	}
	return out
}

func literal(w *syntax.Word) string {
	var sb strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			sb.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				sb.WriteString(unescapeDoubleQuoted(l.Value))
			}
		default:
			return ""
		}
	}
	return sb.String()
}

// The files each kind of runner runs, by name.

// inert are extensions of files no runner runs: prose, pictures, data
// that only a program's code (already counted) would read.
var inert = map[string]bool{
	".md": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true, ".org": true,
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".ico": true, ".webp": true,
	".pdf": true, ".csv": true, ".log": true,
}

// codeFile: what a runner that runs what its own files name (make,
// npm run) may run — any file but prose and pictures. requirements.txt
// and CMakeLists.txt are code for pip and cmake.
func codeFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	return !inert[path.Ext(base)] || strings.HasPrefix(base, "requirements") || base == "cmakelists.txt"
}

func goFile(p string) bool {
	switch strings.ToLower(path.Base(p)) {
	case "go.mod", "go.sum", "go.work", "go.work.sum":
		return true
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".go", ".s", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".f", ".f90", ".syso", ".swig", ".swigcxx":
		return true
	}
	return shellFile(p)
}

func rustFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch base {
	case "cargo.toml", "cargo.lock", "rust-toolchain", "rust-toolchain.toml", "build.rs":
		return true
	}
	if path.Base(path.Dir(strings.ToLower(p))) == ".cargo" {
		return true // .cargo/config.toml: runners, rustc wrappers
	}
	switch path.Ext(base) {
	case ".rs", ".c", ".h", ".cc", ".cpp", ".s":
		return true
	}
	return shellFile(p)
}

func pythonFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch base {
	case "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", ".coveragerc", "pip.conf":
		return true
	}
	switch path.Ext(base) {
	case ".py", ".pyx", ".pxd", ".pyi", ".pth", ".so", ".c", ".h":
		return true
	}
	return strings.HasPrefix(base, "requirements") || shellFile(p)
}

func jsFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	switch base {
	case "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", ".npmrc", ".yarnrc", ".yarnrc.yml",
		"bunfig.toml", "deno.json", "deno.jsonc", "tsconfig.json":
		return true
	}
	switch path.Ext(base) {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte", ".coffee", ".node", ".wasm":
		return true
	}
	return strings.HasPrefix(base, ".babelrc") || strings.HasPrefix(base, ".mocharc") || shellFile(p)
}

// shellFile: scripts any test or build may start.
func shellFile(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".sh", ".bash", ".zsh", ".ksh", ".fish", ".ps1", ".bat", ".cmd":
		return true
	}
	return false
}

// RunsCode reports whether an allow pattern ("go test", "make") names a
// runner of workspace code: what "Always" for it allows is said in the
// question (the tests as they are run unasked; after the agent changes
// one, WrittenRunBy asks again).
func RunsCode(pattern string) bool {
	words := strings.Fields(pattern)
	if len(words) == 0 {
		return false
	}
	r, ok := lookupRunner(strings.ToLower(path.Base(words[0])))
	return ok && (r.subs == nil || len(words) > 1 && slices.Contains(r.subs, words[1]))
}
