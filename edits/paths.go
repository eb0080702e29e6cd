package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSymlinkHops bounds the symlinks followed for one path (Linux's own
// limit is 40), so a symlink loop is refused rather than followed forever.
const maxSymlinkHops = 40

// ResolveInRoot returns the real absolute path of rel (slash-separated,
// relative to root) with every symlink along it resolved, and refuses a
// path that leads outside root. It is the one path check for the CLI and
// the server alike: CleanPath uses it when a tool reads, the server again
// when it sends a WorkspaceEdit, ApplyToDisk again before it writes.
//
// Every existing component is looked at with Lstat, so a symlink anywhere
// along the path is followed (and its target checked), a dangling one
// included. The part that does not exist yet (a file or folders to
// create) is taken as written, under the nearest existing folder, which
// is what decides where a created file lands.
//
// The answer holds for the moment it is given: a writer must not trust it
// later (ApplyToDisk walks the resolved path again with no symlink
// allowed).
func ResolveInRoot(root, rel string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	return resolveInRealRoot(realRoot, rel)
}

// resolveInRealRoot is ResolveInRoot for a root whose symlinks are already
// resolved.
func resolveInRealRoot(realRoot, rel string) (string, error) {
	if filepath.IsAbs(rel) || filepath.IsAbs(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("path %s is absolute: give it relative to the workspace root", rel)
	}
	cur := realRoot
	pending := splitPath(rel)
	hops := 0
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			// cur has no symlink in it, so its parent is its lexical one.
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		info, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Not there yet: the rest is created under cur as written.
			cur = filepath.Join(append([]string{next}, pending...)...)
			pending = nil
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			if len(pending) > 0 && !info.IsDir() {
				return "", fmt.Errorf("%s: %s is a file, not a folder", rel, relOrAbs(realRoot, next))
			}
			cur = next
			continue
		}
		hops++
		if hops > maxSymlinkHops {
			return "", fmt.Errorf("%s: more than %d symlinks (a loop?): refused", rel, maxSymlinkHops)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%s: %w", rel, err)
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		pending = append(splitPath(filepath.ToSlash(target)), pending...)
	}
	if !inRoot(realRoot, cur) {
		return "", fmt.Errorf("%s resolves to %s, outside the workspace %s: refused", rel, cur, realRoot)
	}
	return cur, nil
}

func splitPath(p string) []string {
	return strings.Split(p, "/")
}

// inRoot reports whether p (absolute, clean) is root or under it.
func inRoot(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// relOrAbs names p relative to root when it is inside it.
func relOrAbs(root, p string) string {
	if inRoot(root, p) {
		if r, err := filepath.Rel(root, p); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return p
}

// startsWithTilde reports whether a path begins with a shell's home
// folder notation (~, ~/x, ~user/x), which agentls never expands.
func startsWithTilde(p string) bool {
	return strings.HasPrefix(p, "~")
}
