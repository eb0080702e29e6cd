package diagnose

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxWalk bounds the files looked at when a bare file name must be found
// under the command's directory: a huge tree makes the name ambiguous
// anyway, and Parse must stay quick.
const maxWalk = 20000

// A resolver turns the paths a tool printed into absolute paths of
// existing files inside the workspace, remembering what it looked up: one
// Parse asks about the same few files many times.
type resolver struct {
	dir      string   // the command's directory, absolute
	root     string   // the workspace root; "" allows any file
	realRoot string   // root with symlinks resolved, for tools that print real paths
	bases    []string // where relative paths may start: dir, the command's cd targets, then dir's parents up to root

	isFile map[string]bool

	modLoaded        bool
	modRoot, modPath string // the Go module containing dir

	walked bool
	byName map[string][]string // base name → files under dir
}

func newResolver(dir, root string, cdDirs []string) *resolver {
	if root != "" {
		root = filepath.Clean(root)
	}
	switch {
	case dir == "":
		dir = root
	case !filepath.IsAbs(dir) && root != "":
		dir = filepath.Join(root, dir)
	}
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	r := &resolver{dir: dir, root: root, isFile: map[string]bool{}}
	if root != "" {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			r.realRoot = real
		}
	}
	if dir == "" || !filepath.IsAbs(dir) {
		r.dir = ""
		return r // relative paths cannot be placed
	}
	r.bases = append(r.bases, dir)
	for _, cd := range cdDirs {
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(dir, cd)
		}
		r.bases = append(r.bases, filepath.Clean(cd))
	}
	// Tools that run from their project's root whatever the shell's
	// directory (cargo prints paths relative to the workspace's
	// Cargo.toml) need dir's parents, up to the workspace root.
	if root != "" && inside(root, dir) {
		for d := filepath.Dir(dir); inside(root, d); d = filepath.Dir(d) {
			r.bases = append(r.bases, d)
			if d == root || d == filepath.Dir(d) {
				break
			}
		}
	}
	return r
}

// inside reports whether path is root or below it; both must be clean.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// file resolves name, printed by a tool whose relative paths start at
// base (a make directory, or "" for the command's directory). It reports
// false unless the result is an existing regular file inside the root.
func (r *resolver) file(name, base string) (string, bool) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsRune(name, 0) {
		return "", false
	}
	if filepath.IsAbs(name) {
		return r.accept(filepath.Clean(name))
	}
	if base != "" {
		if !filepath.IsAbs(base) {
			if r.dir == "" {
				return "", false
			}
			base = filepath.Join(r.dir, base)
		}
		return r.accept(filepath.Join(base, name))
	}
	for _, b := range r.bases {
		if p, ok := r.accept(filepath.Join(b, name)); ok {
			return p, true
		}
	}
	return "", false
}

// accept reports whether the clean absolute path p may carry a diagnostic,
// and returns it spelled under root when the tool printed root's real
// (symlink-resolved) path.
func (r *resolver) accept(p string) (string, bool) {
	if r.root != "" && !inside(r.root, p) {
		if r.realRoot == "" || r.realRoot == r.root || !inside(r.realRoot, p) {
			return "", false
		}
		rel, _ := filepath.Rel(r.realRoot, p)
		p = filepath.Join(r.root, rel)
	}
	ok, seen := r.isFile[p]
	if !seen {
		fi, err := os.Stat(p)
		ok = err == nil && fi.Mode().IsRegular()
		r.isFile[p] = ok
	}
	return p, ok
}

// inPackage resolves a file name that `go test` printed for the package
// importPath, relative to that package's directory.
func (r *resolver) inPackage(importPath, name string) (string, bool) {
	if filepath.IsAbs(name) {
		return r.accept(filepath.Clean(name))
	}
	r.loadModule()
	if r.modPath == "" || importPath == "" {
		return "", false
	}
	var dir string
	switch {
	case importPath == r.modPath:
		dir = r.modRoot
	case strings.HasPrefix(importPath, r.modPath+"/"):
		dir = filepath.Join(r.modRoot, filepath.FromSlash(strings.TrimPrefix(importPath, r.modPath+"/")))
	default:
		return "", false
	}
	return r.accept(filepath.Join(dir, name))
}

// loadModule finds the go.mod at or above dir and reads its module path.
func (r *resolver) loadModule() {
	if r.modLoaded || r.dir == "" {
		return
	}
	r.modLoaded = true
	for d := r.dir; ; d = filepath.Dir(d) {
		if path, ok := modulePath(filepath.Join(d, "go.mod")); ok {
			r.modRoot, r.modPath = d, path
			return
		}
		if d == filepath.Dir(d) {
			return
		}
	}
}

// modulePath reads the module directive of the go.mod file at name.
func modulePath(name string) (string, bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if i := strings.Index(rest, "//"); i >= 0 {
			rest = rest[:i]
		}
		path := strings.Trim(strings.TrimSpace(rest), "\"`")
		return path, path != ""
	}
	return "", false
}

// unique returns the one file called name under the command's directory,
// for a bare name no package explains; two candidates are too many.
func (r *resolver) unique(name string) (string, bool) {
	if r.dir == "" || strings.ContainsRune(name, filepath.Separator) {
		return "", false
	}
	if !r.walked {
		r.walked = true
		r.byName = map[string][]string{}
		seen := 0
		_ = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable parts of the tree are skipped
			}
			if seen++; seen > maxWalk {
				return filepath.SkipAll
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", "vendor", "node_modules":
					return filepath.SkipDir
				}
				return nil
			}
			r.byName[d.Name()] = append(r.byName[d.Name()], p)
			return nil
		})
	}
	if c := r.byName[name]; len(c) == 1 {
		return r.accept(c[0])
	}
	return "", false
}
