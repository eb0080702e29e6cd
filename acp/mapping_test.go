package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
)

// TestKindOf: agentls's tools map onto ACP's tool kinds.
func TestKindOf(t *testing.T) {
	for tool, want := range map[string]sdk.ToolKind{
		"read": sdk.ToolKindRead, "view_anchored": sdk.ToolKindRead, "view_image": sdk.ToolKindRead,
		"save": sdk.ToolKindEdit, "patch": sdk.ToolKindEdit, "apply_patch": sdk.ToolKindEdit, "morph": sdk.ToolKindEdit,
		"delete": sdk.ToolKindDelete, "move": sdk.ToolKindMove,
		"shell": sdk.ToolKindExecute, "ipython": sdk.ToolKindExecute,
		"browser": sdk.ToolKindFetch, "screenshot": sdk.ToolKindFetch,
		"rag": sdk.ToolKindSearch, "subagent": sdk.ToolKindThink,
		"fs.read_file": sdk.ToolKindOther,
	} {
		if got := kindOf(tool); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", tool, got, want)
		}
	}
}

// TestTitleOf: a command's call is titled by its first line.
func TestTitleOf(t *testing.T) {
	for _, tc := range []struct {
		use  tools.ToolUse
		want string
	}{
		{tools.ToolUse{Tool: "shell", Content: "go test ./...\n"}, "shell: go test ./..."},
		{tools.ToolUse{Tool: "shell", Content: "cd x\nmake\n"}, "shell: cd x …"},
		{tools.ToolUse{Tool: "patch", Args: []string{"a.go"}}, "patch a.go"},
		{tools.ToolUse{Tool: "save", Kwargs: map[string]any{"path": "b.go"}}, "save b.go"},
	} {
		if got := titleOf(tc.use); got != tc.want {
			t.Errorf("titleOf(%+v) = %q, want %q", tc.use, got, tc.want)
		}
	}
}

// TestPromptText: links to workspace files become @-mentions; links
// elsewhere stay words; embedded text is attached under its name; what
// initialize does not offer is named and left out.
func TestPromptText(t *testing.T) {
	root := "/w"
	for _, tc := range []struct {
		name   string
		blocks []sdk.ContentBlock
		want   string
	}{
		{"text", []sdk.ContentBlock{sdk.TextBlock("fix it")}, "fix it"},
		{"link inside", []sdk.ContentBlock{sdk.TextBlock("see"), sdk.ResourceLinkBlock("a.go", "file:///w/pkg/a.go")}, "see @pkg/a.go"},
		{"link outside", []sdk.ContentBlock{sdk.TextBlock("see"), sdk.ResourceLinkBlock("passwd", "file:///etc/passwd")}, "see passwd (file:///etc/passwd)"},
		{"link escaping", []sdk.ContentBlock{sdk.ResourceLinkBlock("x", "file:///w/../etc/passwd")}, "x (file:///w/../etc/passwd)"},
		{"web link", []sdk.ContentBlock{sdk.ResourceLinkBlock("docs", "https://example.com/")}, "docs (https://example.com/)"},
		{"embedded", []sdk.ContentBlock{sdk.TextBlock("use"), sdk.ResourceBlock(sdk.EmbeddedResourceResource{
			TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/spec.md", Text: "```go\nx\n```"}})},
			"use\n\n`spec.md`, attached by the user:\n````\n```go\nx\n```\n````"},
		{"image", []sdk.ContentBlock{sdk.TextBlock("look"), sdk.ImageBlock("AAAA", "image/png")},
			"look\n\n(the user attached an image (image/png))"},
		{"audio", []sdk.ContentBlock{sdk.TextBlock("listen"), {Audio: &sdk.ContentBlockAudio{Data: "AAAA", MimeType: "audio/wav"}}},
			"listen\n\n(an audio clip was attached; this agent takes no audio, so it was left out)"},
	} {
		if got := promptText(tc.blocks, root); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestClientServers: the client's MCP servers join the settings' own,
// checked as the setting is; a bad one fails session/new.
func TestClientServers(t *testing.T) {
	set := settings.Settings{MCPServers: map[string]settings.MCPServer{"mine": {Command: "my-server"}}}
	got, err := withClientServers(set, []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"/w"}, Env: []sdk.EnvVariable{{Name: "K", Value: "v"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "web", Type: "http", Url: "https://mcp.example.com/", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.MCPServers) != 3 || got.MCPServers["fs"].Env["K"] != "v" || got.MCPServers["web"].Headers["Authorization"] != "Bearer t" || got.MCPServers["mine"].Command != "my-server" {
		t.Errorf("servers %+v", got.MCPServers)
	}
	if _, err := withClientServers(set, []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "bad name!", Command: "x"}}}); err == nil {
		t.Error("a server whose name the setting refuses was taken")
	}
	if _, err := withClientServers(set, []sdk.McpServer{{Sse: &sdk.McpServerSseInline{Name: "old", Type: "sse", Url: "https://x/"}}}); err == nil {
		t.Error("an SSE server, which initialize does not offer, was taken")
	}
}

// TestConfigModel: session/set_config_option picks the next turns'
// model among those the settings name, and refuses any other.
func TestConfigModel(t *testing.T) {
	srv := modeltest.New(modeltest.Text("One.", 5), modeltest.Text("Two.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, _ := connectWith(t, srv.URL, client, true, `{"model": "big", "prices": {"small": {"input": 1, "output": 2}}}`)
	set := func(value string) (sdk.SetSessionConfigOptionResponse, error) {
		return conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: id, ConfigId: configModel, Value: sdk.SessionConfigValueId(value)}})
	}
	prompt(t, conn, id, sdk.TextBlock("hi"))
	resp, err := set("small")
	if err != nil {
		t.Fatal(err)
	}
	if o := resp.ConfigOptions[0].Select; o == nil || o.CurrentValue != "small" || len(*o.Options.Ungrouped) != 3 { // small, the settings' big, $AGENTLS_MODEL
		t.Errorf("options %+v", resp.ConfigOptions)
	}
	prompt(t, conn, id, sdk.TextBlock("hi again"))
	if reqs := srv.Requests(); reqs[0].Body.Model != "big" || reqs[1].Body.Model != "small" {
		t.Errorf("models asked: %q, %q", reqs[0].Body.Model, reqs[1].Body.Model)
	}
	if _, err := set("gpt-evil"); err == nil {
		t.Error("a model the settings do not name was taken")
	}
}

// TestConfigThinking: the Thinking option sets the thinking setting for
// the session's next turns; a value it does not offer is refused.
func TestConfigThinking(t *testing.T) {
	srv := modeltest.New(modeltest.Text("One.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, _ := connect(t, srv.URL, client, true)
	set := func(value string) (sdk.SetSessionConfigOptionResponse, error) {
		return conn.SetSessionConfigOption(t.Context(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: id, ConfigId: configThinking, Value: sdk.SessionConfigValueId(value)}})
	}
	resp, err := set("tagged")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ConfigOptions) != 3 || resp.ConfigOptions[1].Select == nil || resp.ConfigOptions[1].Select.CurrentValue != "tagged" {
		t.Errorf("options %+v", resp.ConfigOptions)
	}
	if _, err := set("never"); err == nil {
		t.Error("a thinking value the option does not offer was taken")
	}
}
