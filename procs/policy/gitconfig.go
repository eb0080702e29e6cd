package policy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// A repository's own configuration can make read-only git commands run
// programs: `core.fsmonitor = "cmd"` runs cmd on every `git status`,
// `diff.<driver>.textconv` (with a .gitattributes line naming the driver)
// on `git diff`, `git log -p` and `git show`, a clean filter on `git
// status`, a post-index-change hook whenever status refreshes the index.
// The model can write .git/config (one edit) and a hostile repository can
// ship one (a tarball, a `.git` file pointing elsewhere, a bare repository
// in a subdirectory), so an allowlisted git command asks, naming the key,
// when the configuration git would read for it sets any key that runs a
// program, points git at another work tree or reaches the network; or when
// the repository has hooks. Read are: the repository's config, the
// worktree's config.worktree, every file they include (include.path and
// includeIf.*.path, whatever the condition), and the same for each
// submodule (.gitmodules paths and .git/modules).
//
// The user's own config (~/.gitconfig, $XDG_CONFIG_HOME/git/config or
// $GIT_CONFIG_GLOBAL; /etc/gitconfig or $GIT_CONFIG_SYSTEM) is read too,
// with their includes: a model that saved ~/.gitconfig (a home folder
// opened as the workspace) or a program that wrote it would otherwise
// have the next `git diff` run its diff.external. There only the keys
// that make an allowed, read-only git command run a program on its own
// count (userRiskyGitKey): diff.external, diff drivers' textconv and
// command, filters but git-lfs's own, a core.fsmonitor hook, a
// core.hooksPath holding post-index-change, promisor remotes. The rest,
// which users set for themselves (pager, editor, credential helpers,
// signing programs, aliases), cannot run under a read-only command in
// the agent's shell: no pager without a terminal, no editor, no network,
// and log.showSignature is pinned off by procs/shell.
//
// Files are read once per Check at most, and parsed again only when their
// size or modification time changed (repoCache).

// maxIncludeDepth bounds include chains, as git's own limit does.
const maxIncludeDepth = 10

// repoCache keeps parsed config files by path across checks.
type repoCache struct {
	mu    sync.Mutex
	files map[string]configFile
}

// configFile is what one config file says, as of its size and mtime.
type configFile struct {
	size    int64
	mod     time.Time
	missing bool
	// risky are "key: why" for each key that makes git run a program or
	// look elsewhere; includes are the files it pulls in (absolute).
	risky    []string
	includes []string
	// submodulePaths are the `path` values of a .gitmodules file.
	submodulePaths []string
	// userRisky are "key: why" for each key that makes a read-only git
	// command run a program when a user-level config sets it; hooksPaths
	// are its core.hooksPath values.
	userRisky  []string
	hooksPaths []string
	err        error
}

func newRepoCache() *repoCache { return &repoCache{files: map[string]configFile{}} }

// load returns the parsed file at p, reading it only if it changed.
func (c *repoCache) load(p, home string) configFile {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return configFile{missing: true}
		}
		return configFile{err: err}
	}
	c.mu.Lock()
	cf, ok := c.files[p]
	c.mu.Unlock()
	if ok && !cf.missing && cf.size == fi.Size() && cf.mod.Equal(fi.ModTime()) {
		return cf
	}
	cf = parseConfigFile(p, home)
	cf.size, cf.mod = fi.Size(), fi.ModTime()
	c.mu.Lock()
	c.files[p] = cf
	c.mu.Unlock()
	return cf
}

// repoChecks is one Check's view of the repositories its git commands run
// in: each directory is judged once.
type repoChecks struct {
	cache *repoCache
	ws    *workspace
	byDir map[string]string
	// user is the verdict on the user's and the system's config, once
	// userDone.
	user     string
	userDone bool
}

func newRepoChecks(c *repoCache, ws *workspace) *repoChecks {
	return &repoChecks{cache: c, ws: ws, byDir: map[string]string{}}
}

// repositoryProblem says why git may run a program in any directory the
// shell may be in (after git's -C), or "".
func (a *analyzer) repositoryProblem() string {
	if a.repos == nil || !a.ws.onDisk {
		return "no workspace folder is known, so the repository's config cannot be checked"
	}
	if !a.disk() {
		return "" // the line asks already
	}
	if !a.repos.userDone {
		a.repos.user, a.repos.userDone = a.repos.userProblem(), true
	}
	if a.repos.user != "" {
		return a.repos.user
	}
	for _, dir := range a.dirs {
		p, ok := a.repos.byDir[dir]
		if !ok {
			p = a.repos.check(dir)
			a.repos.byDir[dir] = p
		}
		if p != "" {
			return p
		}
	}
	return ""
}

// check finds the repository git would use in dir and judges its
// configuration.
func (r *repoChecks) check(dir string) string {
	gitDir, workTree, err := discoverRepo(dir)
	if err != nil {
		return fmt.Sprintf("the repository cannot be checked: %v", err)
	}
	if gitDir == "" {
		return "" // not a repository: git fails
	}
	if p := r.gitDirProblem(gitDir); p != "" {
		return p
	}
	if workTree == "" {
		return ""
	}
	// Submodules: git status and diff run git in each of them.
	modules := r.cache.load(filepath.Join(workTree, ".gitmodules"), r.ws.home)
	if modules.err != nil {
		return fmt.Sprintf("%s cannot be read: %v", r.show(filepath.Join(workTree, ".gitmodules")), modules.err)
	}
	for _, sub := range modules.submodulePaths {
		subDir := filepath.Join(workTree, sub)
		if !within(subDir, workTree) {
			continue
		}
		if g, _ := dotGit(subDir); g != "" {
			if p := r.gitDirProblem(g); p != "" {
				return p
			}
		}
	}
	return ""
}

// gitDirProblem judges one git directory: its config files and those of
// its common directory, their includes, its hooks, and the submodules
// kept inside it.
func (r *repoChecks) gitDirProblem(gitDir string) string {
	common := commonDir(gitDir)
	files := []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree")}
	if common != gitDir {
		files = append(files, filepath.Join(common, "config.worktree"))
	}
	for _, f := range files {
		if p := r.configProblem(f, 0); p != "" {
			return p
		}
	}
	if p := r.cache.hooksProblem(filepath.Join(common, "hooks"), r.show); p != "" {
		return p
	}
	subs, _ := filepath.Glob(filepath.Join(common, "modules", "*", "config"))
	nested, _ := filepath.Glob(filepath.Join(common, "modules", "*", "modules", "*", "config"))
	for _, f := range append(subs, nested...) {
		if p := r.configProblem(f, 0); p != "" {
			return p
		}
		if p := r.cache.hooksProblem(filepath.Join(filepath.Dir(f), "hooks"), r.show); p != "" {
			return p
		}
	}
	return ""
}

// configProblem judges one repository config file and what it includes.
func (r *repoChecks) configProblem(p string, depth int) string {
	return r.walkConfig(p, depth, func(p string, cf configFile) string {
		if len(cf.risky) > 0 {
			return fmt.Sprintf("%s sets %s", r.show(p), cf.risky[0])
		}
		return ""
	})
}

// userProblem judges the user-level and system config files git reads
// for every command (Config.Home's, the environment's), or "".
func (r *repoChecks) userProblem() string {
	for _, f := range r.ws.gitUserConfig {
		if p := r.walkConfig(f, 0, r.userConfigProblem); p != "" {
			return p
		}
	}
	return ""
}

// userConfigProblem judges one user-level config file (not its includes).
func (r *repoChecks) userConfigProblem(p string, cf configFile) string {
	if len(cf.userRisky) > 0 {
		return fmt.Sprintf("%s sets %s", r.show(p), cf.userRisky[0])
	}
	for _, h := range cf.hooksPaths {
		dir := includeTarget(h, "", r.ws.home)
		if !filepath.IsAbs(dir) {
			return fmt.Sprintf("%s sets core.hooksPath to the relative %s, whose hooks cannot be checked", r.show(p), h)
		}
		if _, err := os.Stat(filepath.Join(dir, "post-index-change")); err == nil {
			return fmt.Sprintf("%s sets core.hooksPath to %s, whose post-index-change hook git runs on its own (even on git status)", r.show(p), h)
		}
	}
	return ""
}

// walkConfig judges the config file p and, depth first, the files it
// includes, with judge; a file that is missing is no problem, one that
// cannot be read or nests too deeply is.
func (r *repoChecks) walkConfig(p string, depth int, judge func(p string, cf configFile) string) string {
	if depth > maxIncludeDepth {
		return fmt.Sprintf("%s nests includes too deeply to check", r.show(p))
	}
	cf := r.cache.load(p, r.ws.home)
	switch {
	case cf.missing:
		return ""
	case cf.err != nil:
		return fmt.Sprintf("%s cannot be checked: %v", r.show(p), cf.err)
	}
	if s := judge(p, cf); s != "" {
		return s
	}
	for _, inc := range cf.includes {
		if s := r.walkConfig(inc, depth+1, judge); s != "" {
			return s
		}
	}
	return ""
}

// gitUserConfigFiles are the user-level and system config files git reads
// with this environment and home directory: $GIT_CONFIG_SYSTEM or the
// system files where git is installed (unless GIT_CONFIG_NOSYSTEM), then
// $GIT_CONFIG_GLOBAL, or the XDG file and ~/.gitconfig.
func gitUserConfigFiles(home string) []string {
	var files []string
	if v := os.Getenv("GIT_CONFIG_NOSYSTEM"); v == "" || gitFalse(v) {
		if sys := os.Getenv("GIT_CONFIG_SYSTEM"); sys != "" {
			files = append(files, sys)
		} else {
			// The system's files are root's: only those there now count
			// (a model cannot add one without an approved sudo).
			for _, f := range systemGitConfigs() {
				if _, err := os.Stat(f); err == nil {
					files = append(files, f)
				}
			}
		}
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		return append(files, g)
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// systemGitConfigs are where git's system config is: $(prefix)/etc/gitconfig
// for the prefixes git is installed under (a distribution's /usr, which
// reads /etc/gitconfig; /usr/local; Homebrew's).
func systemGitConfigs() []string {
	if runtime.GOOS == "darwin" {
		return []string{"/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"}
	}
	return []string{"/etc/gitconfig", "/usr/local/etc/gitconfig"}
}

// show is a file for a reason: relative to the workspace when inside it.
func (r *repoChecks) show(p string) string { return r.ws.show(p) }

// hooksProblem reports a hook in dir: any file but git's samples. The
// listing is kept while the directory's mtime is unchanged (adding,
// removing or renaming a hook changes it).
func (c *repoCache) hooksProblem(dir string, show func(string) string) string {
	fi, err := os.Stat(dir)
	if err != nil {
		return ""
	}
	key := dir + string(filepath.Separator) // never a config file's path
	c.mu.Lock()
	cf, ok := c.files[key]
	c.mu.Unlock()
	if ok && cf.mod.Equal(fi.ModTime()) {
		if len(cf.risky) == 0 {
			return ""
		}
		return cf.risky[0]
	}
	cf = configFile{mod: fi.ModTime()}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".sample") {
			cf.risky = []string{fmt.Sprintf("the repository has the hook %s, which git runs on its own (post-index-change even on git status)", show(filepath.Join(dir, e.Name())))}
			break
		}
	}
	c.mu.Lock()
	c.files[key] = cf
	c.mu.Unlock()
	if len(cf.risky) == 0 {
		return ""
	}
	return cf.risky[0]
}

// discoverRepo finds the git directory git would use in dir, as git does:
// walking up, at each level a `.git` directory or file, else the level
// itself when it is a bare repository. workTree is "" for a bare one.
func discoverRepo(dir string) (gitDir, workTree string, err error) {
	for d := filepath.Clean(dir); ; {
		g, err := dotGit(d)
		if err != nil {
			return "", "", err
		}
		if g != "" {
			return g, d, nil
		}
		if isGitDir(d) {
			return d, "", nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", nil
		}
		d = parent
	}
}

// dotGit returns the git directory that dir/.git names: the directory
// itself, or the target of a `gitdir:` file.
func dotGit(dir string) (string, error) {
	p := filepath.Join(dir, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", nil
	}
	if fi.IsDir() {
		if isGitDir(p) {
			return p, nil
		}
		return "", nil // git skips it and looks further up
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s is neither a directory nor a gitdir: file", p)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return filepath.Clean(target), nil
}

// isGitDir reports a directory that looks like a git directory: HEAD and
// objects (or a common directory that has them).
func isGitDir(d string) bool {
	if _, err := os.Stat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true
	}
	fi, err := os.Stat(filepath.Join(d, "objects"))
	return err == nil && fi.IsDir()
}

// commonDir is where a linked worktree's git directory keeps the shared
// config and hooks: its commondir file, else itself.
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(data))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// parseConfigFile reads a git config file for the keys that matter here.
func parseConfigFile(p, home string) configFile {
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return configFile{missing: true}
		}
		return configFile{err: err}
	}
	var cf configFile
	err = parseGitConfig(data, func(section, sub, key, value string) {
		full := section + "." + key
		if sub != "" {
			full = section + "." + sub + "." + key
		}
		switch section {
		case "include", "includeif":
			if key == "path" && value != "" {
				cf.includes = append(cf.includes, includeTarget(value, filepath.Dir(p), home))
			}
			return
		case "submodule":
			if key == "path" && value != "" {
				cf.submodulePaths = append(cf.submodulePaths, filepath.FromSlash(value))
			}
		}
		if why := riskyGitKey(section, sub, key, value); why != "" {
			cf.risky = append(cf.risky, full+", which "+why)
		}
		if why := userRiskyGitKey(section, sub, key, value); why != "" {
			cf.userRisky = append(cf.userRisky, full+", which "+why)
		}
		if section == "core" && key == "hookspath" && value != "" {
			cf.hooksPaths = append(cf.hooksPaths, value)
		}
	})
	if err != nil {
		return configFile{err: fmt.Errorf("parse %s: %w", p, err)}
	}
	return cf
}

// includeTarget resolves an include path as git does: ~/ is the home
// directory, a relative path is relative to the including file.
func includeTarget(v, dir, home string) string {
	if rest, ok := strings.CutPrefix(v, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	if filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return filepath.Join(dir, v)
}

const (
	runsProgram = "makes git run a program"
	reachesNet  = "makes git fetch from a remote over the network"
)

// riskyGitKey says why a config key (section and key lower case, the
// subsection as written) matters to a read-only git command, or "".
func riskyGitKey(section, sub, key, value string) string {
	switch section {
	case "core":
		switch key {
		case "fsmonitor":
			if gitFalse(value) {
				return ""
			}
			return runsProgram
		case "pager", "editor", "sshcommand", "hookspath", "gitproxy", "askpass", "alternaterefscommand":
			return runsProgram
		case "worktree":
			return "points git at another work tree"
		}
	case "sequence":
		if key == "editor" {
			return runsProgram
		}
	case "pager":
		return runsProgram
	case "diff":
		if sub == "" && key == "external" || sub != "" && (key == "command" || key == "textconv") {
			return runsProgram
		}
	case "merge":
		if sub != "" && key == "driver" {
			return runsProgram
		}
	case "filter":
		if sub != "" && (key == "clean" || key == "smudge" || key == "process") {
			return runsProgram
		}
	case "gpg":
		if key == "program" {
			return runsProgram
		}
	case "credential":
		if key == "helper" {
			return runsProgram
		}
	case "alias":
		if strings.HasPrefix(strings.TrimSpace(value), "!") {
			return runsProgram
		}
	case "uploadpack":
		if key == "packobjectshook" {
			return runsProgram
		}
	case "submodule":
		if key == "update" && strings.HasPrefix(strings.TrimSpace(value), "!") {
			return runsProgram
		}
	case "remote":
		switch key {
		case "uploadpack", "receivepack", "vcs":
			return runsProgram
		case "promisor":
			return reachesNet
		}
	case "extensions":
		if key == "partialclone" {
			return reachesNet
		}
	}
	return ""
}

// userRiskyGitKey says why a key of the user's or the system's config
// makes an allowed, read-only git command run a program on its own, or
// "" (see the comment at the top).
func userRiskyGitKey(section, sub, key, value string) string {
	switch section {
	case "core":
		if key == "fsmonitor" && !gitFalse(value) && !gitTrue(value) {
			return runsProgram // a hook; true is git's own daemon
		}
	case "diff":
		if sub == "" && key == "external" && strings.TrimSpace(value) != "" || sub != "" && (key == "command" || key == "textconv") {
			return runsProgram
		}
	case "filter":
		if sub != "" && (key == "clean" || key == "smudge" || key == "process") && !gitLFSFilter(sub, value) {
			return runsProgram
		}
	case "remote":
		if key == "promisor" && !gitFalse(value) {
			return reachesNet
		}
	}
	return ""
}

// gitLFSFilter reports the filter `git lfs install` writes to the user's
// config, which runs the git-lfs on PATH.
func gitLFSFilter(sub, value string) bool {
	if sub != "lfs" {
		return false
	}
	switch strings.Join(strings.Fields(value), " ") {
	case "git-lfs clean -- %f", "git-lfs smudge -- %f", "git-lfs filter-process",
		"git-lfs smudge --skip -- %f", "git-lfs filter-process --skip":
		return true
	}
	return false
}

// gitTrue reports git's spellings of true (a bare key is true).
func gitTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}

// gitFalse reports git's spellings of false.
func gitFalse(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// parseGitConfig calls fn for every variable in a git config file, with
// the section and key lower-cased and the subsection as written. It
// follows git's syntax: `[section "sub"]` and `[section.sub]` headers
// (with variables allowed after them on the same line), `key = value`
// or a bare `key` (true), quotes, backslash escapes and continuation
// lines, `#` and `;` comments.
func parseGitConfig(data []byte, fn func(section, sub, key, value string)) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var section, sub string
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimLeft(sc.Text(), " \t")
		if strings.HasPrefix(line, "[") {
			end := headerEnd(line)
			if end < 0 {
				return fmt.Errorf("line %d: bad section header", lineNo)
			}
			section, sub = parseHeader(line[1:end])
			line = strings.TrimLeft(line[end+1:], " \t")
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		nameEnd := 0
		for nameEnd < len(line) && (isAlnum(line[nameEnd]) || line[nameEnd] == '-') {
			nameEnd++
		}
		if nameEnd == 0 {
			return fmt.Errorf("line %d: bad variable name", lineNo)
		}
		key := strings.ToLower(line[:nameEnd])
		rest := strings.TrimLeft(line[nameEnd:], " \t")
		value := ""
		if strings.HasPrefix(rest, "=") {
			var cont bool
			value, cont = configValue(rest[1:])
			for cont && sc.Scan() {
				lineNo++
				var more string
				more, cont = configValue(sc.Text())
				value += more
			}
		}
		fn(section, sub, key, value)
	}
	return sc.Err()
}

// headerEnd finds the `]` closing a section header, past a quoted
// subsection.
func headerEnd(line string) int {
	quoted := false
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ']' && !quoted:
			return i
		}
	}
	return -1
}

func parseHeader(h string) (section, sub string) {
	h = strings.TrimSpace(h)
	if i := strings.IndexByte(h, '"'); i >= 0 {
		section = strings.ToLower(strings.TrimSpace(h[:i]))
		q := h[i+1:]
		var b strings.Builder
		for j := 0; j < len(q) && q[j] != '"'; j++ {
			if q[j] == '\\' && j+1 < len(q) {
				j++
			}
			b.WriteByte(q[j])
		}
		return section, b.String()
	}
	// The legacy [section.sub] form: the subsection is lower-cased.
	section, sub, _ = strings.Cut(strings.ToLower(h), ".")
	return section, sub
}

// configValue reads a value up to a comment; cont reports a backslash at
// the end of the line, which continues the value on the next.
func configValue(s string) (value string, cont bool) {
	var b strings.Builder
	quoted := false
	s = strings.TrimLeft(s, " \t")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return strings.TrimRight(b.String(), " \t"), true
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(s[i])
			}
		case c == '"':
			quoted = !quoted
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimRight(b.String(), " \t"), false
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return b.String(), false
	}
	return strings.TrimRight(b.String(), " \t"), false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
