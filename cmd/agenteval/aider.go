package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// aiderDriver runs aider the way its users run it on a small task: the
// workspace's files added to the chat, one message, every question
// answered yes, its "whole" edit format (the model sends each file it
// changes whole), no git (the workspace is not a repository).
type aiderDriver struct {
	bin     string // the aider executable
	baseURL string // the adapter's
	model   string
}

func (d aiderDriver) Name() string { return "aider" }

// aiderArgs is the command line for one task: files are the workspace's
// files, relative to it. aider's own files (histories) go to scratch, so
// the workspace holds only what the model changed.
func (d aiderDriver) aiderArgs(prompt, scratch string, files []string) []string {
	args := []string{d.bin,
		"--model", "openai/" + d.model, "--openai-api-base", d.baseURL, "--openai-api-key", apiKey(),
		"--edit-format", "whole", "--no-git", "--yes-always", "--message", prompt,
		// Quiet and local: no version check, no analytics, no terminal
		// tricks, no question about an unknown model's context size.
		"--no-check-update", "--no-show-release-notes", "--analytics-disable", "--no-pretty", "--no-fancy-input", "--no-show-model-warnings",
		"--input-history-file", filepath.Join(scratch, "aider.input.history"),
		"--chat-history-file", filepath.Join(scratch, "aider.chat.history.md"),
		"--llm-history-file", filepath.Join(scratch, "aider.llm.history"),
	}
	return append(args, files...)
}

func (d aiderDriver) Run(ctx context.Context, task Task, ws, scratch string) Result {
	r := Result{Tool: d.Name(), Task: task.Name, Format: "whole"}
	home := filepath.Join(scratch, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		r.Error = err.Error()
		return r
	}
	files, err := workspaceFiles(ws)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	// HOME in scratch: aider keeps caches and an analytics id there.
	p := runProcess(ctx, ws, []string{"HOME=" + home}, d.aiderArgs(task.Prompt, scratch, files)...)
	saveOutput(scratch, p)
	r.Wall, r.Exit = p.wall, p.exit
	if p.err != nil {
		r.Error = fmt.Sprintf("aider: %v", p.err)
		return r
	}
	readAiderOutput(p.stdout+"\n"+p.stderr, &r)
	if hist, err := os.ReadFile(filepath.Join(scratch, "aider.llm.history")); err == nil {
		readAiderHistory(string(hist), &r)
	}
	return r
}

// readAiderHistory reads the model's replies from aider's LLM history
// (each "LLM RESPONSE" and its "ASSISTANT " lines). A reply holding a
// fenced block tried to edit (the whole format is a file name and the
// file in a fence); it is well-formed unless aider said a reply did not
// conform to its edit format (counted in FailedCalls; aider does not say
// which reply, so they are taken from the replies that tried).
func readAiderHistory(hist string, r *Result) {
	var replies []string
	in := false
	for _, line := range strings.Split(hist, "\n") {
		switch {
		case strings.HasPrefix(line, "LLM RESPONSE "):
			replies = append(replies, "")
			in = true
		case in && strings.HasPrefix(line, "ASSISTANT"):
			replies[len(replies)-1] += strings.TrimPrefix(strings.TrimPrefix(line, "ASSISTANT"), " ") + "\n"
		case in && line != "":
			in = false
		}
	}
	tried := func(rp string) bool { return strings.Contains(rp, "```") }
	for _, rp := range replies {
		r.Replies++
		if tried(rp) {
			r.CallReplies++
		}
	}
	// aider's history does not say which reply's edit failed: a run of
	// identical replies counts as failing, an upper bound.
	r.MaxRepeat, r.MaxFailedRepeat = repeatRuns(replies, func(rp string) string { return rp }, tried, tried)
	r.WellFormed = max(0, r.CallReplies-r.FailedCalls)
}

var (
	aiderApplied   = regexp.MustCompile(`(?m)^Applied edit to (.+)$`)
	aiderMalformed = regexp.MustCompile(`(?m)did not conform to the edit format`)
)

// readAiderOutput counts what aider printed: each "Applied edit to F" is
// an edit applied, each "did not conform to the edit format" a reply it
// could not read. Replies and steps come from the adapter.
func readAiderOutput(out string, r *Result) {
	r.Edits = len(aiderApplied.FindAllString(out, -1))
	r.FailedCalls = len(aiderMalformed.FindAllString(out, -1))
	r.Calls = r.Edits + r.FailedCalls
}

// workspaceFiles lists the regular files under ws, relative and sorted,
// leaving out hidden ones.
func workspaceFiles(ws string) ([]string, error) {
	snap, err := snapshot(ws)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	var files []string
	for p := range snap {
		if !strings.HasPrefix(p, ".") && !strings.Contains(p, "/.") {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return files, nil
}

// apiKey is the key the tools send: the user's, or any (a local server
// takes any; without one a tool may refuse to start).
func apiKey() string {
	if k := os.Getenv("OPENAI_API_KEY"); k != "" {
		return k
	}
	return "agenteval"
}

// saveOutput keeps a run's stdout and stderr beside its other files, for a
// person to read why it failed.
func saveOutput(scratch string, p process) {
	os.WriteFile(filepath.Join(scratch, "stdout"), []byte(p.stdout), 0o644)
	os.WriteFile(filepath.Join(scratch, "stderr"), []byte(p.stderr), 0o644)
}
