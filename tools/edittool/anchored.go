package edittool

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
)

// PatchAnchored applies a batch of anchored ops (a JSON list) to path, or
// refuses the whole batch with fresh anchors to retry with.
func (b *Batch) PatchAnchored(ctx context.Context, path, ops string) (string, error) {
	if path == "" {
		return "", noPathError(tools.NamePatchAnchored)
	}
	parsed, err := anchored.ParseOps(ops)
	if err != nil {
		return "", fmt.Errorf("patch_anchored %s: %w", path, err)
	}
	f, err := b.read(ctx, path)
	if err != nil {
		return "", fmt.Errorf("patch_anchored %s: %w", path, err)
	}
	if !f.exists {
		return "", fmt.Errorf("patch_anchored %s: the file does not exist", f.path)
	}
	// The text the last view of f showed, if it is still f's, is
	// resolved through the anchor table that view kept; any other text
	// afresh. Both give the same bytes (anchored.Views).
	res, kept, err := b.views().ApplyKept(f.path, f.content, parsed, anchored.Options{})
	if !kept {
		res, err = anchored.Apply(f.content, parsed, b.anchorOptions(f))
	}
	if err != nil {
		return "", fmt.Errorf("patch_anchored %s: %w", f.path, err)
	}
	b.write(f, res.Text)
	msg := fmt.Sprintf("Anchored patch applied to %s (%d %s)", f.path, len(parsed), plural(len(parsed), "operation", "operations"))
	for _, n := range res.Notes {
		msg += "\nNote: " + n
	}
	return msg, nil
}

// ViewAnchored renders path (or lines from..to of it) with anchors, as the
// batch sees it. It changes nothing.
func (b *Batch) ViewAnchored(ctx context.Context, path string, from, to int) (string, error) {
	if path == "" {
		return "", noPathError(tools.NameViewAnchored)
	}
	f, err := b.read(ctx, path)
	if err != nil {
		return "", fmt.Errorf("view_anchored %s: %w", path, err)
	}
	if !f.exists {
		return "", fmt.Errorf("view_anchored %s: the file does not exist", f.path)
	}
	if err := b.allowSecret(ctx, tools.NameViewAnchored, f.path); err != nil {
		return "", err
	}
	view, err := b.views().Render(f.path, f.content, from, to, b.anchorOptions(f))
	if err != nil {
		return "", fmt.Errorf("view_anchored %s: %w", f.path, err)
	}
	fence := strings.Repeat("`", 4)
	return fence + f.path + "\n" + view + fence, nil
}

// views returns where the source keeps the anchor tables of the last
// views (nil: none are kept, and every text is anchored afresh).
func (b *Batch) views() *anchored.Views {
	if b.Hashes == nil {
		return nil
	}
	return b.Hashes.Views()
}

// anchorOptions passes on the line hashes the source keeps for the
// version of f it gave, if any.
func (b *Batch) anchorOptions(f file) anchored.Options {
	if b.Hashes == nil || f.edited || f.version == edits.NotOpen {
		return anchored.Options{}
	}
	return anchored.Options{Hashes: b.Hashes.LineHashes(f.path, f.version)}
}

// lineArg reads a line-number argument given as a number or a string.
func lineArg(use tools.ToolUse, name string) int {
	switch v := use.Kwargs[name].(type) {
	case string:
		n, _ := strconv.Atoi(v)
		return n
	case float64:
		return int(v)
	case interface{ String() string }: // json.Number
		n, _ := strconv.Atoi(v.String())
		return n
	}
	return 0
}
