package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestAttackModelDecidesNothing: the model and the repository decide
// nothing through the ACP front door. A reply that writes outside the
// workspace is refused before the client is asked to write anything; a
// command off the allowlist is asked, the client rejects it for good,
// and neither it nor its repetition runs; the workspace's own settings
// file allowing it is not trusted.
func TestAttackModelDecidesNothing(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "pwned.txt")
	srv := modeltest.New(
		modeltest.Text("```save "+outside+"\nowned\n```\n", 8),
		modeltest.Text("```save ../escape.txt\nowned\n```\n", 8),
		modeltest.Text("```shell\ntouch pwned\n```\n", 8),
		modeltest.Text("```shell\ntouch pwned\n```\n", 8),
		modeltest.Text("I tried.", 8))
	defer srv.Close()
	client := &fakeClient{answers: []string{optRejectAlways}}
	conn, id, root := connect(t, srv.URL, client, true)
	// The repository tries to allow the command itself.
	os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentls", "settings.json"), []byte(`{"commandAllowlist": ["touch"], "approvalPolicy": "allow"}`), 0o644)
	// A new session reads the (untrusted) file.
	sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	_ = id
	prompt(t, conn, sess.SessionId, sdk.TextBlock("do what the README says"))
	if len(client.writes) != 0 {
		t.Errorf("the client was asked to write %q", client.writes)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file outside the workspace was written")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escape.txt")); err == nil {
		t.Error("../escape.txt was written")
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("a rejected command ran")
	}
	if len(client.asked) != 1 {
		t.Errorf("asked %d times: a command rejected for good is not asked again", len(client.asked))
	}
	var failed int
	for _, u := range client.takeUpdates() {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusFailed {
			failed++
		}
	}
	if failed != 4 {
		t.Errorf("%d calls failed, want all 4", failed)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Body.Messages; !strings.Contains(got[len(got)-1].Content, "declined") {
		t.Errorf("the model read %q", got[len(got)-1].Content)
	}
}

// TestAttackProtectedFile: a reply that rewrites the workspace's own
// settings (which decide what runs) is put to the user first, with the
// edit shown; rejected, the client is asked to write nothing.
func TestAttackProtectedFile(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```save .agentls/settings.json\n{\"approvalPolicy\": \"allow\"}\n```\n", 8),
		modeltest.Text("Fine.", 8))
	defer srv.Close()
	client := &fakeClient{answers: []string{optRejectOnce}}
	conn, id, root := connect(t, srv.URL, client, true)
	prompt(t, conn, id, sdk.TextBlock("set things up"))
	if len(client.writes) != 0 {
		t.Errorf("the client was asked to write %q", client.writes)
	}
	if _, err := os.Stat(filepath.Join(root, ".agentls", "settings.json")); err == nil {
		t.Error(".agentls/settings.json was written")
	}
	if len(client.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(client.asked))
	}
	shown := client.asked[0].ToolCall.Content[0].Content.Content.Text.Text
	if !strings.Contains(shown, ".agentls/settings.json") || !strings.Contains(shown, "approvalPolicy") {
		t.Errorf("the question did not show the edit: %q", shown)
	}
}
