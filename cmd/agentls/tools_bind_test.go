package main

import (
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// TestToolRowsTellWhatRuns: agentls tools lists a tool as offered only
// when a turn here would run it: a tool declared with nothing to run it
// (an MCP server's that is not connected) is listed as not offered, with
// why, even when the tools setting names it; every built-in tool, bound
// as agentls ask binds it, is offered.
func TestToolRowsTellWhatRuns(t *testing.T) {
	declared := &tools.ToolSpec{Name: "weather", Description: "Show the weather."}
	known, err := tools.NewRegistry(append(builtin.Specs(), declared)...)
	if err != nil {
		t.Fatal(err)
	}
	known = agent.BindTools(known, tools.Env{Workspace: diskWorkspace{root: t.TempDir()}}, nil, agent.ToolOptions{})
	offered, _, err := known.Select([]string{"weather", "read", "shell"})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]toolJSON{}
	for _, r := range toolRows(known, offered, false) {
		rows[r.Name] = r
	}
	if r := rows["weather"]; r.Offered || r.Why != "nothing here runs it" {
		t.Errorf("a tool nothing runs: %+v", r)
	}
	for _, name := range []string{"read", "shell"} {
		if r := rows[name]; !r.Offered || r.Why != "" {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if r := rows["save"]; r.Offered || r.Why != "left out by the tools setting" {
		t.Errorf("save: %+v", r)
	}
}
