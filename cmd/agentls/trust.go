package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/settings"
)

func runTrust(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("trust", flag.ContinueOnError)
	revoke := flags.Bool("revoke", false, "forget the trust given to DIR's settings file")
	if code, ok := parseFlags(flags, args, "usage: agentls trust [--revoke] [DIR]\n\n"+
		"Trusts DIR's "+settings.WorkspaceFile+" (default: the current folder) as it is\n"+
		"now. A workspace's settings file is always read for its harmless keys; the\n"+
		"keys that decide what runs or where your code and keys go ("+strings.Join(settings.SecurityKeyNames(), ", ")+")\n"+
		"apply only once you trusted its exact content, and stop applying when it\n"+
		"changes, until you trust it again. Read the file before you trust it: a\n"+
		"cloned repository can ship one. The record is kept in your state folder\n"+
		"($XDG_STATE_HOME/agentls/trust), never in the workspace.\n"+
		"Exit 0 trusted (or revoked), 1 no such file, 2 usage.", stderr); !ok {
		return code
	}
	if flags.NArg() > 1 {
		fmt.Fprintln(stderr, "agentls trust: give at most one folder")
		flags.Usage()
		return exitUsage
	}
	dir := "."
	if flags.NArg() == 1 {
		dir = flags.Arg(0)
	}
	root, err := workspaceRoot(dir)
	if errors.Is(err, errNoFolder) {
		fmt.Fprintf(stderr, "agentls trust: %s: no such folder: nothing to trust\n", dir)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls trust: %s: %v\n", dir, err)
		return exitUsage
	}
	trust := settings.Trust{Getenv: os.Getenv}
	if *revoke {
		if err := trust.Revoke(root); err != nil {
			fmt.Fprintf(stderr, "agentls trust: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s: %s is no longer trusted\n", root, settings.WorkspaceFile)
		return exitOK
	}
	name := filepath.Join(root, filepath.FromSlash(settings.WorkspaceFile))
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "agentls trust: %s has no %s: nothing to trust\n", root, settings.WorkspaceFile)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls trust: %v\n", err)
		return exitFailed
	}
	var object map[string]json.RawMessage
	if err := json.Unmarshal(data, &object); err != nil {
		fmt.Fprintf(stderr, "agentls trust: %s is not a JSON object (%v): nothing was trusted\n", settings.WorkspaceFile, err)
		return exitFailed
	}
	_, problems := settings.Defaults(os.Getenv).Apply(data, settings.Source{Name: settings.WorkspaceFile, Trusted: true}, agent.SettingChecks())
	for _, p := range problems {
		fmt.Fprintf(stderr, "agentls trust: %s\n", p)
	}
	if err := trust.Grant(root, data); err != nil {
		fmt.Fprintf(stderr, "agentls trust: %v\n", err)
		return exitFailed
	}
	risky := settings.SecurityKeysIn(data)
	what := "it sets no key that needed trust"
	if len(risky) > 0 {
		what = strings.Join(risky, ", ") + " now apply"
	}
	fmt.Fprintf(stdout, "%s: trusted %s as it is now (sha256 %s; %s). If it changes, it is untrusted again.\n", root, settings.WorkspaceFile, settings.Hash(data)[:12], what)
	return exitOK
}
