package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// An allowed command reads only inside the workspace, and no secret in it
// (secrets.go). Where a relative path points depends on the shell's
// current directory, which the caller passes to CheckIn and which a `cd`
// in the line moves: every directory the shell may be in at a command
// (the one it started the line in and each `cd` target before it, in text
// order, whether or not that `cd` ran) must keep the path inside. A
// command that reads while the shell may be outside the workspace asks,
// whatever its arguments, since it reads its current directory.
//
// On disk, a path is judged twice: as written, and with its symlinks
// resolved (a repository can ship `notes.txt -> ~/.ssh/id_rsa`); a glob is
// expanded (Go's filepath.Glob matches a superset of what bash's does by
// default, dotfiles included) and every match judged. Paths that do not
// exist are judged as written: the command fails on them.

// maxGlobMatches bounds the files a pattern may match and still be
// checked one by one; beyond it the command asks.
const maxGlobMatches = 256

// unknownRoot stands for the workspace when the configuration names none:
// relative paths stay inside it and every absolute path is outside.
const unknownRoot = "/\x00workspace"

// workspace is where the checked lines run. It does not change after New.
type workspace struct {
	root     string // clean and absolute
	rootReal string // root with its symlinks resolved
	home     string // the user's home directory; "" if unknown
	homeReal string
	// onDisk reports a real root: symlinks and globs are resolved, and
	// repositories' config read.
	onDisk bool
	// cdpath reports CDPATH in the environment the shell inherits: bash
	// then looks for `cd NAME` in its directories first.
	cdpath bool
	// gitUserConfig are the user-level and system config files git reads
	// (gitconfig.go).
	gitUserConfig []string
}

func newWorkspace(root, home string) (workspace, error) {
	ws := workspace{root: unknownRoot, rootReal: unknownRoot, cdpath: os.Getenv("CDPATH") != ""}
	if root != "" {
		if !filepath.IsAbs(root) {
			return workspace{}, fmt.Errorf("workspace root %q is not an absolute path: give the folder as an absolute path", root)
		}
		ws.root, ws.rootReal, ws.onDisk = filepath.Clean(root), filepath.Clean(root), true
		if r, err := filepath.EvalSymlinks(ws.root); err == nil {
			ws.rootReal = r
		}
	}
	if home == "" {
		home, _ = os.UserHomeDir() // unknown: only ~ itself is caught
	}
	if home != "" && filepath.IsAbs(home) {
		ws.home, ws.homeReal = filepath.Clean(home), filepath.Clean(home)
		if r, err := filepath.EvalSymlinks(ws.home); err == nil {
			ws.homeReal = r
		}
	}
	ws.gitUserConfig = gitUserConfigFiles(ws.home)
	return ws, nil
}

// inside reports whether a clean absolute path is in the workspace.
func (ws *workspace) inside(p string) bool {
	return within(p, ws.root) || within(p, ws.rootReal)
}

func within(p, dir string) bool {
	return p == dir || dir == "/" || len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// show is a path for a reason: relative to the workspace when inside it.
func (ws *workspace) show(p string) string {
	for _, r := range []string{ws.root, ws.rootReal} {
		if p == r {
			return "the workspace"
		}
		if rel, ok := strings.CutPrefix(p, r+"/"); ok {
			return rel
		}
	}
	return p
}

// secret says why a clean absolute path may hold secrets, or "". The
// home directory's dotfiles do not count inside a workspace that is one
// of them (the user opened ~/.dotfiles), unless it is the home itself.
func (ws *workspace) secret(p string) string {
	home, homeReal := ws.home, ws.homeReal
	if ws.inside(p) && ws.root != ws.home && ws.rootReal != ws.homeReal {
		home, homeReal = "", ""
	}
	if s := secretPath(p, home); s != "" {
		return s
	}
	if homeReal != home {
		return secretPath(p, homeReal)
	}
	return ""
}

// place says why reading the clean absolute path p, which the command
// was given as v, needs approval, or "". Without disk, symlinks are not
// resolved.
func (ws *workspace) place(v, p string, disk bool) string {
	if s := networkPath(p); s != "" {
		return fmt.Sprintf("`%s` %s", v, s)
	}
	if s := ws.secret(p); s != "" {
		return fmt.Sprintf("`%s` %s", v, s)
	}
	if !ws.inside(p) {
		return fmt.Sprintf("`%s` is outside the workspace", v)
	}
	if !disk {
		return ""
	}
	real := ws.resolve(p)
	if real == p {
		return ""
	}
	if s := ws.secret(real); s != "" {
		return fmt.Sprintf("`%s` leads through a symlink to %s, which %s", v, real, s)
	}
	if !ws.inside(real) {
		return fmt.Sprintf("`%s` leads through a symlink to %s, outside the workspace", v, real)
	}
	return ""
}

// resolve returns the clean absolute path p with its symlinks resolved
// (p itself off disk, or when a part of it is missing: the command fails
// on it). Below the workspace folder it costs one lstat per part, and
// stops at the first missing one.
func (ws *workspace) resolve(p string) string {
	if !ws.onDisk {
		return p
	}
	if p == ws.root {
		return ws.rootReal
	}
	rel, ok := strings.CutPrefix(p, ws.root+"/")
	if !ok || ws.root == "/" {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		return p
	}
	cur := ws.rootReal
	for part := range strings.SplitSeq(rel, "/") {
		next := cur + "/" + part
		fi, err := os.Lstat(next)
		if err != nil {
			return p
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				return real
			}
			return p
		}
		cur = next
	}
	if ws.rootReal == ws.root {
		return p
	}
	return cur
}

// networkPath reports bash's pseudo-files that open connections.
func networkPath(p string) string {
	if within(p, "/dev/tcp") || within(p, "/dev/udp") {
		return "opens a network connection"
	}
	return ""
}

// harmlessRead reports what any command may read: its standard input and
// the devices that hold no data.
func harmlessRead(v string) bool {
	switch path.Clean(v) {
	case "-", "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/fd/0":
		return true
	}
	return false
}

// readProblem says why a command may not read w (a path after quote
// removal, relative to the shell's current directory) without asking, or
// "". An unquoted pattern is judged as written and by what bash would
// expand it to (globs.go).
func (a *analyzer) readProblem(w word) string {
	v := w.val
	glob := w.glob && w.pattern != ""
	if !glob && harmlessRead(v) {
		return ""
	}
	if a.dirsLost && !path.IsAbs(v) {
		return fmt.Sprintf("`%s` is read by a command that %s", v, lostDirs)
	}
	for _, dir := range a.dirs {
		p := v
		if !path.IsAbs(p) {
			p = path.Join(dir, p)
		}
		p = path.Clean(p)
		if s := a.ws.place(v, p, a.disk()); s != "" {
			return s
		}
		if !glob {
			continue
		}
		if s := a.globProblem(v, dir, w.pattern); s != "" {
			return s
		}
	}
	return ""
}

// globProblem judges the pattern pat (written v) from dir: by what its
// last element could match by name, then each file it matches on disk.
func (a *analyzer) globProblem(v, dir, pat string) string {
	if secretPattern(pat) {
		return fmt.Sprintf("`%s` is a pattern that can match files holding secrets", v)
	}
	if !a.disk() {
		return ""
	}
	r, err := expandGlob(dir, pat)
	if err != nil {
		return fmt.Sprintf("`%s` is a pattern that cannot be checked: %v", v, err)
	}
	if r.dots {
		return fmt.Sprintf("`%s` can match `..`", v)
	}
	for _, m := range r.matches {
		if s := a.ws.place(v, path.Clean(m), true); s != "" {
			return s
		}
	}
	return ""
}

// listProblem says why printing the names a pattern matches (echo's
// arguments) needs approval: bash reads a directory outside the workspace
// or one that holds secrets to expand it, or "".
func (a *analyzer) listProblem(w word) string {
	if !w.glob {
		return ""
	}
	v := w.val
	if w.pattern == "" {
		return fmt.Sprintf("`%s` is a pattern with an expansion, whose matches are only known when it runs", v)
	}
	if w.tilde {
		return fmt.Sprintf("`%s` lists names in the home directory", v)
	}
	elems := patternElems(w.pattern)
	for i, e := range elems {
		last := i == len(elems)-1
		if !last && (e == ".." || hasGlobMeta(e) && mayMatchDots(e)) {
			return fmt.Sprintf("`%s` lists names outside the working directory", v)
		}
	}
	for _, dir := range a.dirs {
		// The directory before the first pattern element is read as written.
		lit := dir
		if strings.HasPrefix(w.pattern, "/") {
			lit = "/"
		}
		for _, e := range elems {
			if hasGlobMeta(e) {
				break
			}
			lit = path.Join(lit, unescapePattern(e))
		}
		if s := a.ws.place(v, lit, a.disk()); s != "" {
			return fmt.Sprintf("`%s` lists names in %s: %s", v, lit, s)
		}
		if !a.disk() {
			continue
		}
		r, err := expandGlob(dir, w.pattern)
		if err != nil {
			return fmt.Sprintf("`%s` is a pattern that cannot be checked: %v", v, err)
		}
		for _, d := range r.listed {
			if s := a.ws.place(v, path.Clean(d), true); s != "" {
				return s
			}
		}
	}
	return ""
}

// dirProblem says why the shell may be outside the workspace (or in a
// directory of secrets) for a command that reads its current directory.
func (a *analyzer) dirProblem() string {
	if a.dirsLost {
		return lostDirs
	}
	for _, dir := range a.dirs {
		s, ok := a.dirVerdicts[dir]
		if !ok {
			s = a.dirVerdict(dir)
			if a.dirVerdicts == nil {
				a.dirVerdicts = map[string]string{}
			}
			a.dirVerdicts[dir] = s
		}
		if s != "" {
			return s
		}
	}
	return ""
}

// dirVerdict judges one directory the shell may be in, as written and
// with its symlinks resolved.
func (a *analyzer) dirVerdict(dir string) string {
	real := dir
	if a.disk() {
		real = a.ws.resolve(dir)
	}
	for _, d := range []string{dir, real} {
		if s := a.ws.secret(d); s != "" {
			return fmt.Sprintf("runs in %s, which %s", a.ws.show(d), s)
		}
		if !a.ws.inside(d) {
			return fmt.Sprintf("runs in %s, outside the workspace", d)
		}
	}
	return ""
}

// disk reports whether checks that read the disk (symlinks, globs,
// repositories) are still worth their cost: they are skipped once the
// line already asks or is denied, since they could only find another
// reason to ask, later in the line than the one it gives.
func (a *analyzer) disk() bool {
	return a.ws.onDisk && len(a.findings) == 0
}

// maxDirs bounds the directories followed through a line's `cd`s: each
// relative `cd` may double them (it may or may not have run).
const maxDirs = 16

// lostDirs is the reason for a command that reads after the line changed
// directory more often than maxDirs can follow.
const lostDirs = "runs after more changes of directory than can be followed"

// changeDir follows a `cd` to target: every directory the shell may be
// in now includes it.
func (a *analyzer) changeDir(target string) {
	if a.dirsLost {
		return
	}
	var next []string
	for _, dir := range a.dirs {
		p := target
		if !path.IsAbs(p) {
			p = path.Join(dir, p)
		}
		next = append(next, path.Clean(p))
	}
	for _, p := range next {
		if !contains(a.dirs, p) {
			a.dirs = append(a.dirs, p)
		}
	}
	if len(a.dirs) > maxDirs {
		a.dirsLost = true
	}
}
