package rag

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentls/agentls/procs/policy"
)

// Bounds on what is indexed. A file over MaxFileBytes is generated or
// data, not something a question is answered from; MaxFiles keeps a
// workspace that is really a home folder from costing unbounded memory.
const (
	MaxFileBytes = 1 << 20
	MaxFiles     = 200_000
	// sniffBytes are read to tell a binary file (a NUL among them) from text.
	sniffBytes = 8000
)

// skippedDirs are the folders a walk of a workspace that is no git
// repository leaves out: version control, dependencies and build output,
// which hold many files no question is about.
var skippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true,
	".venv": true, "venv": true, "__pycache__": true, ".tox": true, ".mypy_cache": true,
	".pytest_cache": true, "target": true, "dist": true, "build": true, ".cache": true,
	".agentls": true,
}

// A fileInfo is one file to index: its path relative to the root (slash
// separated) and what tells its versions apart.
type fileInfo struct {
	Path    string
	ModTime int64
	Size    int64
}

// listFiles returns the workspace's regular files, honouring .gitignore
// when root is a git work tree (git ls-files: tracked and untracked files
// not ignored), else walking it without skippedDirs. Symlinks are left out
// (one may point outside the workspace: rag shows only the workspace's
// own files), and so are files over MaxFileBytes and those the shell
// policy treats as secrets (policy.SecretRule: .env, keys, credential
// stores — what `cat` asks about rag neither shows the model nor sends to
// an embeddings endpoint; and with them out of the listing, an index
// saved before forgets them and an open buffer of one is not searched).
// At most MaxFiles are returned, and truncated says so.
func listFiles(ctx context.Context, root string) (files []fileInfo, truncated bool, err error) {
	paths, err := gitFiles(ctx, root)
	if err != nil {
		paths, err = walkFiles(ctx, root)
		if err != nil {
			return nil, false, err
		}
	}
	secret := policy.NewSecretRule(root, "")
	for _, p := range paths {
		if len(files) == MaxFiles {
			return files, true, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || !info.Mode().IsRegular() || info.Size() > MaxFileBytes || info.Size() == 0 {
			continue // gone since it was listed, or not a file to index
		}
		if secret.Name(filepath.Join(root, filepath.FromSlash(p))) != "" {
			continue // not followed: symlinks are left out above
		}
		files = append(files, fileInfo{Path: p, ModTime: info.ModTime().UnixNano(), Size: info.Size()})
	}
	return files, false, nil
}

// gitFiles lists root's files with git when root is the top of a git work
// tree. Git runs with core.fsmonitor off on its command line: a hostile
// repository's .git/config naming a program there would otherwise have
// git run it (the list is made without asking anyone), and with optional
// locks off, so listing writes nothing to the repository's index.
func gitFiles(ctx context.Context, root string) ([]string, error) {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		return nil, fmt.Errorf("%s is not a git work tree: %w", root, err)
	}
	cmd := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
		"ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w: %s", root, err, strings.TrimSpace(stderr.String()))
	}
	var paths []string
	seen := map[string]bool{} // a file in conflict is listed once a stage
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) == 0 || seen[string(p)] {
			continue
		}
		seen[string(p)] = true
		paths = append(paths, string(p))
	}
	return paths, nil
}

// walkFiles lists root's files, skipping skippedDirs and stopping past
// MaxFiles.
func walkFiles(ctx context.Context, root string) ([]string, error) {
	var paths []string
	errEnough := errors.New("enough files")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable folder is left out, not the whole list
		}
		if d.IsDir() {
			if p != root && skippedDirs[d.Name()] {
				return filepath.SkipDir
			}
			return ctx.Err()
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		paths = append(paths, filepath.ToSlash(rel))
		if len(paths) > MaxFiles {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, fmt.Errorf("list the files of %s: %w", root, err)
	}
	return paths, nil
}

// readText reads a listed file for indexing: its content, or ok false when
// it is binary (a NUL in its first sniffBytes) or no longer a regular file
// of at most MaxFileBytes.
func readText(root string, f fileInfo) (content []byte, ok bool) {
	file, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(f.Path)), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > MaxFileBytes {
		return nil, false
	}
	data := make([]byte, info.Size()+1)
	n, _ := readFull(file, data)
	if n > MaxFileBytes {
		return nil, false
	}
	data = data[:n]
	if bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return nil, false
	}
	return data, true
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
