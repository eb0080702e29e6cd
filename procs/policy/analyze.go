package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/agentls/agentls/internal/text"
)

// maxDepth bounds how deeply scripts inside scripts (`bash -c "eval '…'"`)
// are followed; deeper ones ask.
const maxDepth = 4

// analyzer collects what one Check finds, over the line and the scripts
// nested in it.
type analyzer struct {
	rules rules
	ws    *workspace
	// dirs are the directories the shell may be in at the command being
	// checked: where the line starts, then every `cd` target so far.
	dirs []string
	// dirsLost marks a line that changed directory more often than dirs
	// can follow: every command that reads asks.
	dirsLost bool
	// dirVerdicts are dirProblem's findings by directory, for this line.
	dirVerdicts map[string]string
	repos       *repoChecks // the repositories' config, read at most once per Check
	findings    []finding
	allowed     []string // what allowed each allowed command, without duplicates
	patterns    []string // for Patterns, without duplicates
}

// finding is one command that must be denied or asked about.
type finding struct {
	pos      uint // byte offset in the checked line, for "first in text order"
	decision Decision
	message  string
	// unchecked marks a script that could not be checked, which asks even
	// when the command running it is allowed.
	unchecked bool
}

// scope is one script being walked: the line itself, or a script nested in
// one of its commands.
type scope struct {
	src   string
	depth int
	// nested marks a script or command run by a command of the line: it
	// offers no patterns.
	nested bool
}

func newAnalyzer(r rules, ws *workspace, dir string, repos *repoChecks) *analyzer {
	return &analyzer{rules: r, ws: ws, dirs: []string{dir}, repos: repos}
}

// inner is an analyzer for a script that a command of a's line runs.
func (a *analyzer) inner() *analyzer {
	return &analyzer{rules: a.rules, ws: a.ws, dirs: slices.Clone(a.dirs), dirsLost: a.dirsLost, repos: a.repos}
}

// script parses and walks the top-level line. It returns false with the
// verdict when the line cannot be parsed: deny if anything in it is
// denied (salvage.go), else ask.
func (a *analyzer) script(src string, depth int) (Verdict, bool) {
	f, err := parseBash(src)
	if err != nil {
		a.salvage(src, depth)
		if v := a.verdict(); v.Decision == Deny {
			return Verdict{Decision: Deny, Reason: v.Reason + " (in a line that does not parse: " + err.Error() + ")"}, false
		}
		return Verdict{Decision: Ask, Reason: "cannot parse: " + err.Error()}, false
	}
	a.walk(&scope{src: src, depth: depth}, f)
	return Verdict{}, true
}

// nestedScript checks a script that a command runs (`bash -c SCRIPT`,
// `eval`, `trap`). Only what it denies counts, reported at that command:
// the command itself already asks unless the user allowed it, and then the
// user chose to let it run whatever else the script does.
func (a *analyzer) nestedScript(sc *scope, at uint, text, script string) {
	unchecked := func(msg string) {
		a.findings = append(a.findings, finding{pos: at, decision: Ask, message: msg, unchecked: true})
	}
	if sc.depth+1 > maxDepth {
		unchecked(fmt.Sprintf("`%s` nests scripts too deeply to check", text))
		return
	}
	inner := a.inner()
	f, err := parseBash(script)
	if err != nil {
		unchecked(fmt.Sprintf("`%s`: cannot parse its script: %v", text, err))
		inner.salvage(script, sc.depth+1)
	} else {
		inner.walk(&scope{src: script, depth: sc.depth + 1, nested: true}, f)
	}
	for _, fd := range inner.findings {
		if fd.decision == Deny || fd.unchecked {
			a.findings = append(a.findings, finding{pos: at, decision: fd.decision, message: fd.message, unchecked: fd.unchecked})
		}
	}
}

func (a *analyzer) add(pos uint, d Decision, msg string) {
	a.findings = append(a.findings, finding{pos: pos, decision: d, message: msg})
}

func (a *analyzer) allow(label string) {
	if !slices.Contains(a.allowed, label) {
		a.allowed = append(a.allowed, label)
	}
}

func (a *analyzer) addPattern(p string) {
	if !slices.Contains(a.patterns, p) {
		a.patterns = append(a.patterns, p)
	}
}

// verdict turns the findings into the line's Verdict: the first denied
// command in text order, else the first one that asks, else allow.
func (a *analyzer) verdict() Verdict {
	first := func(d Decision) (finding, bool) {
		var best finding
		found := false
		for _, f := range a.findings {
			if f.decision == d && (!found || f.pos < best.pos) {
				best, found = f, true
			}
		}
		return best, found
	}
	if f, ok := first(Deny); ok {
		return Verdict{Decision: Deny, Reason: f.message}
	}
	if f, ok := first(Ask); ok {
		return Verdict{Decision: Ask, Reason: f.message}
	}
	if len(a.allowed) == 0 {
		return Verdict{Decision: Allow, Reason: "nothing to run"}
	}
	return Verdict{Decision: Allow, Reason: "allowed: " + strings.Join(a.allowed, ", ")}
}

// walk visits every node of f, keeping the path from the root so that a
// command can tell where its standard input comes from.
func (a *analyzer) walk(sc *scope, f *syntax.File) {
	var stack []syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *syntax.Stmt:
			a.redirects(sc, n)
		case *syntax.CallExpr:
			a.call(sc, n, stack)
		case *syntax.DeclClause:
			a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` changes the shell's variables", sc.snippet(n)))
		case *syntax.ArithmCmd, *syntax.LetClause:
			a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` evaluates arithmetic that can change the shell's variables", sc.snippet(n)))
		case *syntax.FuncDecl:
			if forkBomb(n) {
				a.add(sc.pos(n), Deny, fmt.Sprintf("%s: %s", sc.snippet(n), reasonForkBomb))
				break
			}
			a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` defines a shell function", sc.snippet(n)))
		case *syntax.TestClause, *syntax.CoprocClause, *syntax.TestDecl:
			a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` is not on the allowlist", sc.snippet(n)))
		case *syntax.ForClause:
			a.loop(sc, n)
		case *syntax.ArithmExp, *syntax.ParamExp:
			a.expansion(sc, n)
		}
		return true
	})
}

// loop asks about loops that change more than a harmless loop variable.
func (a *analyzer) loop(sc *scope, n *syntax.ForClause) {
	switch l := n.Loop.(type) {
	case *syntax.CStyleLoop:
		a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` evaluates arithmetic that can change the shell's variables", sc.snippet(n)))
	case *syntax.WordIter:
		if riskyVariable(l.Name.Value) {
			a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` sets %s, which changes what commands run", sc.snippet(n), l.Name.Value))
		}
	}
}

// pos is a node's offset in its script.
func (sc *scope) pos(n syntax.Node) uint { return n.Pos().Offset() }

// snippet is a node's source for a reason: one line, at most 80 bytes.
func (sc *scope) snippet(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if end > uint(len(sc.src)) {
		end = uint(len(sc.src))
	}
	if start > end {
		start = end
	}
	return shorten(sc.src[start:end])
}

// shorten is a command as a reason quotes it: its first line (without a
// continuation backslash), at most 80 bytes, " …" marking either cut.
func shorten(s string) string {
	first, _, multi := strings.Cut(s, "\n")
	if multi {
		first = strings.TrimRight(first, " \t\\")
	}
	if clipped := text.Clip(first, 80); multi || clipped != first {
		return clipped + " …"
	}
	return s
}

// feed is where a command's standard input comes from, as far as running
// a program from it is concerned.
type feed int

const (
	feedNone feed = iota // the session's stdin (/dev/null) or a file
	feedPipe             // another command's output: a pipe or `< <(cmd)`
	feedData             // text in the line: a heredoc or here-string
)

// stdinFeed finds where the innermost statement on stack reads its
// standard input from: its own redirections decide, else being the right
// side of a pipe or inside `>(…)`, else its enclosing statement's.
func stdinFeed(stack []syntax.Node) feed {
	for i := len(stack) - 1; i >= 0; i-- {
		st, ok := stack[i].(*syntax.Stmt)
		if !ok {
			continue
		}
		if f, ok := redirectFeed(st); ok {
			return f
		}
		if i == 0 {
			break
		}
		switch p := stack[i-1].(type) {
		case *syntax.BinaryCmd:
			if (p.Op == syntax.Pipe || p.Op == syntax.PipeAll) && p.Y == st {
				return feedPipe
			}
		case *syntax.ProcSubst:
			if p.Op == syntax.CmdOut {
				return feedPipe
			}
		case *syntax.FuncDecl:
			return feedNone // known only where it is called
		}
	}
	return feedNone
}

// redirectFeed reports the feed a statement's own stdin redirection sets,
// if it has one; the last one wins, as in the shell.
func redirectFeed(st *syntax.Stmt) (feed, bool) {
	f, set := feedNone, false
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			f, set = feedData, true
		case syntax.RdrIn, syntax.RdrInOut:
			f, set = feedNone, true
			if resolveWord(r.Word).subst {
				f = feedPipe
			}
		case syntax.DplIn:
			f, set = feedNone, true
		}
	}
	return f, set
}

// redirects asks about output written to files: only /dev/null and the
// standard streams may be written by an allowed line.
func (a *analyzer) redirects(sc *scope, st *syntax.Stmt) {
	for _, r := range st.Redirs {
		w := resolveWord(r.Word)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			continue
		case syntax.RdrIn:
			if w.procSubst {
				continue // its commands are walked on their own
			}
			// bash reads the word after brace expansion (and fails on
			// more than one): each is judged.
			ws, problem := expandWords([]*syntax.Word{r.Word})
			for _, w := range ws {
				if problem == "" {
					problem = argumentProblem(w)
				}
				if problem == "" {
					problem = a.readProblem(w)
				}
			}
			if problem != "" {
				a.add(sc.pos(st), Ask, fmt.Sprintf("`%s` reads a file: %s", sc.snippet(st), problem))
			}
			continue
		case syntax.DplIn, syntax.DplOut:
			if w.known && (w.val == "-" || isDigits(w.val)) {
				continue
			}
		}
		if w.procSubst && len(r.Word.Parts) == 1 {
			continue // `> >(cmd)` writes to a command, which is walked
		}
		if w.known && harmlessTarget(w.val) {
			continue
		}
		if r.Op != syntax.DplIn && r.Op != syntax.DplOut && writesDevice(r.Word) {
			a.add(sc.pos(st), Deny, fmt.Sprintf("%s: %s", sc.snippet(st), reasonDisk))
			continue
		}
		if w.known && r.Op != syntax.DplIn && r.Op != syntax.DplOut && networkPath(path.Clean(w.val)) != "" {
			a.add(sc.pos(st), Ask, fmt.Sprintf("`%s` opens a network connection (%s)", sc.snippet(st), sc.snippet(r.Word)))
			continue
		}
		a.add(sc.pos(st), Ask, fmt.Sprintf("`%s` writes to %s", sc.snippet(st), sc.snippet(r.Word)))
	}
}

func harmlessTarget(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// call checks one simple command.
func (a *analyzer) call(sc *scope, c *syntax.CallExpr, stack []syntax.Node) {
	text := sc.snippet(c)
	pos := sc.pos(c)
	if len(c.Args) == 0 {
		a.add(pos, Ask, fmt.Sprintf("`%s` sets shell variables", text))
		return
	}
	words, problem := expandWords(c.Args)
	if problem != "" {
		// Asked about; the words as written still meet the deny groups.
		a.add(pos, Ask, fmt.Sprintf("`%s`: %s", text, problem))
		words = make([]word, len(c.Args))
		for i, w := range c.Args {
			words[i] = resolveWord(w)
		}
	}
	if len(words) == 0 {
		// Every word expanded to nothing: bash runs no command.
		a.add(pos, Ask, fmt.Sprintf("`%s` expands to no command", text))
		return
	}
	var env []string
	for _, as := range c.Assigns {
		if as.Index != nil || as.Array != nil || as.Append {
			a.add(pos, Ask, fmt.Sprintf("`%s` assigns to an array, which evaluates its subscripts", text))
			return
		}
		if as.Name != nil {
			env = append(env, as.Name.Value)
		}
	}
	c2 := cmdline{text: text, pos: pos, words: words, env: env, feed: stdinFeed(stack)}
	if c2.feed == feedPipe {
		if p := enclosingPipe(stack); p != nil {
			c2.pipeText, c2.pipePos = sc.snippet(p), sc.pos(p)
		}
	}
	a.command(sc, c2)
}

// enclosingPipe returns the pipeline a command on stack reads from, if any.
func enclosingPipe(stack []syntax.Node) *syntax.BinaryCmd {
	for i := len(stack) - 1; i > 0; i-- {
		if p, ok := stack[i-1].(*syntax.BinaryCmd); ok && (p.Op == syntax.Pipe || p.Op == syntax.PipeAll) && p.Y == stack[i] {
			return p
		}
	}
	return nil
}

// cmdline is a simple command to check: a CallExpr, or a command that
// find -exec runs.
type cmdline struct {
	text  string
	pos   uint
	words []word
	env   []string // variables set for it only (`FOO=1 cmd`)
	feed  feed
	// pipeText and pipePos name the pipeline that feeds it, for the reason
	// when what it does with its input is denied.
	pipeText string
	pipePos  uint
}

// command checks a simple command: deny groups over every command its
// wrappers run, then whether all of it may run without asking.
func (a *analyzer) command(sc *scope, c cmdline) {
	levels := unwrap(c.words, c.feed)
	for _, l := range levels {
		for _, s := range append(l.scripts, inlineScripts(l.words)...) {
			if s.subst {
				// Code that another command prints is as good as piped
				// into the interpreter: `bash -c "$(curl …)"`.
				a.add(c.pos, Deny, fmt.Sprintf("%s: %s", c.text, reasonPipe))
				return
			}
			if s.known && s.shell {
				a.nestedScript(sc, c.pos, c.text, s.val)
			}
		}
		if reason := a.denied(l); reason != "" {
			if reason == reasonPipe && c.pipeText != "" {
				a.add(c.pipePos, Deny, fmt.Sprintf("%s: %s", c.pipeText, reason))
			} else {
				a.add(c.pos, Deny, fmt.Sprintf("%s: %s", c.text, reason))
			}
			return
		}
	}

	// find -exec runs a command of its own.
	if last := levels[len(levels)-1].words; last[0].known && path.Base(last[0].val) == "find" {
		inner := *sc
		inner.nested = true // "Always" is offered for find, not what it runs
		for _, sub := range findCommands(last[1:]) {
			a.command(&inner, cmdline{text: c.text, pos: c.pos, words: sub})
		}
	}

	ask := func(format string, args ...any) {
		a.add(c.pos, Ask, fmt.Sprintf("`%s`", c.text)+fmt.Sprintf(format, args...))
	}
	clean := true // no wrapper keeps it from being allowed
	for i, l := range levels {
		env := l.env
		if i == 0 {
			env = append(slices.Clip(c.env), l.env...)
		}
		for _, v := range env {
			if riskyVariable(v) {
				ask(" sets %s, which changes what the command runs", v)
				return
			}
		}
		if l.never != "" {
			clean = false
		}
		if clean {
			for _, pat := range a.rules.allow {
				if matchPattern(pat, l.words) {
					if p := a.secretArgument(l.words[1:]); p != "" {
						ask(": %s", p)
						return
					}
					a.allow(strings.Join(pat, " ") + " (configured)")
					return
				}
			}
		}
		if l.never != "" {
			ask(": %s", l.never)
			return
		}
		if i < len(levels)-1 {
			continue
		}
		name := l.words[0]
		if !name.plain() {
			ask(": the command name is only known when it runs")
			return
		}
		label, problem := a.builtinAllowed(l.words)
		if problem == "" {
			a.allow(label)
			return
		}
		ask("%s", problem)
		if p, ok := patternFor(l.words); ok && !sc.nested {
			a.addPattern(p)
		}
	}
}

// secretMatch says why a pattern argument of a configured command could
// expand, from dir, to a file holding secrets, or "".
func (a *analyzer) secretMatch(w word, dir string) string {
	if !w.glob || w.pattern == "" {
		return ""
	}
	if secretPattern(w.pattern) {
		return fmt.Sprintf("`%s` is a pattern that can match files holding secrets", w.val)
	}
	if !a.disk() {
		return ""
	}
	r, err := expandGlob(dir, w.pattern)
	if err != nil {
		return fmt.Sprintf("`%s` is a pattern that cannot be checked: %v", w.val, err)
	}
	for _, m := range r.matches {
		m = path.Clean(m)
		if s := a.ws.secret(m); s != "" {
			return fmt.Sprintf("`%s` can match %s, which %s", w.val, a.ws.show(m), s)
		}
		if real := a.ws.resolve(m); real != m {
			if s := a.ws.secret(real); s != "" {
				return fmt.Sprintf("`%s` can match %s, which leads through a symlink to %s, which %s", w.val, a.ws.show(m), real, s)
			}
		}
	}
	return ""
}

// findCommands returns the commands find's -exec, -execdir, -ok and
// -okdir actions run, each up to its `;` or `+`.
func findCommands(args []word) [][]word {
	var cmds [][]word
	for i := 0; i < len(args); i++ {
		switch args[i].val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			if j > i+1 {
				cmds = append(cmds, args[i+1:j])
			}
			i = j
		}
	}
	return cmds
}

// patternFor is what "Always" remembers for a command: its name, plus its
// first argument when that is a plain word. It reports false for a name
// that would not read back as the same pattern.
func patternFor(words []word) (string, bool) {
	name := words[0]
	if !name.plain() || !patternWord(name.val, true) {
		return "", false
	}
	p := name.val
	if len(words) > 1 {
		if w := words[1]; w.plain() && patternWord(w.val, false) {
			p += " " + w.val
		}
	}
	return p, true
}

// patternWord reports whether s reads back as itself in a pattern and is
// the kind of word a pattern should hold: letters, digits and ._+:@%-, not
// starting with a dash; a command name may also hold slashes.
func patternWord(s string, name bool) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("._+:@%-", c) >= 0:
		case c == '/' && name:
		default:
			return false
		}
	}
	return true
}

// secretArgument says why a command allowed by a configured pattern, whose
// arguments are otherwise the user's choice, would read secrets or open a
// connection: an argument naming such a file, or "".
func (a *analyzer) secretArgument(args []word) string {
	if len(a.findings) > 0 {
		return "" // the line asks already: another reason, later in it, changes nothing
	}
	for _, w := range args {
		if !w.known || w.val == "" || strings.HasPrefix(w.val, "-") && !strings.Contains(w.val, "=") {
			continue
		}
		v := w.val
		if _, after, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
			v = after
		}
		if rest, ok := strings.CutPrefix(v, "~/"); ok && w.tilde && a.ws.home != "" {
			v = path.Join(a.ws.home, rest)
		}
		for _, dir := range a.dirs {
			if s := a.secretMatch(w, dir); s != "" {
				return s
			}
			p := v
			if !path.IsAbs(p) {
				p = path.Join(dir, p)
			}
			p = path.Clean(p)
			if s := networkPath(p); s != "" {
				return fmt.Sprintf("`%s` %s", w.val, s)
			}
			if s := a.ws.secret(p); s != "" {
				return fmt.Sprintf("`%s` %s", w.val, s)
			}
			if !a.disk() {
				continue
			}
			if real := a.ws.resolve(p); real != p {
				if s := a.ws.secret(real); s != "" {
					return fmt.Sprintf("`%s` leads through a symlink to %s, which %s", w.val, real, s)
				}
			}
		}
	}
	return ""
}
