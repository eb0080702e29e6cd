package agent

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/parse"
)

// pastedUses turns the edits a reply shows without calling a tool — a
// unified diff in a ```diff block, a whole file in a language block under
// its path — into the calls that apply them, as `agentls apply` applies
// them (edittool.FindPasted): save for a whole file, apply_patch for a
// diff (its hunks through the same matcher; @@ numbers are not used).
// Small models answer this way more often than with a tool call; aider
// applies such answers, and so does a turn, where the tools are offered.
// Nothing is returned for a tool format (a native call has an id a
// synthetic one would lack), for blocks FindPasted refuses or skips, or
// when the tool needed is not offered.
func pastedUses(reply string, reg *tools.Registry, format tools.Format) []tools.ToolUse {
	if format == tools.FormatTool {
		return nil
	}
	p := parse.NewParser(parse.Options{Format: format, Lookup: reg.Lookup, KeepBlocks: true})
	p.WriteString(reply)
	p.Finish()
	calls := map[int]bool{}
	for _, u := range p.ToolUses() {
		calls[u.Start] = true
	}
	var uses []tools.ToolUse
	for _, pe := range edittool.FindPasted(reply, p.Blocks(), func(b parse.Block) bool { return calls[b.Start] }) {
		if pe.Skipped != "" {
			continue
		}
		switch pe.Kind {
		case edittool.PastedFile:
			if _, ok := reg.Get(tools.NameSave); ok && len(pe.Paths) == 1 {
				uses = append(uses, tools.ToolUse{Tool: tools.NameSave, Args: []string{pe.Paths[0]}, Content: pe.Body, Start: pe.Start, End: pe.Start, Format: format})
			}
		default:
			if _, ok := reg.Get(tools.NameApplyPatch); !ok {
				continue
			}
			if patch, ok := diffAsV4A(pe); ok {
				uses = append(uses, tools.ToolUse{Tool: tools.NameApplyPatch, Content: patch, Start: pe.Start, End: pe.Start, Format: format})
			}
		}
	}
	return uses
}

// diffAsV4A writes a pasted unified diff as the apply_patch (V4A) patch
// that makes the same change: each hunk's ORIGINAL lines as "-" and its
// UPDATED lines as "+", which the V4A reader turns back into the same
// hunk. A diff that does not parse, whose hunks name no single file,
// that deletes a file or adds lines with nothing to place them by is left
// out: the turn's nudge tells the model nothing was applied.
func diffAsV4A(pe edittool.Pasted) (string, bool) {
	files, err := edits.ParseUnifiedDiff(pe.Body)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, f := range files {
		path := f.Path
		if path == "" {
			if len(pe.Paths) != 1 {
				return "", false
			}
			path = pe.Paths[0]
		}
		switch f.Op {
		case edits.V4AAdd:
			fmt.Fprintf(&b, "*** Add File: %s\n", path)
			for _, l := range strings.SplitAfter(f.Content, "\n") {
				if l != "" {
					b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
				}
			}
		case edits.V4ADelete:
			// apply_patch deletes without checking the file is what the
			// diff's "-" lines say: left to a call the model makes.
			return "", false
		default:
			fmt.Fprintf(&b, "*** Update File: %s\n", path)
			if f.MoveTo != "" {
				fmt.Fprintf(&b, "*** Move to: %s\n", f.MoveTo)
			}
			for _, h := range f.Hunks {
				if len(h.Original) == 0 {
					// No line to place it by: apply_patch would put it at
					// the end; the diff's own application refuses it.
					return "", false
				}
				b.WriteString("@@\n")
				for _, l := range h.Original {
					b.WriteString("-" + l + "\n")
				}
				for _, l := range h.Updated {
					b.WriteString("+" + l + "\n")
				}
			}
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String(), true
}
