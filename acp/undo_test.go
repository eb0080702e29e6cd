package acp

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/edits/journal"
)

// workspaceFiles is where a client keeps a test's files: the client's
// buffers when it offers fs/* (the disk is only read for a file it has no
// buffer of), else the disk.
type workspaceFiles struct {
	client *fakeClient
	fs     bool
}

// read is path's text, and whether it exists.
func (w workspaceFiles) read(path string) (string, bool) {
	if w.fs {
		w.client.mu.Lock()
		text, ok := w.client.buffers[path]
		w.client.mu.Unlock()
		if ok {
			return text, true
		}
	}
	data, err := os.ReadFile(path)
	return string(data), err == nil
}

// write changes path as the user does: in the buffer, or on the disk.
func (w workspaceFiles) write(t *testing.T, path, text string) {
	t.Helper()
	if w.fs {
		w.client.mu.Lock()
		w.client.buffers[path] = text
		w.client.mu.Unlock()
		return
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// want fails t unless every file holds its text.
func (w workspaceFiles) want(t *testing.T, when string, files map[string]string) {
	t.Helper()
	for path, want := range files {
		if got, _ := w.read(path); got != want {
			t.Errorf("%s: %s holds %q, want %q", when, filepath.Base(path), got, want)
		}
	}
}

// initialize opens conn as a client offering fs/* or not.
func initialize(t *testing.T, conn *sdk.ClientSideConnection, fs bool) {
	t.Helper()
	if _, err := conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// clientKinds are the two places an edit goes: the client's buffers
// (fs/write_text_file) and the disk (a client without fs/*).
var clientKinds = []struct {
	name string
	fs   bool
}{{"through the client", true}, {"on disk", false}}

// restartable is one workspace with the state and settings folders an
// agent on it reads, so that a second agent can take over from a first.
type restartable struct {
	env  map[string]string
	root string
}

func newRestartable(t *testing.T, url string) restartable {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	return restartable{env: agentEnv(url, t.TempDir(), t.TempDir()), root: root}
}

// start serves an agent to client, initialized with or without fs/*.
func (r restartable) start(t *testing.T, client *fakeClient, fs bool) (*sdk.ClientSideConnection, func()) {
	t.Helper()
	if client.buffers == nil {
		client.buffers = map[string]string{}
	}
	conn, stop := serveAgent(t, r.env, client)
	initialize(t, conn, fs)
	return conn, stop
}

// journal reads the workspace's undo journal from the state folder, as
// a language server starting on it does.
func (r restartable) journal(t *testing.T) *journal.Journal {
	t.Helper()
	d, err := journal.OpenDisk(func(k string) string { return r.env[k] }, r.root)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal.Journal{}
	if p := j.Attach(d); p != "" {
		t.Fatal(p)
	}
	return j
}

// TestUndoRedoInJournal: an edit call is recorded in the workspace's
// undo journal (the one the language server keeps, in the state folder),
// and /undo and /redo take it from there: both files back, then both
// edited again, wherever the edit went.
func TestUndoRedoInJournal(t *testing.T) {
	for _, kind := range clientKinds {
		t.Run(kind.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
			defer srv.Close()
			ws := newRestartable(t, srv.URL)
			client := &fakeClient{}
			conn, _ := ws.start(t, client, kind.fs)
			sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: ws.root, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			id := sess.SessionId
			files := workspaceFiles{client, kind.fs}
			a, b := filepath.Join(ws.root, "a.txt"), filepath.Join(ws.root, "b.txt")
			os.WriteFile(a, []byte("one\n"), 0o644)
			os.WriteFile(b, []byte("two\n"), 0o644)
			prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
			files.want(t, "after the edit", map[string]string{a: "ONE\n", b: "TWO\n"})

			// The journal on disk has the edit under the turn, both files.
			turn, es, err := ws.journal(t).PickTurn(true, 0)
			if err != nil || turn != 1 || len(es) != 1 || !strings.HasPrefix(es[0].Label, "ACP turn 1 (a.txt, b.txt)") || len(journal.TurnFiles(es)) != 2 {
				t.Fatalf("the journal on disk: turn %d, entries %+v, %v", turn, es, err)
			}
			for _, step := range []struct {
				prompt, said string
				files        map[string]string
			}{
				{"/undo", "Undid turn 1's edits.", map[string]string{a: "one\n", b: "two\n"}},
				{"/undo", "Nothing to undo", map[string]string{a: "one\n", b: "two\n"}},
				{"/redo", "Redid turn 1's edits.", map[string]string{a: "ONE\n", b: "TWO\n"}},
				{"/redo", "Nothing to redo", map[string]string{a: "ONE\n", b: "TWO\n"}},
			} {
				client.takeUpdates()
				prompt(t, conn, id, sdk.TextBlock(step.prompt))
				if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, step.said) {
					t.Errorf("%s said %q, want %q", step.prompt, msgs, step.said)
				}
				files.want(t, "after "+step.prompt, step.files)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("the model was asked %d times: /undo and /redo ask it nothing", n)
			}
		})
	}
}

// TestUndoAfterRestart: a session edits two files; its agent goes away
// (the editor restarted it); a new agent on the same folder and state
// loads the session, and /undo puts both files back, from the journal
// kept on disk — then /redo makes them again.
func TestUndoAfterRestart(t *testing.T) {
	for _, kind := range clientKinds {
		t.Run(kind.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
			defer srv.Close()
			ws := newRestartable(t, srv.URL)
			a, b := filepath.Join(ws.root, "a.txt"), filepath.Join(ws.root, "b.txt")
			os.WriteFile(a, []byte("one\n"), 0o644)
			os.WriteFile(b, []byte("two\n"), 0o644)
			first := &fakeClient{}
			conn, stop := ws.start(t, first, kind.fs)
			sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: ws.root, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			prompt(t, conn, sess.SessionId, sdk.TextBlock("capitalise a.txt and b.txt"))
			stop()

			// The editor keeps its buffers across the agent's restart.
			again := &fakeClient{}
			conn2, _ := ws.start(t, again, kind.fs)
			again.buffers = maps.Clone(first.buffers)
			files := workspaceFiles{again, kind.fs}
			files.want(t, "after the restart", map[string]string{a: "ONE\n", b: "TWO\n"})
			if _, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: ws.root, McpServers: []sdk.McpServer{}}); err != nil {
				t.Fatalf("session/load: %v", err)
			}
			again.takeUpdates()
			prompt(t, conn2, sess.SessionId, sdk.TextBlock("/undo"))
			if msgs, _ := texts(again.takeUpdates()); !strings.Contains(msgs, "Undid turn 1's edits.") {
				t.Errorf("/undo after the restart said %q", msgs)
			}
			files.want(t, "/undo after the restart", map[string]string{a: "one\n", b: "two\n"})
			prompt(t, conn2, sess.SessionId, sdk.TextBlock("/redo"))
			if msgs, _ := texts(again.takeUpdates()); !strings.Contains(msgs, "Redid turn 1's edits.") {
				t.Errorf("/redo after the restart said %q", msgs)
			}
			files.want(t, "/redo after the restart", map[string]string{a: "ONE\n", b: "TWO\n"})
		})
	}
}

// TestUndoRefusedLeavesEveryFile: when one file of a turn changed since
// the turn left it (edited, deleted, or the turn's new file rewritten),
// /undo writes no file, says which one changed, and can still undo the
// turn once the file is back as the turn left it. (A file created through
// fs/write_text_file is on the disk only once the client saves it, which
// the fake client never does: the cases with a new file are on disk.)
func TestUndoRefusedLeavesEveryFile(t *testing.T) {
	const withNewFile = "```apply_patch\n*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** Add File: c.txt\n+three\n*** End Patch\n```\n"
	tests := []struct {
		name, file, userText string // userText "": the user deleted the file
		fs                   bool
		said                 string
	}{
		{"the first file edited in the buffer", "a.txt", "ONE, and mine\n", true, "a.txt changed since turn 1 left it"},
		{"the second file edited in the buffer", "b.txt", "TWO, and mine\n", true, "b.txt changed since turn 1 left it"},
		{"the second file edited on disk", "b.txt", "TWO, and mine\n", false, "b.txt changed since turn 1 left it"},
		{"the new file rewritten on disk", "c.txt", "mine\n", false, "c.txt changed since turn 1 left it"},
		{"the second file deleted", "b.txt", "", false, "b.txt was deleted since turn 1 left it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, left := twoFilePatch, map[string]string{"a.txt": "ONE\n", "b.txt": "TWO\n"}
			if !tt.fs {
				patch, left["c.txt"] = withNewFile, "three\n"
			}
			srv := modeltest.New(modeltest.Text(patch, 7), modeltest.Text("Changed them.", 5))
			defer srv.Close()
			ws := newRestartable(t, srv.URL)
			client := &fakeClient{}
			conn, _ := ws.start(t, client, tt.fs)
			sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: ws.root, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			id := sess.SessionId
			files := workspaceFiles{client, tt.fs}
			path := func(name string) string { return filepath.Join(ws.root, name) }
			for name, text := range maps.Clone(left) {
				delete(left, name)
				left[path(name)] = text
			}
			os.WriteFile(path("a.txt"), []byte("one\n"), 0o644)
			os.WriteFile(path("b.txt"), []byte("two\n"), 0o644)
			prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt, add c.txt"))
			files.want(t, "after the edit", left)

			if tt.userText == "" {
				os.Remove(path(tt.file))
			} else {
				files.write(t, path(tt.file), tt.userText)
			}
			client.mu.Lock()
			writes := len(client.writes)
			client.mu.Unlock()
			client.takeUpdates()
			prompt(t, conn, id, sdk.TextBlock("/undo"))
			updates := client.takeUpdates()
			if msgs, _ := texts(updates); !strings.Contains(msgs, "Nothing was undone: "+tt.said) {
				t.Errorf("the refused /undo said %q, want %q", msgs, tt.said)
			}
			if _, end := lastCall(t, updates); *end.Status != sdk.ToolCallStatusFailed {
				t.Errorf("the refused undo's call ended %q", *end.Status)
			}
			user := maps.Clone(left)
			delete(user, path(tt.file))
			files.want(t, "after the refused /undo", user)
			if got, exists := files.read(path(tt.file)); got != tt.userText || exists != (tt.userText != "") {
				t.Errorf("%s holds %q (exists %v) after the refused /undo, want the user's %q", tt.file, got, exists, tt.userText)
			}
			client.mu.Lock()
			if n := len(client.writes); n != writes {
				t.Errorf("the refused /undo wrote %q", client.writes[writes:])
			}
			client.mu.Unlock()

			// Back as the turn left it, the turn can be undone.
			files.write(t, path(tt.file), left[path(tt.file)])
			prompt(t, conn, id, sdk.TextBlock("/undo"))
			if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "Undid turn 1's edits.") {
				t.Errorf("/undo once the file is back said %q", msgs)
			}
			files.want(t, "after the /undo", map[string]string{path("a.txt"): "one\n", path("b.txt"): "two\n"})
			if _, err := os.Stat(path("c.txt")); err == nil {
				t.Error("the undo left c.txt, which the turn created")
			}
		})
	}
}

// TestEditsOptionKeptAcrossLoad: the Edits option a client set (review
// or apply) is the loaded session's too, and its edits go where the
// option says.
func TestEditsOptionKeptAcrossLoad(t *testing.T) {
	for _, mode := range []string{editsReview, editsApply} {
		t.Run(mode, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Done.", 5))
			defer srv.Close()
			ws := newRestartable(t, srv.URL)
			a, b := filepath.Join(ws.root, "a.txt"), filepath.Join(ws.root, "b.txt")
			os.WriteFile(a, []byte("one\n"), 0o644)
			os.WriteFile(b, []byte("two\n"), 0o644)
			conn, stop := ws.start(t, &fakeClient{}, false)
			sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: ws.root, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatal(err)
			}
			// Review, then the mode: apply must be kept over an earlier review.
			for _, v := range []string{editsReview, mode} {
				if _, err := conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
					SessionId: sess.SessionId, ConfigId: configEdits, Value: sdk.SessionConfigValueId(v)}}); err != nil {
					t.Fatal(err)
				}
			}
			stop()

			client := &fakeClient{}
			conn2, _ := ws.start(t, client, false)
			resp, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: ws.root, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatalf("session/load: %v", err)
			}
			var got sdk.SessionConfigValueId
			for _, o := range resp.ConfigOptions {
				if o.Select != nil && o.Select.Id == configEdits {
					got = o.Select.CurrentValue
				}
			}
			if string(got) != mode {
				t.Errorf("the loaded session's Edits option is %q, want %q", got, mode)
			}
			prompt(t, conn2, sess.SessionId, sdk.TextBlock("capitalise a.txt and b.txt"))
			want := map[string]string{editsReview: "one\n", editsApply: "ONE\n"}[mode]
			if data, _ := os.ReadFile(a); string(data) != want {
				t.Errorf("in %s mode a.txt holds %q after the edit, want %q", mode, data, want)
			}
		})
	}
}

// TestOptionSetDuringTurnIsKept: the Edits option set while a turn ends
// (both save the session) is kept, and so is the turn's edit: the loaded
// session is in review mode and can undo the turn.
func TestOptionSetDuringTurnIsKept(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
	defer srv.Close()
	ws := newRestartable(t, srv.URL)
	a, b := filepath.Join(ws.root, "a.txt"), filepath.Join(ws.root, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("two\n"), 0o644)
	client := &fakeClient{}
	conn, stop := ws.start(t, client, false)
	sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: ws.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	set := make(chan error, 1)
	var once sync.Once
	client.onUpdate = func(u sdk.SessionUpdate) {
		// The edit call ended (its edit written and recorded): set the
		// option while the turn saves itself.
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted {
			once.Do(func() {
				go func() {
					_, err := conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
						SessionId: sess.SessionId, ConfigId: configEdits, Value: editsReview}})
					set <- err
				}()
			})
		}
	}
	prompt(t, conn, sess.SessionId, sdk.TextBlock("capitalise a.txt and b.txt"))
	if err := <-set; err != nil {
		t.Fatal(err)
	}
	stop()

	again := &fakeClient{}
	conn2, _ := ws.start(t, again, false)
	resp, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: ws.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if last := resp.ConfigOptions[len(resp.ConfigOptions)-1].Select; last == nil || last.Id != configEdits || last.CurrentValue != editsReview {
		t.Errorf("the loaded session's options: %+v", resp.ConfigOptions)
	}
	prompt(t, conn2, sess.SessionId, sdk.TextBlock("/undo"))
	files := workspaceFiles{again, false}
	files.want(t, "/undo after the load", map[string]string{a: "one\n", b: "two\n"})
}

// TestUndoAfterUserPutFileBack: a file the user already put back as it
// was before the turn is left as it is, the other files are undone, and
// the message says which was left; when every file is back, nothing is
// written and the turn counts as undone (/redo makes it again).
func TestUndoAfterUserPutFileBack(t *testing.T) {
	tests := []struct {
		name    string
		putBack []string
		said    string
	}{
		{"one file", []string{"a.txt"}, "Undid turn 1's edits (a.txt already held what the undo gives, so it was left as it is)."},
		{"every file", []string{"a.txt", "b.txt"}, "Nothing to write for turn 1's undo: every file it changed already holds what the undo gives."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
			defer srv.Close()
			client := &fakeClient{}
			conn, id, root := connect(t, srv.URL, client, true)
			files := workspaceFiles{client, true}
			a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
			os.WriteFile(a, []byte("one\n"), 0o644)
			os.WriteFile(b, []byte("two\n"), 0o644)
			prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
			before := map[string]string{"a.txt": "one\n", "b.txt": "two\n"}
			for _, name := range tt.putBack {
				files.write(t, filepath.Join(root, name), before[name])
			}
			client.mu.Lock()
			writes := len(client.writes)
			client.mu.Unlock()
			client.takeUpdates()
			prompt(t, conn, id, sdk.TextBlock("/undo"))
			if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, tt.said) {
				t.Errorf("/undo said %q, want %q", msgs, tt.said)
			}
			files.want(t, "after /undo", map[string]string{a: "one\n", b: "two\n"})
			client.mu.Lock()
			if n := len(client.writes) - writes; n != 2-len(tt.putBack) {
				t.Errorf("/undo wrote %q, want only the files not put back", client.writes[writes:])
			}
			client.mu.Unlock()
			prompt(t, conn, id, sdk.TextBlock("/redo"))
			files.want(t, "after /redo", map[string]string{a: "ONE\n", b: "TWO\n"})
		})
	}
}
