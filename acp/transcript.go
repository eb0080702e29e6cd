package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/statedir"
)

// A transcript is a session as session/load replays it: each turn's
// prompt, what the client was shown of it (the model's text, its calls
// and how they ended), its closing reply (the next turns' history) and
// its conversation log. It is kept in the state folder, one file a
// session, never in the workspace.
type transcript struct {
	Cwd   string      `json:"cwd"`
	Turns []savedTurn `json:"turns"`
	// Pending are the edits waiting for /review (review.go), and Hunks
	// the last one's number: they wait across a restart too.
	Pending []savedHunk `json:"pending,omitempty"`
	Hunks   int         `json:"hunks,omitempty"`
	// Edits is the Edits option (config.go), apply or review: a session
	// set to review stays so when loaded.
	Edits string `json:"edits,omitempty"`
	// EditTurns are the session's turns that applied edits, by their
	// number in the workspace's undo journal (undo.go), oldest first: a
	// loaded session can undo them.
	EditTurns []int `json:"editTurns,omitempty"`
}

// A savedHunk is a pendingHunk as the transcript keeps it.
type savedHunk struct {
	ID      int        `json:"id"`
	Path    string     `json:"path"`
	Create  bool       `json:"create,omitempty"`
	Remove  bool       `json:"remove,omitempty"`
	Content string     `json:"content,omitempty"`
	Hunk    edits.Hunk `json:"hunk"`
}

type savedTurn struct {
	Prompt string      `json:"prompt"`
	Text   string      `json:"text,omitempty"`
	Calls  []savedCall `json:"calls,omitempty"`
	Final  string      `json:"final,omitempty"`
	Log    string      `json:"log,omitempty"`
	// Plan is the last plan the turn showed (plan.go).
	Plan []sdk.PlanEntry `json:"plan,omitempty"`
}

type savedCall struct {
	Title  string             `json:"title"`
	Kind   sdk.ToolKind       `json:"kind"`
	Status sdk.ToolCallStatus `json:"status"`
}

// sessionIDs are the names agentls gives sessions: only these are read
// back, so a client's sessionId cannot name another file.
var sessionIDs = regexp.MustCompile(`^agentls-[0-9a-f]{24}$`)

// transcriptFile is where root's session id is kept.
func transcriptFile(getenv func(string) string, root string, id sdk.SessionId) (string, error) {
	if !sessionIDs.MatchString(string(id)) {
		return "", fmt.Errorf("%q is not a session of agentls", id)
	}
	dir, err := statedir.Dir(getenv, "acp", root)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, string(id)+".json"), nil
}

// readTranscript reads root's session id.
func readTranscript(getenv func(string) string, root string, id sdk.SessionId) (transcript, error) {
	var t transcript
	name, err := transcriptFile(getenv, root, id)
	if err != nil {
		return t, err
	}
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return t, fmt.Errorf("no session %s in %s", id, root)
	}
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("session %s: %w", id, err)
	}
	if t.Cwd != root {
		return t, fmt.Errorf("session %s was in %s, not %s", id, t.Cwd, root)
	}
	return t, nil
}

// save writes the session's transcript, whole, replacing the old one at
// once (a crash leaves the old or the new, never half of one).
func (s *session) save(t transcript) error {
	name, err := transcriptFile(s.a.opts.Getenv, s.root, s.id)
	if err != nil {
		return err
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// remember adds a turn to the session's transcript and history.
func (s *session) remember(turn savedTurn) {
	s.mu.Lock()
	s.saved.Turns = append(s.saved.Turns, turn)
	s.history = append(s.history, agent.ChatMessage{Role: "user", Content: turn.Prompt})
	if turn.Final != "" {
		s.history = append(s.history, agent.ChatMessage{Role: "assistant", Content: turn.Final})
	}
	s.mu.Unlock()
	s.persist()
}

// persist saves the session's transcript as it is now: its turns, the
// edits waiting for review, the Edits option and the turns /undo can
// take. Saves are one at a time (a turn's edit, an option set meanwhile),
// each of the state as it is when it starts, so the last write is the
// newest state and no two share the temporary file.
func (s *session) persist() {
	s.saving.Lock()
	defer s.saving.Unlock()
	s.mu.Lock()
	saved := transcript{Cwd: s.root, Turns: append([]savedTurn(nil), s.saved.Turns...), Hunks: s.hunks,
		Edits: editsApply, EditTurns: slices.Clone(s.editTurns)}
	if s.review {
		saved.Edits = editsReview
	}
	for _, h := range s.pending {
		saved.Pending = append(saved.Pending, savedHunk{ID: h.id, Path: h.path, Create: h.create, Remove: h.remove, Content: h.content, Hunk: h.hunk})
	}
	s.mu.Unlock()
	if err := s.save(saved); err != nil {
		s.a.logf("session %s is not kept for session/load: %v", s.id, err)
	}
}

// resume takes back what a loaded transcript kept besides its turns:
// the edits held for review (their paths are checked again when they
// are accepted, as every pending hunk's is), the Edits option, and the
// turns /undo can take (from the journal, which checks each file again).
func (s *session) resume(t transcript) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.review = t.Edits == editsReview
	s.editTurns = slices.Clone(t.EditTurns)
	s.hunks = t.Hunks
	for _, h := range t.Pending {
		s.pending = append(s.pending, pendingHunk{id: h.ID, path: h.Path, create: h.Create, remove: h.Remove, content: h.Content, hunk: h.Hunk})
		s.hunks = max(s.hunks, h.ID)
	}
}

// replay shows the client a loaded session's turns, as session/load
// asks: each prompt as the user's message, then what the agent showed.
func (s *session) replay(t transcript, calls *tracker) {
	for _, turn := range t.Turns {
		calls.send(sdk.UpdateUserMessageText(turn.Prompt))
		if turn.Text != "" {
			calls.message(turn.Text)
		}
		for _, c := range turn.Calls {
			id := calls.nextID()
			calls.send(sdk.StartToolCall(id, c.Title, sdk.WithStartKind(c.Kind), sdk.WithStartStatus(c.Status)))
		}
		if len(turn.Plan) > 0 {
			calls.sendPlan(turn.Plan)
		}
	}
}
