package edittool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// Patch applies conflict-marker hunks to path.
func (b *Batch) Patch(ctx context.Context, path, patch string) (string, error) {
	if path == "" {
		return b.patchWithoutPath(ctx, patch)
	}
	if strings.TrimSpace(patch) == "" {
		return "", fmt.Errorf("patch %s: no patch given", path)
	}
	f, err := b.patchFile(ctx, path, patch)
	if err != nil {
		return "", err
	}
	if err := b.writeEdits(f.file, f.edits); err != nil {
		return "", fmt.Errorf("patch %s: %w", f.path, err)
	}
	msg := fmt.Sprintf("Patch applied to %s (%d %s)", f.path, f.hunks, plural(f.hunks, "hunk", "hunks"))
	if len(patch) > 1000 && len(patch) > editedLen(f.size(), f.edits) {
		msg += "\nNote: the patch was larger than the file; for a rewrite, save is simpler."
	}
	return msg, nil
}

// patchWithoutPath runs a patch call that names no file. A body of
// "=== PATH: p ===" sections is patch_many's form, which small models
// copy from its example into a patch block: it is applied as patch_many,
// all or nothing, when the sections can be read; otherwise the error says
// which form to write.
func (b *Batch) patchWithoutPath(ctx context.Context, patch string) (string, error) {
	fps, ok, err := parseSections(patch)
	switch {
	case !ok:
		return "", noPathError(tools.NamePatch)
	case err != nil:
		return "", fmt.Errorf("no path given, and the block holds \"=== PATH: ... ===\" sections, which is patch_many's form, but they cannot be read: %w; write ```patch path/to/file with that file's hunks only", err)
	}
	msg, err := b.patchMany(ctx, fps)
	if err != nil {
		return "", fmt.Errorf("no path given, and the block holds \"=== PATH: ... ===\" sections, which is patch_many's form; applied as patch_many it failed: %w", err)
	}
	return msg + " (a patch block without a path but with \"=== PATH: ... ===\" sections, applied as patch_many)", nil
}

type patched struct {
	file
	edits []edits.TextEdit // of f.content, where the hunks matched
	hunks int
}

// writeEdits records f's new content by the edits that make it of
// f.content (the hunks a tool resolved), so that sending the change costs
// the size of the edits rather than a diff of the whole file, and the
// new content is made only when something reads it (Changeset.Edit): a
// patch to a large open buffer is not copied on its way to the editor.
// A file read as the editor's buffer (readBuffer) is recorded on it
// (Changeset.EditBuffer), so its text is not joined either.
func (b *Batch) writeEdits(f file, es []edits.TextEdit) error {
	if f.buf != nil {
		return b.Changes.EditBuffer(f.path, f.buf, f.version, es)
	}
	return b.Changes.Edit(f.path, f.content, f.exists, f.version, es)
}

// editedLen returns the length of what es make of a text of size bytes.
func editedLen(size int, es []edits.TextEdit) int {
	n := size
	for _, e := range es {
		n += len(e.New) - (e.End - e.Start)
	}
	return n
}

// patchFile resolves the hunks of patching path, without recording them.
// A file open in the editor is resolved on its buffer's chunks
// (readBuffer, edits.Buffer.ResolveHunks): the same edits and errors as
// on its text, without joining it after each keystroke.
func (b *Batch) patchFile(ctx context.Context, path, patch string) (patched, error) {
	hunks, err := edits.ParseConflict(patch)
	if err != nil {
		return patched{}, fmt.Errorf("patch %s: %w", path, err)
	}
	f, err := b.readBuffer(ctx, path)
	if err != nil {
		return patched{}, fmt.Errorf("patch %s: %w", path, err)
	}
	if !f.exists {
		return patched{}, fmt.Errorf("patch %s: the file does not exist; use save to create it", f.path)
	}
	var es []edits.TextEdit
	if f.buf != nil {
		es, err = f.buf.ResolveHunks(hunks)
	} else {
		es, err = edits.ResolveHunks(f.content, hunks)
	}
	if err != nil {
		return patched{}, fmt.Errorf("patch %s: %w", f.path, err)
	}
	return patched{file: f, edits: es, hunks: len(hunks)}, nil
}

// A filePatch is one file's part of a patch_many.
type filePatch struct {
	path, patch string
}

// PatchMany applies patches to several files, all or nothing: if any fails,
// the batch is left as it was. The files come from "=== PATH: p ==="
// sections in the body, from a JSON list [{"path", "patch"}] (in the body
// or the patches argument), or from paths in the block's language tag, one
// hunk each. A file named twice is patched twice, in order.
func (b *Batch) PatchMany(ctx context.Context, use tools.ToolUse, patchesArg any) (string, error) {
	fps, err := parsePatchMany(use, patchesArg)
	if err != nil {
		return "", fmt.Errorf("patch_many: %w", err)
	}
	return b.patchMany(ctx, fps)
}

// patchMany applies fps all or nothing.
func (b *Batch) patchMany(ctx context.Context, fps []filePatch) (string, error) {
	var paths []string
	err := b.atomically(func(t *Batch) error {
		for i, fp := range fps {
			p, err := t.patchFile(ctx, fp.path, fp.patch)
			if err != nil {
				return fmt.Errorf("patch_many: file %d/%d: %w", i+1, len(fps), err)
			}
			if err := t.writeEdits(p.file, p.edits); err != nil {
				return fmt.Errorf("patch_many: file %d/%d: patch %s: %w", i+1, len(fps), p.path, err)
			}
			paths = append(paths, p.path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Applied %d %s atomically to: %s", len(fps), plural(len(fps), "patch", "patches"), strings.Join(paths, ", ")), nil
}

func cloneChanges(cs []*edits.FileChange) []*edits.FileChange {
	out := make([]*edits.FileChange, len(cs))
	for i, c := range cs {
		cc := *c
		out[i] = &cc
	}
	return out
}

// pathHeader is a patch_many section header: === PATH: a/b.go ===
var pathHeader = regexp.MustCompile(`^=== PATH: (.+?) ===\s*$`)

func parsePatchMany(use tools.ToolUse, patchesArg any) ([]filePatch, error) {
	if patchesArg != nil {
		return parsePatchList(patchesArg)
	}
	body := use.Content
	if t := strings.TrimSpace(body); strings.HasPrefix(t, "[") {
		return parsePatchList(t)
	}
	if fps, ok, err := parseSections(body); ok || err != nil {
		return fps, err
	}
	// Paths in the language tag, one hunk each.
	if len(use.Args) == 0 {
		return nil, fmt.Errorf("no files: start each file's hunks with a line \"=== PATH: path/to/file ===\"")
	}
	hunks, err := splitHunks(body)
	if err != nil {
		return nil, err
	}
	if len(hunks) != len(use.Args) {
		return nil, fmt.Errorf("%d paths in the block's tag but %d hunks; with paths in the tag give exactly one hunk per path, or use \"=== PATH: path ===\" sections for several hunks per file", len(use.Args), len(hunks))
	}
	var fps []filePatch
	for i, p := range use.Args {
		fps = append(fps, filePatch{p, hunks[i]})
	}
	return fps, nil
}

// parseSections splits a body of "=== PATH: p ===" sections. ok is false
// when the body has none. A header-like line inside a hunk is content, and
// text before the first header is an error, not dropped.
func parseSections(body string) ([]filePatch, bool, error) {
	var fps []filePatch
	inHunk := false
	preamble, preambleLine := "", 0
	for i, l := range strings.Split(body, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if m := pathHeader.FindStringSubmatch(l); m != nil && !inHunk {
			fps = append(fps, filePatch{path: strings.TrimSpace(m[1])})
			continue
		}
		switch {
		case edits.IsOriginalMarker(l):
			inHunk = true
		case edits.IsUpdatedMarker(l):
			inHunk = false
		}
		if len(fps) == 0 {
			if preamble == "" && strings.TrimSpace(l) != "" {
				preamble, preambleLine = l, i+1
			}
			continue
		}
		fps[len(fps)-1].patch += l + "\n"
	}
	if len(fps) == 0 {
		return nil, false, nil
	}
	if preamble != "" {
		return nil, true, fmt.Errorf("line %d: text before the first \"=== PATH: ... ===\" line: %q; every hunk must follow the header of its file", preambleLine, preamble)
	}
	return fps, true, nil
}

// splitHunks splits a body into its hunks' texts, for paths in the tag:
// hunk i goes to path i. Text before or between hunks is refused, named:
// it belongs to no file, and a hunk with a broken marker among it would
// shift every later hunk onto the wrong path. Text after the last hunk is
// that hunk's, and patch's rules apply to it (prose is ignored).
func splitHunks(body string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inHunk := false
	strayLine, stray := 0, "" // the first line outside hunks since the last one
	for i, l := range strings.Split(body, "\n") {
		switch {
		case !inHunk && edits.IsOriginalMarker(l):
			if stray != "" {
				where := "before the first hunk"
				if len(out) > 0 {
					where = fmt.Sprintf("between hunks %d and %d", len(out), len(out)+1)
				}
				return nil, fmt.Errorf("line %d: text %s (%q) belongs to no file and would be dropped; with paths in the tag the block holds exactly one hunk per path and nothing else (or use \"=== PATH: path ===\" sections)", strayLine, where, clip(stray))
			}
			inHunk = true
			cur.Reset()
		case !inHunk:
			if t := strings.TrimSpace(l); stray == "" && t != "" && !strings.HasPrefix(t, "```") {
				strayLine, stray = i+1, l
			}
			if len(out) > 0 {
				cur.WriteString(l + "\n") // the last hunk's, if no hunk follows
			}
			continue
		}
		cur.WriteString(l + "\n")
		if edits.IsUpdatedMarker(l) {
			out = append(out, cur.String())
			cur.Reset()
			inHunk = false
		}
	}
	switch {
	case inHunk:
		out = append(out, cur.String()) // unterminated: patch says so
	case len(out) > 0:
		out[len(out)-1] += cur.String()
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no hunks found")
	}
	return out, nil
}

// clip shortens s for an error message to at most 80 bytes, never inside
// a character.
func clip(s string) string { return text.Shorten(s, 77, "...") }

// parsePatchList reads [{"path": …, "patch": …}], given as a value or as
// a JSON string.
func parsePatchList(v any) ([]filePatch, error) {
	if s, ok := v.(string); ok {
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("patches is not a JSON list: %w", err)
		}
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("patches must be a list of {\"path\", \"patch\"} objects")
	}
	var fps []filePatch
	for i, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("patch %d must be an object with \"path\" and \"patch\"", i+1)
		}
		p, ok1 := obj["path"].(string)
		patch, ok2 := obj["patch"].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("patch %d must have string \"path\" and \"patch\" fields", i+1)
		}
		fps = append(fps, filePatch{p, patch})
	}
	if len(fps) == 0 {
		return nil, fmt.Errorf("patches is empty")
	}
	return fps, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
