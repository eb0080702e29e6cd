package acp

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/text"
)

// In review mode (the Edits option set to review) an edit call's
// changes are not written: they wait as pending hunks, numbered for the
// session, as the language server's review mode keeps them (each an
// edits.Hunk with as little context as makes it unique, so it is found
// again in whatever the file holds when the user acts). The call shows
// them as diffs; /review lists them, and /review accept or reject takes
// some or all. Accepted hunks are applied to the files as they are then
// (read through the client when it offers fs/read_text_file) and written
// as any edit is, all or nothing: through fs/write_text_file, or to the
// disk; every path is checked again where it is written, so a hunk
// cannot land outside the workspace whatever happened to the folders
// since. A hunk that no longer applies fails the whole accept, and the
// hunks wait again. An accept is a turn /undo can take back. The
// pending hunks are kept with the session's transcript, in the state
// folder, so they wait across a restart (session/load).

// A pendingHunk is one change waiting for the user.
type pendingHunk struct {
	id      int
	path    string // relative to the root, slash-separated
	create  bool   // a new file, content whole
	remove  bool   // the file deleted
	content string
	hunk    edits.Hunk
}

// reviewing reports whether the session holds edits for review.
func (s *session) reviewing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.review
}

// hold queues an edit call's changes for review and returns their ids.
func (s *session) hold(changes []*edits.FileChange) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []int
	add := func(h pendingHunk) {
		s.hunks++
		h.id = s.hunks
		s.pending = append(s.pending, h)
		ids = append(ids, h.id)
	}
	for _, c := range changes {
		switch c.Action {
		case edits.Create:
			add(pendingHunk{path: c.Path, create: true, content: c.Result()})
		case edits.Delete:
			add(pendingHunk{path: c.Path, remove: true})
		default:
			for _, h := range edits.UniqueHunks(c.Base(), c.Result()) {
				add(pendingHunk{path: c.Path, hunk: h})
			}
		}
	}
	return ids
}

// heldMessage tells the model where its edit went in review mode.
func heldMessage(ids []int, names []string) string {
	var nums []string
	for _, id := range ids {
		nums = append(nums, strconv.Itoa(id))
	}
	return fmt.Sprintf("Held for the user's review, not written yet: %s (pending %s %s). The files are unchanged until the user accepts; do not make this change again.",
		strings.Join(names, ", "), plural(len(ids), "hunk", "hunks"), strings.Join(nums, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// reviewCommand is /review: with no argument, the pending hunks; with
// "accept" or "reject" and "all", hunk numbers or paths, it takes those.
func (s *session) reviewCommand(ctx context.Context, arg string, turn int, calls *tracker) {
	fields := strings.Fields(arg)
	if len(fields) == 0 || fields[0] == "list" {
		calls.message(s.pendingList())
		return
	}
	verb := fields[0]
	if (verb != "accept" && verb != "reject") || len(fields) < 2 {
		calls.message("Usage: /review (list the pending hunks), /review accept all|N…|PATH…, /review reject all|N…|PATH…")
		return
	}
	taken, why := s.take(fields[1:])
	if len(taken) == 0 {
		calls.message(why)
		return
	}
	defer s.persist() // what waits now, kept for session/load
	if verb == "reject" {
		calls.message(fmt.Sprintf("Rejected %d pending %s; nothing was written.", len(taken), plural(len(taken), "hunk", "hunks")))
		return
	}
	if err := s.accept(ctx, taken, turn, calls); err != nil {
		s.putBack(taken)
		calls.message(fmt.Sprintf("Nothing was accepted: %v. The hunks wait again.", err))
		return
	}
	calls.message(fmt.Sprintf("Accepted %d %s; /undo takes them back.", len(taken), plural(len(taken), "hunk", "hunks")))
}

// pendingList shows the pending hunks, each numbered, as diffs.
func (s *session) pendingList() string {
	s.mu.Lock()
	pending := slices.Clone(s.pending)
	s.mu.Unlock()
	if len(pending) == 0 {
		return "No edit is waiting for review."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d pending %s (/review accept all|N…|PATH…, /review reject …):\n", len(pending), plural(len(pending), "hunk", "hunks"))
	for _, h := range pending {
		var body string
		switch {
		case h.create:
			fmt.Fprintf(&b, "\n%d. %s (new file)\n", h.id, h.path)
			body = h.content
		case h.remove:
			fmt.Fprintf(&b, "\n%d. %s (deleted)\n", h.id, h.path)
			continue
		default:
			fmt.Fprintf(&b, "\n%d. %s\n", h.id, h.path)
			var lines []string
			for _, l := range h.hunk.Original {
				lines = append(lines, "-"+l)
			}
			for _, l := range h.hunk.Updated {
				lines = append(lines, "+"+l)
			}
			body = strings.Join(lines, "\n")
		}
		fence := text.Fence(body)
		fmt.Fprintf(&b, "%sdiff\n%s\n%s\n", fence, strings.TrimSuffix(body, "\n"), fence)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// take removes the hunks a selection names from the pending ones: "all",
// hunk numbers, or paths (every hunk of the file). A selection that
// names nothing pending takes nothing, and says why.
func (s *session) take(sel []string) ([]pendingHunk, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return nil, "No edit is waiting for review."
	}
	want := func(pendingHunk) bool { return true }
	if !(len(sel) == 1 && sel[0] == "all") {
		ids, paths := map[int]bool{}, map[string]bool{}
		for _, f := range sel {
			if n, err := strconv.Atoi(f); err == nil {
				if !slices.ContainsFunc(s.pending, func(h pendingHunk) bool { return h.id == n }) {
					return nil, fmt.Sprintf("No pending hunk %d (/review lists them); nothing was taken.", n)
				}
				ids[n] = true
				continue
			}
			p := strings.TrimPrefix(f, "./")
			if !slices.ContainsFunc(s.pending, func(h pendingHunk) bool { return h.path == p }) {
				return nil, fmt.Sprintf("No pending hunk in %s (/review lists them); nothing was taken.", f)
			}
			paths[p] = true
		}
		want = func(h pendingHunk) bool { return ids[h.id] || paths[h.path] }
	}
	var taken, left []pendingHunk
	for _, h := range s.pending {
		if want(h) {
			taken = append(taken, h)
		} else {
			left = append(left, h)
		}
	}
	s.pending = left
	return taken, ""
}

// putBack returns hunks to the pending ones, in their order.
func (s *session) putBack(hs []pendingHunk) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, hs...)
	slices.SortFunc(s.pending, func(a, b pendingHunk) int { return a.id - b.id })
}

// accept applies hunks to the files as they are now and writes them all
// or none, as one call with a diff per file, recorded for /undo.
func (s *session) accept(ctx context.Context, taken []pendingHunk, turn int, calls *tracker) error {
	ws := &workspace{s: s, turn: turn, calls: calls}
	var cs edits.Changeset
	byFile := map[string][]edits.Hunk{}
	var order []string
	for _, h := range taken {
		if _, err := edits.ResolveInRoot(s.root, h.path); err != nil {
			return fmt.Errorf("%s: %w", h.path, err)
		}
		switch {
		case h.create:
			cs.Write(h.path, "", false, edits.NotOpen, h.content)
		case h.remove:
			cur, _, exists, err := ws.Read(ctx, h.path)
			if err != nil || !exists {
				return fmt.Errorf("%s: cannot delete it: %v", h.path, orGone(err))
			}
			cs.Remove(h.path, cur, edits.NotOpen)
		default:
			if byFile[h.path] == nil {
				order = append(order, h.path)
			}
			byFile[h.path] = append(byFile[h.path], h.hunk)
		}
	}
	for _, p := range order {
		cur, _, exists, err := ws.Read(ctx, p)
		if err != nil || !exists {
			return fmt.Errorf("%s: %v", p, orGone(err))
		}
		result, err := edits.ApplyHunks(cur, byFile[p])
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		cs.Write(p, cur, true, edits.NotOpen, result)
	}
	c := calls.begin(fmt.Sprintf("accept %d reviewed %s", len(taken), plural(len(taken), "hunk", "hunks")), sdk.ToolKindEdit)
	_, err := ws.apply(ctx, &cs)
	if err != nil {
		calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(err.Error()))})))
		return err
	}
	changes := cs.Effective()
	if note := s.record(turn, "accepted review", changes); note != "" {
		calls.message(fmt.Sprintf("\n> agentls: %s\n\n", note))
	}
	content := []sdk.ToolCallContent{}
	for _, fc := range changes {
		content = append(content, diffOf(ws.abs(fc.Path), fc))
	}
	calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateContent(content)))
	return nil
}

// orGone is err, or that the file is gone.
func orGone(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("the file no longer exists")
}
