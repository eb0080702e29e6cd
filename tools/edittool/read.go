package edittool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// maxListed bounds a folder listing.
const maxListed = 100

// readPaths returns the paths a read call names: its path argument, else
// one per line of its body (blank and # lines skipped).
func readPaths(use tools.ToolUse) []string {
	if p := arg(use, 0, "path"); p != "" {
		return []string{p}
	}
	var out []string
	for _, l := range strings.Split(use.Content, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// Read shows files with line numbers as the batch sees them (the editor's
// buffers, unsaved changes and the batch's own edits included) and lists
// folders. from/to (1-based, inclusive; 0 for none) select lines of a
// single file. Each path gets its own block; a path that cannot be read
// says why in its place, so one bad path does not hide the others.
func (b *Batch) Read(ctx context.Context, paths []string, from, to int) (string, error) {
	if len(paths) == 0 {
		return "", errors.New("read: no path given")
	}
	if from < 0 || to < 0 || from > 0 && to > 0 && from > to {
		return "", fmt.Errorf("read: invalid line range %d-%d: lines are 1-based and start_line must not be after end_line", from, to)
	}
	var out strings.Builder
	var note string
	if len(paths) > 1 && (from > 0 || to > 0) {
		from, to = 0, 0
		note = "(start_line/end_line are ignored when reading several paths)\n"
	}
	out.WriteString(note)
	failed := 0
	for _, p := range paths {
		text, err := b.readOne(ctx, p, from, to)
		if errors.Is(err, approval.ErrStopTurn) {
			return "", err
		}
		if err != nil {
			failed++
			fmt.Fprintf(&out, "%v\n", err)
			continue
		}
		out.WriteString(text)
	}
	if failed == len(paths) {
		return "", errors.New(strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

func (b *Batch) readOne(ctx context.Context, p string, from, to int) (string, error) {
	if isRoot(b.Root, p) {
		// The workspace's own folder is listed like any other: a model
		// finding its way reads it first.
		return b.listDir(".")
	}
	clean, err := edits.CleanPath(b.Root, p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if _, _, ok := b.Changes.Get(clean); !ok {
		if dir, err := b.listDir(clean); err == nil || !errors.Is(err, errNotDir) {
			return dir, err
		}
	}
	f, err := b.read(ctx, clean)
	if err != nil {
		return "", err
	}
	if !f.exists {
		return "", fmt.Errorf("read %s: no such file or folder", clean)
	}
	if err := b.allowSecret(ctx, tools.NameRead, f.path); err != nil {
		return "", err
	}
	if strings.IndexByte(f.content[:min(len(f.content), 8<<10)], 0) >= 0 {
		return "", fmt.Errorf("read %s: a binary file", clean)
	}
	lines := strings.SplitAfter(f.content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	first, last := 1, n
	header := clean
	if from > 0 || to > 0 {
		if from > 0 {
			first = from
		}
		if to > 0 && to < n {
			last = to
		}
		if first > n {
			return "", fmt.Errorf("read %s: start_line %d is past the end (%d lines)", clean, first, n)
		}
		header = fmt.Sprintf("%s (lines %d-%d of %d)", clean, first, last, n)
	}
	width := len(fmt.Sprint(last))
	body := strings.Join(lines[first-1:last], "")
	fence := text.Fence(body)
	if len(fence) < 4 {
		fence = "````"
	}
	var sb strings.Builder
	sb.WriteString(fence + header + "\n")
	for i := first; i <= last; i++ {
		fmt.Fprintf(&sb, "%*d\t%s", width, i, strings.TrimRight(lines[i-1], "\r\n"))
		sb.WriteString("\n")
	}
	sb.WriteString(fence + "\n")
	return sb.String(), nil
}

var errNotDir = errors.New("not a folder")

// isRoot reports whether p names the workspace root itself: ".", "./",
// or the root's own path.
func isRoot(root, p string) bool {
	if filepath.IsAbs(p) {
		return filepath.Clean(p) == filepath.Clean(root)
	}
	return p != "" && path.Clean(filepath.ToSlash(p)) == "."
}

// listDir lists a folder under the root (never outside it, symlinks
// resolved): folders first, then files, case-insensitively sorted.
func (b *Batch) listDir(clean string) (string, error) {
	if _, err := edits.ResolveInRoot(b.Root, clean); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errNotDir // no root on disk: perhaps an open, unsaved buffer
		}
		return "", fmt.Errorf("read %s: %w", clean, err)
	}
	root, err := os.OpenRoot(b.Root)
	if err != nil {
		return "", errNotDir
	}
	defer root.Close()
	// Through the os.Root, a symlink swapped in after the check cannot
	// lead the listing out of the workspace.
	info, err := root.Stat(filepath.FromSlash(clean))
	if err != nil || !info.IsDir() {
		return "", errNotDir // not on disk: perhaps an open, unsaved buffer
	}
	dir, err := root.Open(filepath.FromSlash(clean))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", clean, err)
	}
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", clean, err)
	}
	var dirs, files []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name()+"/")
		} else {
			files = append(files, e.Name())
		}
	}
	byName := func(s []string) {
		sort.Slice(s, func(i, j int) bool { return strings.ToLower(s[i]) < strings.ToLower(s[j]) })
	}
	byName(dirs)
	byName(files)
	all := append(dirs, files...)
	var sb strings.Builder
	fmt.Fprintf(&sb, "````%s/ (%d %s)\n", strings.TrimSuffix(clean, "/"), len(all), map[bool]string{true: "entry", false: "entries"}[len(all) == 1])
	if len(all) == 0 {
		sb.WriteString("(empty folder)\n")
	}
	for i, name := range all {
		if i == maxListed {
			fmt.Fprintf(&sb, "... and %d more entries\n", len(all)-maxListed)
			break
		}
		sb.WriteString(name + "\n")
	}
	sb.WriteString("````\n")
	return sb.String(), nil
}
