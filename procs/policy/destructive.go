package policy

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands that destroy what cannot be got back are refused, not put to
// the user: one click on a question worded like any other must not
// discard the work tree, kill every process, overwrite a disk or remove
// the crontab.
const (
	reasonDiscard  = "Discarding every uncommitted change is blocked. Use `git stash` to set changes aside, or restore specific files: `git restore <file>`."
	reasonDisk     = "Writing to disk devices and making file systems are blocked. Work on files, never on devices."
	reasonForkBomb = "A function that starts copies of itself (a fork bomb) is blocked: it exhausts the machine's processes."
	reasonCrontab  = "Removing the whole crontab is blocked. Use `crontab -l` to see it and edit specific entries instead."
)

// wholeTreeSpec reports a git pathspec naming the whole work tree.
func wholeTreeSpec(v string) bool {
	switch path.Clean(v) {
	case ".", ":/", ":/*", "*", ":", ":/.", ":(top)", ":(top).", ":(glob)*", ":(glob)**", "**":
		return true
	}
	return false
}

// checkoutDenied refuses `git checkout` and `git restore` of the whole
// work tree (`git checkout -- .`, `git restore .`), and forced checkouts
// and switches, which throw away every uncommitted change.
func checkoutDenied(sub string, rest []word) string {
	opts, operands := splitOptions(rest)
	switch sub {
	case "checkout", "switch":
		for _, o := range opts {
			if longPrefix(o, "force", 3) || longPrefix(o, "discard-changes", 3) || shortFlag(o, 'f', "bBcC") {
				return reasonDiscard
			}
		}
		if sub == "switch" {
			return ""
		}
	case "restore":
		staged, worktree := false, false
		for _, o := range opts {
			staged = staged || longPrefix(o, "staged", 3) || shortFlag(o, 'S', "s")
			worktree = worktree || longPrefix(o, "worktree", 3) || shortFlag(o, 'W', "s")
		}
		if staged && !worktree {
			return "" // only unstages
		}
	}
	for _, w := range operands {
		if wholeTreeSpec(w.val) {
			return reasonDiscard
		}
	}
	return ""
}

// killDenied refuses kill aimed at every process (-1) or at the shell's
// whole process group (0), with any signal.
func killDenied(args []word) string {
	i := 0
	if i < len(args) {
		switch v := args[i].val; {
		case v == "-s" || v == "-n":
			i += 2
		case v == "-l" || v == "-L":
			return ""
		case v != "--" && len(v) > 1 && v[0] == '-':
			i++ // the signal: -9, -KILL, -SIGKILL
		}
	}
	for ; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			continue
		}
		if v == "-1" || v == "0" || v == "-0" {
			return reasonKill
		}
	}
	return ""
}

// deviceWrite reports a path whose writing overwrites a device: anything
// under /dev but the streams and the null device (/dev/tcp and /dev/udp
// are connections, asked about apart).
func deviceWrite(p string) bool {
	p = path.Clean(p)
	if !within(p, "/dev") || networkPath(p) != "" {
		return false
	}
	switch {
	case harmlessTarget(p), p == "/dev/tty", within(p, "/dev/fd"), within(p, "/dev/pts"):
		return false
	}
	return true
}

// writesDevice reports a redirection target that is a device, after
// brace expansion (`> /dev/sd{a,}`).
func writesDevice(w *syntax.Word) bool {
	ws, _ := expandWords([]*syntax.Word{w})
	for _, r := range ws {
		if r.known && deviceWrite(r.val) {
			return true
		}
	}
	return false
}

// ddDenied refuses dd writing to a device (of=/dev/sda).
func ddDenied(args []word) string {
	for _, w := range args {
		if of, ok := strings.CutPrefix(w.val, "of="); ok && (!w.known || deviceWrite(of)) {
			return reasonDisk
		}
	}
	return ""
}

// makesFileSystem reports the programs that format or wipe a device.
func makesFileSystem(base string) bool {
	return strings.HasPrefix(base, "mkfs") || base == "mke2fs" || base == "mkswap" || base == "wipefs"
}

// crontabDenied refuses crontab -r, which removes every job.
func crontabDenied(args []word) string {
	for _, w := range args {
		if w.val == "--remove" || shortFlag(w.val, 'r', "u") {
			return reasonCrontab
		}
	}
	return ""
}

// mvDenied refuses moving the home directory, the root, the working
// directory or its parent, or a top-level directory, and moving anything
// onto /dev/null (which deletes it).
func mvDenied(args []word) string {
	var operands []word
	var target *word
	opts := true
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		switch {
		case opts && v == "--":
			opts = false
		case opts && (v == "-t" || v == "--target-directory") && i+1 < len(args):
			i++
			target = &args[i]
		case opts && strings.HasPrefix(v, "--target-directory="):
			target = &word{val: strings.TrimPrefix(v, "--target-directory="), known: w.known}
		case opts && strings.HasPrefix(v, "-t") && !strings.HasPrefix(v, "--"):
			target = &word{val: v[2:], known: w.known}
		case opts && len(v) > 1 && v[0] == '-':
		default:
			operands = append(operands, w)
		}
	}
	sources := operands
	if target == nil && len(operands) > 0 {
		target = &operands[len(operands)-1]
		sources = operands[:len(operands)-1]
	}
	if target != nil && target.known && path.Clean(target.val) == "/dev/null" {
		return reasonFile
	}
	for _, w := range sources {
		if topTree(w) {
			return reasonFile
		}
	}
	return ""
}

// topTree reports a path that is a whole tree nobody moves: ~, $HOME, /,
// ., .., or a directory right under /.
func topTree(w word) bool {
	v := w.val
	if w.tilde {
		rest := strings.TrimLeft(v[1:], "+-")
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[i:]
		} else {
			rest = ""
		}
		return strings.Trim(rest, "/") == ""
	}
	if w.leadingExpansion {
		return strings.Trim(v, "/") == "" // $HOME, "$HOME"/, ${DIR}
	}
	c := path.Clean(v)
	return c == "/" || c == "." || c == ".." || path.IsAbs(c) && path.Dir(c) == "/"
}

// findNarrowing are find's tests that pick some files out of the tree;
// -delete or an -exec rm without one of them empties it.
var findNarrowing = map[string]bool{
	"name": true, "iname": true, "path": true, "ipath": true, "wholename": true, "iwholename": true,
	"regex": true, "iregex": true, "lname": true, "ilname": true, "samefile": true, "inum": true,
	"empty": true, "newer": true, "anewer": true, "cnewer": true, "mtime": true, "mmin": true,
	"atime": true, "amin": true, "ctime": true, "cmin": true, "size": true, "user": true, "uid": true,
	"group": true, "gid": true, "perm": true, "links": true, "nouser": true, "nogroup": true, "used": true,
}

// removers are the commands that delete the files find hands them.
var removers = map[string]bool{"rm": true, "unlink": true, "shred": true, "rmdir": true}

// findDenied refuses a find that deletes a whole tree: -delete (or -exec
// rm and the like) with no test narrowing what it deletes, or from a
// start point that is a whole tree (/, ~, ..).
func findDenied(args []word) string {
	narrowed, deletes, wholeStart := false, false, false
	starts := true
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if len(v) < 2 || v[0] != '-' {
			if starts && v != "!" && v != "(" {
				wholeStart = wholeStart || topTree(args[i]) && path.Clean(v) != "."
			}
			continue
		}
		pred := v[1:]
		if pred != "H" && pred != "P" && pred != "L" && pred != "D" && !strings.HasPrefix(pred, "O") {
			starts = false
		}
		switch {
		case pred == "delete":
			deletes = true
		case pred == "exec" || pred == "execdir" || pred == "ok" || pred == "okdir":
			if i+1 < len(args) && args[i+1].known && removers[strings.ToLower(path.Base(args[i+1].val))] {
				deletes = true
			}
			for i+1 < len(args) && args[i+1].val != ";" && args[i+1].val != "+" {
				i++
			}
		case findNarrowing[pred] || newerXY(pred):
			narrowed = true
		}
	}
	if deletes && (!narrowed || wholeStart) {
		return reasonFile
	}
	return ""
}

// forkBomb reports a function whose body starts copies of itself, in a
// pipe or in the background: `:(){ :|:& };:`.
func forkBomb(fn *syntax.FuncDecl) bool {
	var names []string
	if fn.Name != nil {
		names = append(names, fn.Name.Value)
	}
	for _, n := range fn.Names {
		names = append(names, n.Value)
	}
	if len(names) == 0 || fn.Body == nil {
		return false
	}
	found := false
	var stack []syntax.Node
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		if found {
			return false
		}
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 || !slices.Contains(names, resolveWord(call.Args[0]).val) {
			return true
		}
		for _, s := range stack {
			switch s := s.(type) {
			case *syntax.BinaryCmd:
				if s.Op == syntax.Pipe || s.Op == syntax.PipeAll {
					found = true
				}
			case *syntax.Stmt:
				if s.Background || s.Coprocess {
					found = true
				}
			}
		}
		return true
	})
	return found
}
