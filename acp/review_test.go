package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// setReview sets a session's Edits option to review.
func setReview(t *testing.T, conn *sdk.ClientSideConnection, id sdk.SessionId) {
	t.Helper()
	resp, err := conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: configEdits, Value: editsReview}})
	if err != nil {
		t.Fatalf("set_config_option edits review: %v", err)
	}
	last := resp.ConfigOptions[len(resp.ConfigOptions)-1].Select
	if last == nil || last.Id != configEdits || last.CurrentValue != editsReview {
		t.Errorf("options after setting review: %+v", resp.ConfigOptions)
	}
}

// TestReviewMode: with the Edits option on review, an edit call writes
// nothing: its hunks wait, shown as diffs; /review lists them, rejects
// one and accepts the rest through fs/write_text_file, and /undo takes
// the accept back.
func TestReviewMode(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Proposed.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("two\n"), 0o644)
	setReview(t, conn, id)
	prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
	if len(client.writes) != 0 {
		t.Fatalf("review mode wrote %q", client.writes)
	}
	updates := client.takeUpdates()
	var offered []string
	for _, u := range updates {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				offered = append(offered, c.Name)
			}
		}
	}
	if !strings.Contains(strings.Join(offered, ","), "review") {
		t.Errorf("commands offered: %q", offered)
	}
	_, end := lastCall(t, updates)
	if *end.Status != sdk.ToolCallStatusCompleted || len(end.Content) != 2 || end.Content[0].Diff == nil || end.Content[0].Diff.NewText != "ONE\n" {
		t.Errorf("the held edit ended %+v", end)
	}
	if got := srv.Requests()[1].Body.Messages; !strings.Contains(got[len(got)-1].Content, "Held for the user's review") {
		t.Errorf("the model read %q", got[len(got)-1].Content)
	}
	for _, step := range []struct{ prompt, want string }{
		{"/review", "2 pending hunks"},
		{"/review accept 7", "No pending hunk 7"},
		{"/review reject 2", "Rejected 1 pending hunk"},
		{"/review", "1. a.txt"},
		{"/review accept all", "Accepted 1 hunk"},
		{"/review", "No edit is waiting for review."},
	} {
		prompt(t, conn, id, sdk.TextBlock(step.prompt))
		if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, step.want) {
			t.Errorf("%s said %q, want %q", step.prompt, msgs, step.want)
		}
	}
	if client.buffers[a] != "ONE\n" || client.buffers[b] != "" || strings.Join(client.writes, ",") != a {
		t.Errorf("after accepting hunk 1: buffers %q, writes %q", client.buffers, client.writes)
	}
	prompt(t, conn, id, sdk.TextBlock("/undo"))
	if client.buffers[a] != "one\n" {
		t.Errorf("/undo after an accept: a.txt %q", client.buffers[a])
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("/review asked the model (%d requests)", n)
	}
}

// TestAttackReviewOutsideRoot: a pending hunk cannot be made to land
// outside the workspace. Its folder replaced by a symbolic link to
// another folder holding the same file before /review accept, the accept
// writes nothing anywhere (through the client or to the disk), and the
// hunk waits again.
func TestAttackReviewOutsideRoot(t *testing.T) {
	patch := "```apply_patch\n*** Begin Patch\n*** Update File: sub/a.txt\n@@\n-one\n+OWNED\n*** End Patch\n```\n"
	for _, fs := range []bool{true, false} {
		name := "disk"
		if fs {
			name = "client fs"
		}
		t.Run(name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(patch, 7), modeltest.Text("Proposed.", 5))
			defer srv.Close()
			client := &fakeClient{}
			conn, id, root := connect(t, srv.URL, client, fs)
			os.MkdirAll(filepath.Join(root, "sub"), 0o755)
			os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("one\n"), 0o644)
			setReview(t, conn, id)
			prompt(t, conn, id, sdk.TextBlock("change sub/a.txt"))
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, "a.txt"), []byte("one\n"), 0o644)
			os.RemoveAll(filepath.Join(root, "sub"))
			if err := os.Symlink(outside, filepath.Join(root, "sub")); err != nil {
				t.Fatal(err)
			}
			client.takeUpdates()
			prompt(t, conn, id, sdk.TextBlock("/review accept all"))
			if data, _ := os.ReadFile(filepath.Join(outside, "a.txt")); string(data) != "one\n" {
				t.Errorf("a file outside the workspace was written: %q", data)
			}
			if len(client.writes) != 0 {
				t.Errorf("the client was asked to write %q", client.writes)
			}
			if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "Nothing was accepted") {
				t.Errorf("the user read %q", msgs)
			}
			prompt(t, conn, id, sdk.TextBlock("/review"))
			if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "1. sub/a.txt") {
				t.Errorf("the refused hunk does not wait again: %q", msgs)
			}
		})
	}
}

// TestReviewSurvivesLoad: the hunks waiting for review, and the turn's
// plan, are kept with the session: a new agentls that loads it replays
// the plan, and /review there lists and accepts the hunks.
func TestReviewSurvivesLoad(t *testing.T) {
	srv := modeltest.New(modeltest.Text("- [x] capitalise\n\n"+twoFilePatch, 7), modeltest.Text("Proposed.", 5))
	defer srv.Close()
	state, config := t.TempDir(), t.TempDir()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("two\n"), 0o644)
	env := agentEnv(srv.URL, state, config)
	open := func(client *fakeClient) *sdk.ClientSideConnection { return openAgent(t, env, client) }
	conn := open(&fakeClient{})
	sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	setReview(t, conn, sess.SessionId)
	prompt(t, conn, sess.SessionId, sdk.TextBlock("capitalise a.txt and b.txt"))

	again := &fakeClient{}
	conn2 := open(again)
	if _, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	var plan string
	for _, u := range again.takeUpdates() {
		if u.Plan != nil {
			plan = planString(u.Plan.Entries)
		}
	}
	if plan != "completed:capitalise" {
		t.Errorf("replayed plan %q", plan)
	}
	prompt(t, conn2, sess.SessionId, sdk.TextBlock("/review"))
	if msgs, _ := texts(again.takeUpdates()); !strings.Contains(msgs, "2 pending hunks") {
		t.Errorf("/review after session/load said %q", msgs)
	}
	prompt(t, conn2, sess.SessionId, sdk.TextBlock("/review accept all"))
	for name, want := range map[string]string{"a.txt": "ONE\n", "b.txt": "TWO\n"} {
		if data, _ := os.ReadFile(filepath.Join(root, name)); string(data) != want {
			t.Errorf("%s after accepting in the loaded session: %q", name, data)
		}
	}
	// Accepted, they wait no more, in the next load either.
	third := &fakeClient{}
	conn3 := open(third)
	if _, err := conn3.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	third.takeUpdates()
	prompt(t, conn3, sess.SessionId, sdk.TextBlock("/review"))
	if msgs, _ := texts(third.takeUpdates()); !strings.Contains(msgs, "No edit is waiting for review.") {
		t.Errorf("/review after the accept and another load said %q", msgs)
	}
}
