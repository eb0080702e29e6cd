package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// npmServer finds an MCP server program of the npm registry
// (@modelcontextprotocol/server-everything, -filesystem): in
// $AGENTLS_MCP_NPM_BIN (a node_modules/.bin, as .ci/run installs them),
// else on PATH. Without it the test skips, unless
// AGENTLS_REQUIRE_MCP_NPM is set (CI).
func npmServer(t testing.TB, name string) string {
	t.Helper()
	if dir := os.Getenv("AGENTLS_MCP_NPM_BIN"); dir != "" {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("AGENTLS_REQUIRE_MCP_NPM") != "" {
		t.Fatalf("%s is not installed (AGENTLS_MCP_NPM_BIN=%q) and AGENTLS_REQUIRE_MCP_NPM is set", name, os.Getenv("AGENTLS_MCP_NPM_BIN"))
	}
	t.Skipf("%s is not installed: npm install --prefix DIR @modelcontextprotocol/%s, then AGENTLS_MCP_NPM_BIN=DIR/node_modules/.bin", name, strings.TrimPrefix(name, "mcp-"))
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestRealNPMServers: the reference servers of the MCP project, run over
// stdio as users run them: text, sums, an image, progress; the filesystem
// server's read-only tools allowed by mcpReadOnly and its writes asked.
func TestRealNPMServers(t *testing.T) {
	everything := npmServer(t, "mcp-server-everything")
	filesystem := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	turn := &fakeTurn{answer: approval.Skip}
	m := NewManager(Options{Dir: root})
	defer m.Close()
	cfg := Config{
		Servers: map[string]ServerConfig{
			"ev": {Command: everything, Args: []string{"stdio"}},
			"fs": {Command: filesystem, Args: []string{root}},
		},
		Allowlist: []string{"ev.*"},
		ReadOnly:  []string{"fs"},
	}
	ctx := context.Background()
	reg, warnings, err := m.SelectTurn(ctx, cfg, empty(t), nil, false, turn.Turn())
	if err != nil || len(warnings) > 0 {
		t.Fatalf("%v, warnings %q", err, warnings)
	}
	cases := []struct {
		tool, args string
		want       string
		wantErr    string
	}{
		{tool: "ev.echo", args: `{"message": "hi"}`, want: "Echo: hi"},
		{tool: "ev.get-sum", args: `{"a": 2, "b": 3}`, want: "5"},
		{tool: "ev.get-tiny-image", args: `{}`, want: "(image image 2, "}, // sent to the model, as view_image's
		{tool: "ev.trigger-long-running-operation", args: `{"duration": 1, "steps": 2}`, want: "completed"},
		{tool: "fs.read_text_file", args: `{"path": "` + filepath.Join(root, "a.txt") + `"}`, want: "hello from a file"},
		{tool: "fs.read_text_file", args: `{"path": "/etc/passwd"}`, wantErr: "fs.read_text_file failed"},
		{tool: "fs.write_file", args: `{"path": "` + filepath.Join(root, "b.txt") + `", "content": "x"}`, wantErr: "the user declined to run fs.write_file"},
	}
	var images attached
	ctx = tools.WithImageAttacher(ctx, &images) // as an agent turn runs a call
	for _, c := range cases {
		spec, ok := reg.Get(c.tool)
		if !ok {
			t.Errorf("no tool %s", c.tool)
			continue
		}
		got, err := spec.Run(ctx, tools.ToolUse{Tool: spec.Name, Content: c.args, Format: tools.FormatMarkdown})
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: %q, %v; want error %q", c.tool, got, err, c.wantErr)
			}
		case err != nil || !strings.Contains(got, c.want):
			t.Errorf("%s = %q, %v; want %q", c.tool, got, err, c.want)
		}
	}
	if fileExists(filepath.Join(root, "b.txt")) {
		t.Error("a declined write happened")
	}
	turn.mu.Lock()
	out := turn.output.String()
	turn.mu.Unlock()
	if !strings.Contains(out, "ev.trigger-long-running-operation: 1/2") {
		t.Errorf("no progress in %q", out)
	}
	if asked := turn.asked(); len(asked) != 1 || asked[0].Pattern != "fs.write_file" {
		t.Errorf("asked %+v", asked)
	}
}
