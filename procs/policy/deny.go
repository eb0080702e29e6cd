package policy

import (
	"path"
	"strings"
)

// The deny groups' reasons are gptme's (research/gptme.md §7.4), so that a
// model trained on them knows what to do instead.
const (
	reasonBulkGit = "Instead of bulk git operations, use selective commands: `git add <specific-files>` to stage only intended files, then `git commit`."
	reasonGit     = "Destructive git operations are blocked. Use safer alternatives: `git stash` to save changes, `git reset --soft` to uncommit without losing changes, `git push --force-with-lease` for safer force pushes."
	reasonFile    = "Destructive file operations are blocked. Specify exact paths and avoid operations that could delete system files or entire directories."
	reasonChmod   = "Overly permissive chmod operations are blocked. Use safer permissions like `chmod 755` or `chmod 644` and be specific about target files."
	reasonKill    = "Killing processes indiscriminately is blocked. Use `ps aux | grep <process-name>` to find specific PIDs and `kill <PID>` to terminate them safely."
	reasonPipe    = "Piping to shell interpreters or script execution is blocked. This pattern can execute arbitrary code and is a security risk."
	reasonConfig  = "denied by configuration"
)

// denied returns the reason a command (one level of a wrapper chain) is
// refused, or "".
func (a *analyzer) denied(l level) string {
	for _, pat := range a.rules.deny {
		if matchDenyPattern(pat, l.words) {
			return reasonConfig
		}
	}
	name := l.words[0]
	if !name.known {
		return ""
	}
	// Names are compared by base name and without case: /bin/rm is rm, and
	// on a case-insensitive file system RM is too.
	args := l.words[1:]
	switch base := strings.ToLower(path.Base(name.val)); base {
	case "git":
		return gitDenied(args)
	case "rm":
		return rmDenied(args)
	case "chmod":
		return chmodDenied(args)
	case "pkill", "killall":
		return reasonKill
	case "kill":
		return killDenied(args)
	case "dd":
		return ddDenied(args)
	case "crontab":
		return crontabDenied(args)
	case "mv":
		return mvDenied(args)
	case "find":
		return findDenied(args)
	case "source", ".":
		if len(args) > 0 && (args[0].procSubst || l.feed != feedNone && stdinPath(args[0].val)) {
			return reasonPipe
		}
	default:
		if makesFileSystem(base) {
			return reasonDisk
		}
		if fam := interpreterFamily(base); fam != "" {
			return interpreterDenied(fam, args, l.feed)
		}
	}
	return ""
}

// gitDenied covers bulk staging and destructive git commands.
func gitDenied(args []word) string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].val, "-") {
		switch args[i].val {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix":
			i++ // the option's value
		}
		i++
	}
	if i >= len(args) {
		return ""
	}
	sub, rest := args[i].val, args[i+1:]
	opts, operands := splitOptions(rest)
	switch sub {
	case "add":
		for _, o := range opts {
			if o == "--all" || shortFlag(o, 'A', "") {
				return reasonBulkGit
			}
		}
		for _, w := range operands {
			switch path.Clean(w.val) {
			case ".", ":/", ":/*", "*":
				return reasonBulkGit
			}
		}
	case "commit":
		for _, o := range commitOptions(rest) {
			if longPrefix(o, "all", 2) || shortFlag(o, 'a', "mFcCtSu") {
				return reasonBulkGit
			}
		}
	case "reset":
		for _, o := range opts {
			if longPrefix(o, "hard", 2) {
				return reasonGit
			}
		}
	case "clean":
		force, dry := false, false
		for _, o := range opts {
			switch {
			case longPrefix(o, "dry-run", 2) || shortFlag(o, 'n', "e"):
				dry = true
			case longPrefix(o, "force", 1) || shortFlag(o, 'f', "e") || shortFlag(o, 'd', "e") || shortFlag(o, 'x', "e") || shortFlag(o, 'X', "e"):
				force = true
			}
		}
		if force && !dry {
			return reasonGit
		}
	case "push":
		for _, o := range opts {
			if o == "--force" || shortFlag(o, 'f', "o") {
				return reasonGit
			}
		}
		for _, w := range operands {
			if strings.HasPrefix(w.val, "+") {
				return reasonGit // a forced refspec
			}
		}
	case "checkout", "restore", "switch":
		return checkoutDenied(sub, rest)
	case "reflog":
		if len(operands) > 0 && operands[0].val == "expire" {
			return reasonGit
		}
	case "filter-branch":
		return reasonGit
	}
	return ""
}

// commitValued are git commit's options whose value may be the next word:
// `git commit -m '-a is …'` is a message, not -a.
var commitValued = map[string]bool{
	"-m": true, "-F": true, "-c": true, "-C": true, "-t": true,
	"--message": true, "--file": true, "--reuse-message": true, "--reedit-message": true,
	"--template": true, "--author": true, "--date": true, "--fixup": true, "--squash": true,
	"--trailer": true, "--cleanup": true, "--pathspec-from-file": true,
}

// commitOptions are git commit's options before `--`, without the words
// that are the values of others.
func commitOptions(args []word) []string {
	var opts []string
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			break
		}
		if len(v) < 2 || v[0] != '-' {
			continue
		}
		opts = append(opts, v)
		if commitValued[v] {
			i++ // its value, whatever it looks like
		}
	}
	return opts
}

// splitOptions separates the dash words before `--` from the other words.
func splitOptions(ws []word) (opts []string, operands []word) {
	for i, w := range ws {
		if w.val == "--" {
			return opts, append(operands, ws[i+1:]...)
		}
		if len(w.val) > 1 && w.val[0] == '-' {
			opts = append(opts, w.val)
		} else {
			operands = append(operands, w)
		}
	}
	return opts, operands
}

// shortFlag reports whether o is a bundle of short flags (-xyz) holding c
// before any flag in valued, whose value is the rest of the word.
func shortFlag(o string, c byte, valued string) bool {
	if len(o) < 2 || o[0] != '-' || o[1] == '-' {
		return false
	}
	for i := 1; i < len(o); i++ {
		if o[i] == c {
			return true
		}
		if strings.IndexByte(valued, o[i]) >= 0 {
			return false
		}
	}
	return false
}

// longPrefix reports whether o is --name or an abbreviation of it at least
// min letters long, as GNU and git option parsers accept.
func longPrefix(o, name string, min int) bool {
	o, _, _ = strings.Cut(o, "=")
	if !strings.HasPrefix(o, "--") {
		return false
	}
	o = o[2:]
	return len(o) >= min && strings.HasPrefix(name, o)
}

// rmDenied refuses a forced recursive rm of a whole tree: /, any absolute
// path, the home directory, the working directory, its parent, or all of
// its entries.
func rmDenied(args []word) string {
	recursive, force := false, false
	var operands []word
	opts := true
	for _, w := range args {
		v := w.val
		switch {
		case opts && v == "--":
			opts = false
		case opts && strings.HasPrefix(v, "--"):
			recursive = recursive || longPrefix(v, "recursive", 1)
			force = force || longPrefix(v, "force", 1)
		case opts && len(v) > 1 && v[0] == '-':
			recursive = recursive || strings.ContainsAny(v, "rR")
			force = force || strings.Contains(v, "f")
		default:
			operands = append(operands, w)
		}
	}
	if !recursive || !force {
		return ""
	}
	for _, w := range operands {
		if wholeTree(w) {
			return reasonFile
		}
	}
	return ""
}

// wholeTree reports whether an rm operand names a tree that is not the
// project's to delete, or may expand to one.
func wholeTree(w word) bool {
	if w.leadingExpansion || w.tilde {
		return true // $HOME, $DIR/ (empty DIR: /), ~
	}
	v := w.val
	if strings.HasPrefix(v, "/") {
		return true
	}
	if w.brace && (strings.Contains(v, "{/") || strings.Contains(v, ",/") || strings.Contains(v, "~") || strings.Contains(v, "..")) {
		return true
	}
	c := path.Clean(v)
	return c == "." || c == ".." || strings.HasPrefix(c, "../") || c == "*" || c == ".*"
}

// chmodDenied refuses modes that make files writable by everyone: 777 in
// any form, and symbolic modes giving others write access.
func chmodDenied(args []word) string {
	for _, w := range args {
		v := w.val
		if v == "--" {
			break
		}
		if len(v) >= 3 && len(v) <= 4 && isOctal(v) && strings.HasSuffix(v, "777") {
			return reasonChmod
		}
		if worldWritable(v) {
			return reasonChmod
		}
	}
	return ""
}

func isOctal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// worldWritable reports whether a symbolic mode such as a+rwx or o+w gives
// others write access.
func worldWritable(mode string) bool {
	for _, clause := range strings.Split(mode, ",") {
		rest := strings.TrimLeft(clause, "ugoa")
		if who := clause[:len(clause)-len(rest)]; !strings.ContainsAny(who, "ao") {
			continue
		}
		// The rest is a list of actions: [-+=] and the permissions after it.
		for rest != "" && strings.IndexByte("+-=", rest[0]) >= 0 {
			op, perms := rest[0], rest[1:]
			end := strings.IndexAny(perms, "+-=")
			if end < 0 {
				end = len(perms)
			}
			if op != '-' && strings.Contains(perms[:end], "w") {
				return true
			}
			rest = perms[end:]
		}
	}
	return false
}

// stdinPath reports whether a script path is the standard input.
func stdinPath(p string) bool {
	switch p {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// interpreterFamily names the kind of interpreter a command is, or "".
func interpreterFamily(base string) string {
	switch base {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash":
		return "shell"
	case "perl", "ruby", "node", "nodejs":
		return base
	}
	if v, ok := strings.CutPrefix(base, "python"); ok && strings.Trim(v, "0123456789.") == "" {
		return "python"
	}
	return ""
}

// interpreterArgs is what an interpreter's arguments say about where its
// program comes from.
type interpreterArgs struct {
	inline *word // -c CODE, -e CODE
	script *word // the script file operand
	stdin  bool  // told to read the program from stdin (sh -s)
	module bool  // python -m: runs an installed module
}

// interpreterOptions says how one kind of interpreter takes its program.
type interpreterOptions struct {
	inline     string   // short options whose value is the program
	shellStyle bool     // sh: -c makes the first operand the program
	value      string   // short options with a value, in the same word or the next
	stuck      string   // short options whose value can only be in the same word
	module     string   // short option that runs a module instead
	stdin      string   // short option that reads the program from stdin
	longInline []string // long options whose value is the program
	longValue  []string // long options whose value may be the next word
}

var interpreters = map[string]interpreterOptions{
	"shell":  {shellStyle: true, inline: "c", value: "oO", stdin: "s", longValue: []string{"rcfile", "init-file"}},
	"python": {inline: "c", module: "m", value: "WX", longValue: []string{"check-hash-based-pycs"}},
	"perl":   {inline: "eE", stuck: "0CdDFiIlmMx"},
	"ruby":   {inline: "e", stuck: "0CEFiIKlrTWx"},
	"node":   {inline: "ep", value: "r", longInline: []string{"eval", "print"}, longValue: []string{"require", "import", "loader", "input-type", "conditions"}},
	"nodejs": {inline: "ep", value: "r", longInline: []string{"eval", "print"}, longValue: []string{"require", "import", "loader", "input-type", "conditions"}},
}

// parseInterpreter reads an interpreter's options far enough to know where
// its program comes from. Unknown options are taken to have no value.
func parseInterpreter(fam string, args []word) interpreterArgs {
	o := interpreters[fam]
	var r interpreterArgs
	wantInline := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		if v == "--" || v == "-" || len(v) < 2 || (v[0] != '-' && !(o.shellStyle && v[0] == '+')) || !w.known {
			if v == "--" {
				i++
				if i == len(args) {
					break
				}
			}
			if wantInline {
				r.inline = &args[i]
			} else if !r.module {
				r.script = &args[i]
			}
			return r
		}
		if strings.HasPrefix(v, "--") {
			long, val, hasValue := strings.Cut(v[2:], "=")
			switch {
			case contains(o.longInline, long) && hasValue:
				r.inline = &word{val: val, known: true}
				return r
			case contains(o.longInline, long) && i+1 < len(args):
				r.inline = &args[i+1]
				return r
			case contains(o.longValue, long) && !hasValue:
				i++
			}
			continue
		}
	bundle:
		for j := 1; j < len(v); j++ {
			c := v[j : j+1]
			switch {
			case strings.Contains(o.inline, c) && o.shellStyle:
				wantInline = true
			case strings.Contains(o.inline, c):
				if j+1 < len(v) {
					r.inline = &word{val: v[j+1:], known: true}
				} else if i+1 < len(args) {
					r.inline = &args[i+1]
				}
				return r
			case strings.Contains(o.module, c):
				r.module = true
				return r
			case strings.Contains(o.stdin, c):
				r.stdin = true
			case strings.Contains(o.value, c):
				if j+1 == len(v) {
					i++
				}
				break bundle
			case strings.Contains(o.stuck, c):
				break bundle
			}
		}
	}
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// interpreterDenied refuses an interpreter that reads its program from
// another command's output (`curl … | bash`, `bash < <(curl …)`,
// `sh <(curl …)`), and a shell reading a script from a heredoc, whose
// commands would otherwise pass as data.
func interpreterDenied(fam string, args []word, f feed) string {
	r := parseInterpreter(fam, args)
	if r.inline != nil || r.module {
		return "" // inline code is checked by inlineScripts
	}
	if r.script != nil {
		if r.script.procSubst {
			return reasonPipe
		}
		if !stdinPath(r.script.val) && !r.stdin {
			return ""
		}
	}
	if f == feedPipe || f == feedData && fam == "shell" {
		return reasonPipe
	}
	return ""
}

// inlineScripts returns the code a command runs from its arguments: a
// shell's -c script, eval's arguments, trap's action, and other
// interpreters' -c/-e code (which is only looked at for substitutions).
func inlineScripts(words []word) []script {
	name := words[0]
	if !name.known {
		return nil
	}
	args := words[1:]
	switch base := strings.ToLower(path.Base(name.val)); base {
	case "eval":
		s := script{known: true, shell: true}
		var vals []string
		for _, w := range args {
			vals = append(vals, w.val)
			s.known = s.known && w.known
			s.subst = s.subst || w.subst
		}
		s.val = strings.Join(vals, " ")
		return []script{s}
	case "trap":
		for i, w := range args {
			if w.val == "--" {
				continue
			}
			if i == 0 && (w.val == "-p" || w.val == "-l" || w.val == "-P") {
				return nil
			}
			if w.val == "-" {
				return nil // resets the traps
			}
			return []script{scriptOf(w, true)}
		}
	default:
		if fam := interpreterFamily(base); fam != "" {
			if r := parseInterpreter(fam, args); r.inline != nil {
				return []script{scriptOf(*r.inline, fam == "shell")}
			}
		}
	}
	return nil
}
