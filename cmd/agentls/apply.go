package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
)

// applyResultJSON is the CLI's contract for --json (DESIGN.md §7).
type applyResultJSON struct {
	OK    bool            `json:"ok"`
	Files []appliedFileJS `json:"files"`
	Error string          `json:"error,omitempty"`
}

type appliedFileJS struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

func runApply(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	dir := fs.String("C", ".", "apply under `dir` (the workspace root)")
	format := fs.String("format", "markdown", "tool-call `syntax`: markdown, xml or tool")
	dryRun := fs.Bool("dry-run", false, "print a unified diff of the changes and write nothing")
	asJSON := fs.Bool("json", false, "print the result as JSON: {\"ok\", \"files\": [{\"path\", \"action\"}], \"error\"}")
	protected := fs.Bool("protected", false, "also apply edits to files that configure what runs (.git/, .agentls/, .gitattributes, editor project settings)")
	usage := "usage: agentls apply [-C DIR] [--format markdown|xml|tool] [--dry-run] [--json] [--protected] < reply\n\n" +
		"Runs every edit in a model reply (save, append, patch, patch_many, apply_patch,\n" +
		"patch_anchored, SEARCH/REPLACE blocks, unified diffs in ```diff blocks, and whole\n" +
		"files in a block of their language under a line naming one file, **a.go** or\n" +
		"File: a.go, or named in the info string, ```go title=\"a.go\") and applies them\n" +
		"all under DIR, or none.\n" +
		"A reply that edits a file which configures what runs (.git/config can make\n" +
		"`git status` run a program) is refused unless you give --protected.\n" +
		"Exit 0 applied, 1 refused with nothing written, 2 usage."
	f, code, ok := parseReplyFlags(fs, args, format, usage, stderr)
	if !ok {
		return code
	}
	root, err := workspaceRoot(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "agentls apply: -C %s: %v\n", *dir, err)
		return exitUsage
	}
	noteReading(stdin, stderr, "apply", "the reply")
	reply, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "agentls apply: reading the reply: %v\n", err)
		return exitFailed
	}

	report := func(res applyResultJSON) int {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			enc.Encode(res)
		} else if res.Error != "" {
			fmt.Fprintf(stderr, "agentls apply: %s\n", res.Error)
		}
		if res.OK {
			return exitOK
		}
		return exitFailed
	}

	batch := &edittool.Batch{Root: root, Source: edittool.DiskSource{Root: root}}
	res, err := batch.ApplyReply(ctx, string(reply), f, builtin.Registry())
	for _, s := range res.Skipped {
		fmt.Fprintf(stderr, "agentls apply: skipped %s: not an edit\n", s)
	}
	for _, pr := range res.Problems {
		fmt.Fprintf(stderr, "agentls apply: warning: at byte %d: %s\n", pr.Start, pr.Message)
	}
	if err != nil {
		return report(applyResultJSON{Files: []appliedFileJS{}, Error: err.Error() + "\nNothing was written."})
	}
	changes := batch.Changes.Effective()
	done := applyResultJSON{OK: true, Files: []appliedFileJS{}}
	for _, c := range changes {
		done.Files = append(done.Files, appliedFileJS{Path: c.Path, Action: c.Action.String()})
	}
	if res.Edits == 0 {
		return report(applyResultJSON{Files: []appliedFileJS{}, Error: "the reply has no edits (save, append, patch, patch_many or apply_patch blocks, SEARCH/REPLACE blocks, unified diffs in ```diff blocks, or whole files in a block under a line naming the file, such as **a.go** or File: a.go)"})
	}
	if *dryRun {
		if !*asJSON {
			for _, c := range changes {
				fmt.Fprint(stdout, c.UnifiedDiff())
			}
		}
		return report(done)
	}
	if !*protected {
		if err := batch.ConfirmProtected(ctx, nil, settings.PrivateDirs(os.Getenv)...); err != nil {
			return report(applyResultJSON{Files: []appliedFileJS{}, Error: strings.Replace(err.Error(), "nobody can be asked here", "agentls apply applies it only with --protected", 1)})
		}
	}
	if err := edits.ApplyToDisk(root, &batch.Changes); err != nil {
		return report(applyResultJSON{Files: []appliedFileJS{}, Error: err.Error()})
	}
	if !*asJSON {
		for _, c := range changes {
			fmt.Fprintf(stdout, "%s %s\n", map[edits.Action]string{edits.Modify: "M", edits.Create: "A", edits.Delete: "D"}[c.Action], c.Path)
		}
	}
	return report(done)
}
