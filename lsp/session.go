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
//   - Server.mu: the lifecycle only (state, problems before initialized,
//     the scratch folder);
//   - the stores: documents.mu (buffers and the echo watches),
//     review.mu (pending hunks), journal.mu (edits to undo; the disk
//     journal's counters under an flock of their own), settingsStore.mu,
//     tasks.mu, answers.mu, approvals.mu, commandProblems, chatsRunning,
//     outputChannel.mu, unansweredEdits.mu, inbound.mu, Server.hostMu.
//
// A store's methods take its lock and call no other store, with one
// exception: didChange holds documents.mu while it tells the reply
// counts, the review store and the answers what changed (replies.follow,
// review.follow, answers.has), so the order is documents.mu →
// replyCounts.mu, review.mu and answers.mu, never the reverse. No lock is held while calling the client or a
// tool. Server.mu is never held while taking another lock, except in
// initialize, which attaches the journal and loads the settings before
// any other message is handled.
