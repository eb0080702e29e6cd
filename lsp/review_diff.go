package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

const cmdReviewDiff = "agentls.review.diff"

// "Show diff" renders pending hunks as a unified diff against what the
// buffers hold now, writes it to a file in the server's scratch directory
// and asks the editor to open it with window/showDocument. Editors
// without showDocument get the file's path in a message, and every editor
// gets the diff in its output channel: plain LSP has no other way to show
// a document the server made.

func (s *Server) reviewDiffCommand(_ context.Context, a reviewArgs) (any, error) {
	if a == (reviewArgs{}) {
		a.All = true // no selector: every pending hunk
	}
	s.goBackground("review diff", func(ctx context.Context) { s.showReviewDiff(ctx, a) })
	return nil, nil
}

func (s *Server) showReviewDiff(ctx context.Context, a reviewArgs) {
	hs := s.review.peek(a, s.relPathOfURI)
	if len(hs) == 0 {
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: no pending agent edit there")
		return
	}
	text := s.pendingDiff(ctx, hs)
	s.logMessage(ctx, protocol.MessageTypeInfo, text)
	name, err := s.writeScratch("pending.diff", text)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot write the diff: %v (it is in the output channel)", err)
		return
	}
	if s.showDocument(ctx, name) {
		return
	}
	s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: the diff of %d pending %s is in %s", len(hs), plural(len(hs), "edit", "edits"), name)
}

// pendingDiff renders hunks, grouped by file, as one unified diff against
// the files' current text. Hunks that conflict with the user's changes
// are named in the header instead: there is nothing to show them against.
func (s *Server) pendingDiff(ctx context.Context, hs []*pendingHunk) string {
	src := s.source()
	var order []string
	byFile := map[string][]*pendingHunk{}
	for _, h := range hs {
		if byFile[h.path] == nil {
			order = append(order, h.path)
		}
		byFile[h.path] = append(byFile[h.path], h)
	}
	var ids, conflicts []string
	var body strings.Builder
	for _, path := range order {
		cur, _, _, err := src.Read(ctx, path)
		if err != nil {
			conflicts = append(conflicts, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		c := edits.NewModify(path, cur, edits.NotOpen, cur)
		for _, h := range byFile[path] {
			switch {
			case h.create:
				c.Action, c.Base = edits.Create, ""
				c.SetResult(h.content)
			case h.remove:
				c.Action = edits.Delete
				c.SetResult("")
			default:
				next, err := edits.ApplyHunks(c.Result(), []edits.Hunk{h.hunk})
				if err != nil {
					conflicts = append(conflicts, fmt.Sprintf("edit %d in %s conflicts with your changes; it can only be rejected", h.id, path))
					continue
				}
				c.SetResult(next)
			}
			ids = append(ids, fmt.Sprint(h.id))
		}
		body.WriteString(c.UnifiedDiff())
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# agentls: pending agent %s %s; accept or reject them with the code actions on the changed lines.\n",
		plural(len(ids), "edit", "edits"), strings.Join(ids, ", "))
	for _, c := range conflicts {
		fmt.Fprintf(&out, "# %s\n", c)
	}
	out.WriteString(body.String())
	return out.String()
}

// writeScratch writes a file the server made for the user to read into
// its scratch directory, created on first use and removed on exit.
func (s *Server) writeScratch(name, text string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scratch == "" {
		dir, err := os.MkdirTemp("", "agentls-")
		if err != nil {
			return "", fmt.Errorf("scratch directory: %w", err)
		}
		s.scratch = dir
	}
	name = filepath.Join(s.scratch, name)
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}
