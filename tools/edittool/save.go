package edittool

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
)

// Save creates path or replaces its content. Placeholder lines are
// refused. The file's line endings and byte-order mark are kept: content
// written with LF into a CRLF file gets CRLF.
func (b *Batch) Save(ctx context.Context, path, content string) (string, error) {
	if path == "" {
		return "", errNoPath
	}
	if content == "" {
		return "", fmt.Errorf("save %s: no content given; to delete the file, write an empty ```delete %s block; to empty it, say so to the user instead", path, path)
	}
	if hasPlaceholderLine(content) {
		return "", fmt.Errorf("save %s: the content has placeholder lines (like \"# ...\" or \"// ...\"); write the complete content, or use patch to change part of the file", path)
	}
	f, err := b.read(ctx, path)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", path, err)
	}
	result := matchEOL(f.content, ensureFinalNewline(content))
	if strings.HasPrefix(f.content, bom) && !strings.HasPrefix(result, bom) {
		result = bom + result // keep the file's byte-order mark
	}
	b.write(f, result)
	msg := "Saved to " + f.path + throughSymlink(path, f.path)
	switch {
	case !f.exists:
		msg += " (created)"
	case f.content == result:
		msg += " (unchanged: it already had this content)"
		tools.ReportOutcome(ctx, OutcomeUnchanged)
	default:
		msg += " (overwritten)"
		if barelyChanged(f.content, result) {
			msg += "\nHint: this save barely changed the file; patch is smaller for small changes."
		}
	}
	return msg, nil
}

// OutcomeUnchanged is the outcome (tools.ReportOutcome) of a save that
// wrote what the file already held.
const OutcomeUnchanged = "unchanged"

// throughSymlink notes that the path a model gave reached the file
// through a symlink, so it knows which file it changed.
func throughSymlink(given, clean string) string {
	if filepath.IsAbs(given) || filepath.ToSlash(filepath.Clean(given)) == clean {
		return ""
	}
	return " (" + given + " leads there through a symlink)"
}

// Append adds content to the end of path, creating it if needed.
func (b *Batch) Append(ctx context.Context, path, content string) (string, error) {
	if path == "" {
		return "", noPathError(tools.NameAppend)
	}
	if content == "" {
		return "", fmt.Errorf("append %s: no content given", path)
	}
	if hasPlaceholderLine(content) {
		return "", fmt.Errorf("append %s: the content has placeholder lines (like \"# ...\"); write the complete text to add", path)
	}
	f, err := b.read(ctx, path)
	if err != nil {
		return "", fmt.Errorf("append %s: %w", path, err)
	}
	sep := ""
	if f.content != "" && !strings.HasSuffix(f.content, "\n") {
		sep = "\n"
	}
	added := matchEOL(f.content, sep+ensureFinalNewline(content))
	if err := b.writeEdits(f, []edits.TextEdit{{Start: len(f.content), End: len(f.content), New: added}}); err != nil {
		return "", fmt.Errorf("append %s: %w", f.path, err)
	}
	if !f.exists {
		return "Appended to " + f.path + throughSymlink(path, f.path) + " (created)", nil
	}
	return "Appended to " + f.path + throughSymlink(path, f.path), nil
}

func ensureFinalNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

const bom = "\ufeff"

// matchEOL gives new text the line endings of the file it goes into: LF
// text written into a CRLF file gets CRLF.
func matchEOL(old, text string) string {
	if strings.Count(old, "\r\n") > strings.Count(old, "\n")/2 && !strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	return text
}

// barelyChanged reports whether a save of more than 10 lines changed
// fewer than 5 of them, or under 30% (gptme's hint).
func barelyChanged(before, after string) bool {
	total := strings.Count(after, "\n") + 1
	if before == "" || total <= 10 {
		return false
	}
	changed := 0
	for _, e := range udiff.Lines(before, after) {
		changed += strings.Count(before[e.Start:e.End], "\n") + strings.Count(e.New, "\n")
	}
	return changed < 5 || float64(changed) < 0.3*float64(total)
}
