package edittool

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/parse"
)

// A ReplyError says which edit of a reply failed.
type ReplyError struct {
	What string // "call 2 (patch, at byte 120)"
	Err  error
}

func (e *ReplyError) Error() string { return e.What + ": " + e.Err.Error() }
func (e *ReplyError) Unwrap() error { return e.Err }

// ReplyResult says what ApplyReply found in a reply.
type ReplyResult struct {
	Edits    int             // edits run
	Skipped  []string        // calls that are not edits (shell, …), not run
	Problems []parse.Problem // what looked like calls or edits but could not be read or was not applied
}

// ApplyReply runs every edit in a model reply, in reply order: the edit
// tool calls, and SEARCH/REPLACE blocks, unified diffs and whole-file
// blocks (which are not tool calls: FindSearchReplace, FindPasted). It stops
// at the first edit that fails, with a *ReplyError; the batch then holds the
// edits before it, which the caller discards or keeps.
func (b *Batch) ApplyReply(ctx context.Context, reply string, format tools.Format, reg *tools.Registry) (ReplyResult, error) {
	var res ReplyResult
	p := parse.NewParser(parse.Options{Format: format, Lookup: reg.Lookup, KeepBlocks: true})
	p.WriteString(reply)
	p.Finish()
	res.Problems = p.Problems()

	type step struct {
		start int
		what  string
		run   func() error
	}
	var steps []step
	calls := map[int]bool{}
	for i, use := range p.ToolUses() {
		calls[use.Start] = true
		spec, ok := reg.Get(use.Tool)
		if !ok || !IsEditTool(spec.Name) {
			res.Skipped = append(res.Skipped, fmt.Sprintf("call %d (%s)", i+1, use.Tool))
			continue
		}
		steps = append(steps, step{use.Start, fmt.Sprintf("call %d (%s, at byte %d)", i+1, use.Tool, use.Start), func() error {
			_, err := b.Run(ctx, spec, use)
			return err
		}})
	}
	if format != tools.FormatXML {
		isCall := func(bl parse.Block) bool { return calls[bl.Start] }
		for _, sr := range FindSearchReplace(reply, p.Blocks(), isCall) {
			what := fmt.Sprintf("SEARCH/REPLACE block for %s (at byte %d)", sr.Path, sr.Start)
			if sr.Path == "" {
				what = fmt.Sprintf("SEARCH/REPLACE block (at byte %d)", sr.Start)
			}
			steps = append(steps, step{sr.Start, what, func() error {
				_, err := b.SearchReplace(ctx, sr.Path, sr.Patch)
				return err
			}})
		}
		// Unified diffs and whole files pasted from a chat (pasted.go).
		for _, pe := range FindPasted(reply, p.Blocks(), isCall) {
			if pe.Skipped != "" {
				res.Problems = append(res.Problems, parse.Problem{Start: pe.Start, Message: pe.Skipped})
				continue
			}
			steps = append(steps, step{pe.Start, pe.What(), func() error {
				_, err := b.ApplyPasted(ctx, pe)
				return err
			}})
		}
	}
	slices.SortStableFunc(steps, func(x, y step) int { return x.start - y.start })
	for _, st := range steps {
		if err := st.run(); err != nil {
			return res, &ReplyError{What: st.what, Err: err}
		}
		res.Edits++
	}
	return res, nil
}
