package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/mcp"
)

// toolJSON is the CLI's contract for agentls tools --json (DESIGN §7).
type toolJSON struct {
	Name              string `json:"name"`
	Description       string `json:"description"`
	Source            string `json:"source"`
	Available         bool   `json:"available"`
	Why               string `json:"why,omitempty"`
	DisabledByDefault bool   `json:"disabled_by_default"`
	Offered           bool   `json:"offered"`
}

func runTools(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("tools", flag.ContinueOnError)
	dir := flags.String("C", ".", "the workspace `dir` whose settings choose the tools")
	format := flags.String("format", "", "show how a call is written in this `syntax`: markdown, xml or tool (default: the settings' toolFormat)")
	all := flags.Bool("all", false, "also list the tools a turn does not offer (disabled by default, left out by the tools setting, or unavailable here), with why")
	asJSON := flags.Bool("json", false, "print [{\"name\", \"description\", \"source\", \"available\", \"why\", \"disabled_by_default\", \"offered\"}]")
	if code, ok := parseFlags(flags, args, "usage: agentls tools [-C DIR] [--format F] [--all] [--json]\n\n"+
		"Lists the tools an agent turn offers the model under DIR's settings (the\n"+
		"tools setting of your settings file, or of DIR's trusted .agentls/settings.json).\n"+
		"Exit 0, 2 usage.", stderr); !ok {
		return code
	}
	if flags.NArg() > 0 {
		return usageError(flags, stderr, "unexpected argument %q", flags.Arg(0))
	}
	root, err := workspaceRoot(*dir)
	if err != nil {
		return usageError(flags, stderr, "-C %s: %v", *dir, err)
	}
	loaded, _ := loadSettings(root, "tools", stderr)
	set := loaded.Settings
	if *format != "" {
		set.ToolFormat = *format
	}
	f, err := tools.ParseFormat(set.ToolFormat)
	if err != nil {
		return usageError(flags, stderr, "%v", err)
	}
	// The tools as a turn here offers and binds them (agent.OfferedTools,
	// agentls ask's workspace and settings), so that what is listed as
	// offered is what would run. The MCP servers are started to list
	// their tools, and stopped.
	servers := mcp.NewManager(mcp.Options{Dir: root, Version: version()})
	defer servers.Close()
	setup := agent.Setup{Settings: set, Getenv: os.Getenv, Workspace: diskWorkspace{root: root}, MCP: servers}
	mcpTools, warnings := servers.AllTools(ctx, agent.MCPConfigOf(set), mcp.Turn{})
	known, err := tools.NewRegistry(append(builtin.Registry().All(), mcpTools...)...)
	if err != nil {
		fmt.Fprintf(stderr, "agentls tools: %v\n", err)
		return exitFailed
	}
	known = agent.BindTools(known, setup.Env(), nil, agent.BoundToolOptions(setup))
	offered, more, err := agent.OfferedTools(ctx, setup)
	warnings = append(warnings, more...)
	if err != nil {
		fmt.Fprintf(stderr, "agentls tools: the tools setting: %v\n", err)
		return exitUsage
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agentls tools: %s\n", w)
	}
	var out []toolJSON
	for _, t := range toolRows(known, offered, len(set.Tools) == 0) {
		if t.Offered || *all {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b toolJSON) int { return strings.Compare(a.Name, b.Name) })
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
		return exitOK
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, t := range out {
		call := callSyntax(f, t.Name)
		note := ""
		if t.Why != "" {
			note = "  (not offered: " + t.Why + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s%s\n", t.Name, call, t.Description, note)
	}
	w.Flush()
	return exitOK
}

// toolRows describes every tool of known: whether a turn offers it (in
// offered, and something here runs it) and, if not, why. byDefault says
// offered is a turn's default tools, not the user's tools setting.
func toolRows(known, offered *tools.Registry, byDefault bool) []toolJSON {
	var out []toolJSON
	for _, s := range known.All() {
		_, selected := offered.Get(s.Name)
		on := selected && s.Runnable()
		source := "builtin"
		if server, ok := mcp.EntryServer(s.Name); ok {
			source = "mcp:" + server
		}
		t := toolJSON{Name: s.Name, Description: s.Description, Source: source, Available: s.IsAvailable(), DisabledByDefault: s.DisabledByDefault, Offered: on}
		switch {
		case !t.Available:
			t.Why = "needs " + s.Requires
		case !s.Runnable():
			t.Why = "nothing here runs it"
		case !on && s.DisabledByDefault:
			t.Why = "disabled by default: name it in the tools setting to offer it"
		case !on && byDefault:
			t.Why = "not in a turn's default tools: name it in the tools setting to offer it"
		case !on:
			t.Why = "left out by the tools setting"
		}
		out = append(out, t)
	}
	return out
}

// callSyntax is how a call of the tool looks in the format.
func callSyntax(f tools.Format, name string) string {
	switch f {
	case tools.FormatXML:
		return "<tool-use><" + name + ">"
	case tools.FormatTool:
		return "native tool call"
	}
	return "```" + name
}
