package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/settings"
)

func runPolicy(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy", flag.ContinueOnError)
	dir := fs.String("C", ".", "the workspace `dir` whose "+settings.WorkspaceFile+" configures the policy")
	if code, ok := parseFlags(fs, args, "usage: agentls policy [-C DIR] 'COMMAND LINE'\n\n"+
		"Prints what agentls decides for a command line the agent wants to run, as\n"+
		"JSON: {\"decision\": \"allow|ask|deny\", \"reason\": \"...\"}. allow runs without\n"+
		"asking, ask needs the user's approval, deny is refused (\"refused: rm -rf / can\n"+
		"delete a whole tree or system files (deny group: destructive file\n"+
		"operations)\"; the agent is told what to do instead). commandAllowlist and\n"+
		"commandDenylist in your settings file and the workspace's "+settings.WorkspaceFile+"\n"+
		"extend the built-in rules (a workspace's allowlist only once you trusted the\n"+
		"file: agentls trust).\n"+
		"Exit 0 (whatever the decision), 2 usage.", stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "agentls policy: give the command line as one argument (quote it)")
		fs.Usage()
		return exitUsage
	}
	cfg, err := policyConfig(*dir, "policy", stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentls policy: %v\n", err)
		return exitUsage
	}
	p, err := policy.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "agentls policy: %v\n", err)
		return exitUsage
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // "<PID>" as written, for a person
	if err := enc.Encode(forPerson(p.Check(fs.Arg(0)))); err != nil {
		fmt.Fprintf(stderr, "agentls policy: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// forPerson rewords a deny verdict's reason, written for the model (what
// to do instead), for the person at the terminal: what was refused, what
// it would do, and its deny group.
func forPerson(v policy.Verdict) policy.Verdict {
	if v.Decision != policy.Deny {
		return v // their reasons already say what a person needs
	}
	cmd, g, ok := policy.GroupOf(v.Reason)
	if !ok {
		return v
	}
	if cmd == "" {
		v.Reason = fmt.Sprintf("refused: it %s (deny group: %s)", g.Does, g.Name)
		return v
	}
	v.Reason = fmt.Sprintf("refused: %s %s (deny group: %s)", cmd, g.Does, g.Name)
	return v
}

// policyConfig returns the command policy of the settings files for a
// workspace (the allowlist only from a trusted workspace file), rooted
// there (the line runs there: reads outside it ask), telling stderr what
// was not taken; a bad value is an error.
func policyConfig(dir, command string, stderr io.Writer) (policy.Config, error) {
	root, err := workspaceRoot(dir)
	if err != nil {
		return policy.Config{}, err
	}
	l, bad := loadSettings(root, command, stderr)
	if bad {
		return policy.Config{}, fmt.Errorf("fix the settings above")
	}
	cfg := agent.PolicyOf(l.Settings)
	cfg.Root = root
	return cfg, nil
}
