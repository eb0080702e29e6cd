package morph

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
)

// LazyFromPatch turns a conflict-marker patch whose ORIGINAL holds
// placeholder lines ("// ...") into a lazy edit: each hunk's UPDATED lines
// between markers. ok is false for a patch with no such hunk (its
// failure is the model's to fix; an apply model would only guess).
func LazyFromPatch(patch string) (lazy string, ok bool) {
	lazy, _, ok = lazyFromPatch(patch)
	return lazy, ok
}

// lazyFromPatch is LazyFromPatch, also returning the trimmed ORIGINAL
// lines that are not UPDATED's too: what the patch says it replaces.
func lazyFromPatch(patch string) (lazy string, replaced map[string]bool, ok bool) {
	hunks, err := edits.ParseConflict(patch)
	if err != nil || len(hunks) == 0 {
		return "", nil, false
	}
	replaced = map[string]bool{}
	var b strings.Builder
	b.WriteString("// ... existing code ...\n")
	for _, h := range hunks {
		kept := map[string]bool{}
		for _, l := range h.Updated {
			kept[NamedKey(l)] = true
		}
		for _, l := range h.Original {
			if IsMarker(l) {
				ok = true
			} else if k := NamedKey(l); k != "" && !kept[k] {
				replaced[k] = true
			}
		}
		if len(h.Updated) == 0 {
			return "", nil, false // a deletion: nothing to show the apply model
		}
		b.WriteString(strings.Join(h.Updated, "\n"))
		b.WriteString("\n// ... existing code ...\n")
	}
	return b.String(), replaced, ok
}

// PatchFallback wraps the patch tool's run: when a patch whose hunks skip
// lines with placeholders cannot be placed, its UPDATED parts go to the
// apply model as a lazy edit (Merge, with all its checks); the model
// reads that the patch failed and what the merge did. Any other failure,
// or a merge refused, is the patch's error (with the merge's reason).
// The merge is checked as Merge checks one, except that an original
// line the patch's ORIGINAL replaces (not in its UPDATED) may also go.
func PatchFallback(patch tools.RunFunc, ws edittool.Workspace, opts Options) tools.RunFunc {
	return func(ctx context.Context, use tools.ToolUse) (string, error) {
		out, err := patch(ctx, use)
		if err == nil || errors.Is(err, approval.ErrStopTurn) || ctx.Err() != nil || opts.Complete == nil {
			return out, err
		}
		lazy, replaced, ok := lazyFromPatch(bodyArg(use, "patch"))
		if !ok {
			return out, err
		}
		path := stringArg(use, 0, "path")
		// The lazy edit loses the ORIGINAL lines the patch replaces (a
		// placeholder may stand before them): their deletion is named.
		merged, merr := merge(ctx, ws, opts, path, lazy, "", replaced)
		if merr != nil {
			return "", fmt.Errorf("%w\n(The apply model was asked to place it too, and could not: %v)", err, merr)
		}
		first, _, _ := strings.Cut(err.Error(), "\n")
		return fmt.Sprintf("The patch could not be placed as written (%s); the apply model placed its UPDATED parts instead.\n%s", first, merged), nil
	}
}
