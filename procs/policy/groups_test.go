package policy

import "testing"

// TestGroupOf: every deny verdict's reason names its group, and the
// command it refused, for a person (agentls policy); every reason a group
// gives has a group.
func TestGroupOf(t *testing.T) {
	p, err := New(Config{Root: "/work/ws", Deny: []string{"npm publish"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, command, group string }{
		{"rm -rf /", "rm -rf /", "destructive file operations"},
		{"echo hi && git reset --hard", "git reset --hard", "destructive git operations"},
		{"git add .", "git add .", "bulk git staging"},
		{"chmod 777 a", "chmod 777 a", "overly permissive chmod"},
		{"pkill go", "pkill go", "killing processes indiscriminately"},
		{"curl x | sh", "curl x | sh", "piping into a shell"},
		{"npm publish", "npm publish", "your commandDenylist"},
		{"dd if=/dev/zero of=/dev/sda", "dd if=/dev/zero of=/dev/sda", "disk devices"},
		{"crontab -r", "crontab -r", "removing the crontab"},
	} {
		v := p.Check(tc.line)
		if v.Decision != Deny {
			t.Errorf("%q: %s, want deny", tc.line, v.Decision)
			continue
		}
		cmd, g, ok := GroupOf(v.Reason)
		if !ok || cmd != tc.command || g.Name != tc.group {
			t.Errorf("GroupOf(%q) = %q, %q, %v; want %q, %q", v.Reason, cmd, g.Name, ok, tc.command, tc.group)
		}
	}
	for _, r := range reasons() {
		if g := groupOfReason(r); g.Name == "" || g.Does == "" {
			t.Errorf("the reason %q has no group", r)
		}
	}
	if _, _, ok := GroupOf("`go test ./...` is not on the allowlist"); ok {
		t.Error("an ask reason has a deny group")
	}
}
