package agent

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/vision"
)

// TestSettingChecks: the keys whose meaning a tool owns are checked by
// that tool when the settings are read (a bad value keeps the previous
// one), although package settings imports none of them.
func TestSettingChecks(t *testing.T) {
	trusted := settings.Source{Name: "editor", Trusted: true}
	for _, tc := range []struct {
		key, raw, says string
	}{
		{"tools", `{"tools": ["shel"]}`, `"shel" matches no tool`},
		{"commandAllowlist", `{"commandAllowlist": ["a && b"]}`, "agentls.commandAllowlist"},
		{"commandDenylist", `{"commandDenylist": ["a && b"]}`, "agentls.commandDenylist"},
		{"mcpServers", `{"mcpServers": {"x": {}}}`, `give "command"`},
		{"toolAllowlist", `{"toolAllowlist": ["nodot"]}`, "agentls.toolAllowlist"},
		{"mcpReadOnly", `{"mcpReadOnly": ["a b"]}`, "server name"},
		{"browserAllowlist", `{"browserAllowlist": ["http://x/"]}`, "agentls.browserAllowlist"},
		{"searchUrl", `{"searchUrl": "https://s.example/"}`, "agentls.searchUrl"},
		{"computerAllowlist", `{"computerAllowlist": ["fly"]}`, "agentls.computerAllowlist"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			before := settings.Defaults(func(string) string { return "" })
			got, problems := before.Apply([]byte(tc.raw), trusted, SettingChecks())
			if len(problems) != 1 || !strings.Contains(problems[0].String(), tc.says) {
				t.Fatalf("problems = %q, want one saying %q", problems, tc.says)
			}
			if !slices.Equal(TurnToolsOf(got), TurnToolsOf(before)) || len(got.CommandAllowlist)+len(got.CommandDenylist)+len(got.MCPServers)+len(got.ToolAllowlist)+len(got.MCPReadOnly)+len(got.BrowserAllowlist)+len(got.ComputerAllowlist) != 0 || got.SearchURL != "" {
				t.Errorf("a refused value was kept: %+v", got)
			}
		})
	}
}

// TestSettingDefaultsAreTheTools: the defaults settings writes as numbers
// and words are the tools' own.
func TestSettingDefaultsAreTheTools(t *testing.T) {
	d := settings.Defaults(func(string) string { return "" })
	if got := time.Duration(d.MCPTimeout) * time.Second; got != mcp.DefaultTimeout {
		t.Errorf("mcpTimeout default %v, tools/mcp's %v", got, mcp.DefaultTimeout)
	}
	if got := time.Duration(d.BrowserTimeout) * time.Second; got != browser.DefaultTimeout {
		t.Errorf("browserTimeout default %v, the browser's %v", got, browser.DefaultTimeout)
	}
	if d.ImageMaxSide != vision.DefaultMaxSide || d.Vision != string(vision.ModeAuto) {
		t.Errorf("vision defaults %q %d, vision's %q %d", d.Vision, d.ImageMaxSide, vision.ModeAuto, vision.DefaultMaxSide)
	}
	if d.ToolFormat != string(tools.FormatMarkdown) {
		t.Errorf("toolFormat default %q", d.ToolFormat)
	}
	for _, mode := range vision.Modes() {
		if _, problems := d.Apply([]byte(`{"vision": "`+mode+`"}`), settings.Source{Name: "editor", Trusted: true}, SettingChecks()); len(problems) > 0 {
			t.Errorf("vision %q refused: %v", mode, problems)
		}
	}
}
