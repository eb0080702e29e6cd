package lsp

import (
	"github.com/agentls/agentls/edits"
)

// A session is what initialize settled for the connection: the workspace,
// what the client can do and how it counts positions. It is made once,
// in initialize, and never changed, so it is read without a lock
// (Server.session); before initialize it is the zero session with UTF-16
// positions.
type session struct {
	// root is the workspace root, absolute, symlinks resolved; "" when the
	// client named none (edits then have nowhere to go, and say so).
	root     string
	client   string // the clientInfo name ("" when the client sent none)
	caps     clientCapabilities
	encoding edits.Encoding
	quirks   quirks
}

// noSession is the session before initialize.
var noSession = &session{encoding: edits.UTF16}

// session returns the connection's session (noSession before initialize).
func (s *Server) session() *session {
	if sess := s.sess.Load(); sess != nil {
		return sess
	}
	return noSession
}

// Locks. The Server's state is split by owner, each with its own lock:
//
//   - the session: none (immutable once initialize made it);
//   - Server.mu: the lifecycle only (state, problems before initialized);
//   - the stores: documents.Store's (buffers and the echo watches),
//     review.Store's (pending hunks), journal.Journal's (edits to undo;
//     the disk journal's counters under an flock of their own),
//     settingsStore.mu, tasks.mu, answers.mu, approvals.mu,
//     commandProblems, chatsRunning, outputChannel.mu, scratchDir.mu,
//     sessionUsage.mu, commandProgress, replyCounts.mu, the delivery's
//     unansweredEdits.mu, rpc.Inbound's, commandHost.mu.
//
// A store's methods take its lock and call no other store (for the
// stores carved into lsp/internal, their imports make it the compiler's
// rule: TestInternalPackagesStayApart), with one exception:
// documents.Store.Apply holds its lock while didChange tells the reply
// counts, the review store and the answers what changed
// (replies.follow, review.Store.Follow, answers.has), so the order is
// documents → replyCounts.mu, the review store's and answers.mu, never
// the reverse. No lock is held while calling the client or a tool.
// Server.mu is never held while taking another lock, except in
// initialize, which attaches the journal and loads the settings before
// any other message is handled.
