package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

const cmdReviewDiff = "agentls.review.diff"

// "Show diff" renders pending hunks as a unified diff against what the
// buffers hold now, writes it to a file in the server's scratch directory
// and asks the editor to open it with window/showDocument. Editors
// without showDocument get the file's path in a message, and every editor
// gets the diff in its output channel: plain LSP has no other way to show
// a document the server made.

func (v *pendingView) diffCommand(_ context.Context, a reviewArgs) (any, error) {
	if a == (reviewArgs{}) {
		a.All = true // no selector: every pending hunk
	}
	v.goBackground("review diff", func(ctx context.Context) { v.showDiff(ctx, a) })
	return nil, nil
}

func (v *pendingView) showDiff(ctx context.Context, a reviewArgs) {
	hs := v.store.Peek(a.selector(v.session().relPathOfURI))
	if len(hs) == 0 {
		v.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: no pending agent edit there")
		return
	}
	text := v.diff(ctx, hs)
	v.client.logMessage(ctx, protocol.MessageTypeInfo, text)
	name, err := v.scratch.write("pending.diff", text)
	if err != nil {
		v.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot write the diff: %v (it is in the output channel)", err)
		return
	}
	if v.client.showDocument(ctx, name) {
		return
	}
	v.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: the diff of %d pending %s is in %s", len(hs), plural(len(hs), "edit", "edits"), name)
}
