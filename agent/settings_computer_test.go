package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/settings"
)

// TestHostileWorkspaceFileAllowsNoComputerAction: a cloned repository's
// settings cannot let the computer tool type or click unasked (its
// computerAllowlist is ignored until the file is trusted); the user's own
// settings can, and a glob that names no action is refused.
func TestHostileWorkspaceFileAllowsNoComputerAction(t *testing.T) {
	e := newSettingsEnv(t)
	l := LoadSettings(e.getenv, settingsWorkspace(t, `{"computerAllowlist": ["*"], "tools": ["computer"]}`))
	if got := ToolOptionsOf(l.Settings).ComputerAllowlist; len(got) != 0 {
		t.Errorf("an untrusted workspace file allowed computer actions: %q", got)
	}
	if !slices.Contains(l.Ignored, "computerAllowlist") {
		t.Errorf("ignored %q, want computerAllowlist among them", l.Ignored)
	}

	d := settings.Defaults(func(string) string { return "" })
	user := settings.Source{Name: "settings.json", Trusted: true}
	s, problems := d.Apply([]byte(`{"computerAllowlist": ["screenshot", "cursor_*"]}`), user, SettingChecks())
	if len(problems) != 0 || !slices.Equal(ToolOptionsOf(s).ComputerAllowlist, []string{"screenshot", "cursor_*"}) {
		t.Errorf("the user's allowlist: %q (%v)", s.ComputerAllowlist, problems)
	}
	_, problems = d.Apply([]byte(`{"computerAllowlist": ["screenshoot"]}`), user, SettingChecks())
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "matches no action") {
		t.Errorf("a glob that names no action: %v", problems)
	}
}
