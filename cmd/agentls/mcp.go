package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/tools/mcp"
)

// mcpServerJSON is the CLI's contract for agentls mcp list --json.
type mcpServerJSON struct {
	Name      string        `json:"name"`
	Transport string        `json:"transport"`
	Target    string        `json:"target"`
	State     string        `json:"state"`
	Error     string        `json:"error,omitempty"`
	Tools     []mcpToolJSON `json:"tools"`
}

type mcpToolJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"read_only"`
}

func runMCP(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("mcp", flag.ContinueOnError)
	dir := flags.String("C", ".", "the workspace `dir` whose settings name the servers")
	asJSON := flags.Bool("json", false, "print [{\"name\", \"transport\", \"target\", \"state\", \"error\", \"tools\": [{\"name\", \"description\", \"read_only\"}]}]")
	positional, code, ok := parseFlagsAnywhere(flags, args, "usage: agentls mcp list [-C DIR] [--json]\n\n"+
		"Starts each MCP server of the mcpServers setting (your settings file, or\n"+
		"DIR's trusted .agentls/settings.json), lists its tools, and stops it.\n"+
		"Exit 0, 1 a server did not start, 2 usage.", stderr)
	if !ok {
		return code
	}
	if len(positional) != 1 || positional[0] != "list" {
		return usageError(flags, stderr, "want the subcommand list")
	}
	root, err := workspaceRoot(*dir)
	if err != nil {
		return usageError(flags, stderr, "-C %s: %v", *dir, err)
	}
	loaded, _ := loadSettings(root, "mcp", stderr)
	cfg := agent.MCPConfigOf(loaded.Settings)
	servers := mcp.NewManager(mcp.Options{Dir: root, Version: version()})
	defer servers.Close()
	_, warnings := servers.AllTools(ctx, cfg, mcp.Turn{})
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agentls mcp: %s\n", w)
	}
	out := []mcpServerJSON{}
	failed := false
	for _, st := range servers.Status() {
		row := mcpServerJSON{Name: st.Name, Transport: st.Transport, Target: st.Target, State: string(st.State), Error: st.Err, Tools: []mcpToolJSON{}}
		failed = failed || st.State != mcp.StateRunning
		for _, t := range st.Tools {
			row.Tools = append(row.Tools, mcpToolJSON{Name: t.Name, Description: t.Description, ReadOnly: t.ReadOnly})
		}
		out = append(out, row)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
	} else {
		if len(out) == 0 {
			fmt.Fprintln(stdout, "no MCP servers: name them in the mcpServers setting")
		}
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, s := range out {
			line := fmt.Sprintf("%s\t%s\t%s %s", s.Name, s.State, s.Transport, s.Target)
			if s.Error != "" {
				line += "\t" + s.Error
			}
			fmt.Fprintln(w, line)
			for _, t := range s.Tools {
				ro := ""
				if t.ReadOnly {
					ro = " (read-only, says the server)"
				}
				fmt.Fprintf(w, "  %s\t%s%s\n", t.Name, t.Description, ro)
			}
		}
		w.Flush()
	}
	if failed {
		return exitFailed
	}
	return exitOK
}
