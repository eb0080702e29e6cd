package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/policy"
)

func runPolicy(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy", flag.ContinueOnError)
	dir := fs.String("C", ".", "the workspace `dir` whose "+tools.SettingsFile+" configures the policy")
	if code, ok := parseFlags(fs, args, "usage: agentls policy [-C DIR] 'COMMAND LINE'\n\n"+
		"Prints what agentls decides for a command line the agent wants to run, as\n"+
		"JSON: {\"decision\": \"allow|ask|deny\", \"reason\": \"...\"}. allow runs without\n"+
		"asking, ask needs the user's approval, deny is refused. The workspace's\n"+
		tools.SettingsFile+" (commandAllowlist, commandDenylist) extends the built-in rules.\n"+
		"Exit 0 (whatever the decision), 2 usage.", stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "agentls policy: give the command line as one argument (quote it)")
		fs.Usage()
		return exitUsage
	}
	cfg, err := policyConfig(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "agentls policy: %v\n", err)
		return exitUsage
	}
	p, err := policy.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "agentls policy: %s: %v\n", tools.SettingsFile, err)
		return exitUsage
	}
	out, _ := json.Marshal(p.Check(fs.Arg(0)))
	fmt.Fprintf(stdout, "%s\n", out)
	return exitOK
}

// policyConfig reads the command patterns of a workspace's settings file.
func policyConfig(dir string) (policy.Config, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return policy.Config{}, err
	}
	raw, err := tools.ReadSettings(root)
	if err != nil || raw == nil {
		return policy.Config{}, err
	}
	var s struct {
		Allow []string `json:"commandAllowlist"`
		Deny  []string `json:"commandDenylist"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return policy.Config{}, fmt.Errorf("%s: %w", tools.SettingsFile, err)
	}
	return policy.Config{Allow: s.Allow, Deny: s.Deny}, nil
}
