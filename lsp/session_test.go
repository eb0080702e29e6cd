package lsp

import "testing"

// testSession gives a server made by newServer the session initialize
// would have made: a workspace root and a client that takes
// documentChanges (UTF-16 positions unless enc says otherwise).
func testSession(s *Server, root string) *session {
	sess := &session{root: root}
	sess.caps.Workspace.WorkspaceEdit.DocumentChanges = true
	s.sess.Store(sess)
	return sess
}

func TestSessionBeforeInitialize(t *testing.T) {
	s := newServer(Options{})
	if got := s.session(); got.root != "" || got.encoding != noSession.encoding {
		t.Errorf("session before initialize = %+v, want the zero session", got)
	}
}
