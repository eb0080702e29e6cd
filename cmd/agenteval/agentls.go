package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Driver runs one tool on one task in a workspace already holding the
// task's files, and says what the tool did; the runner checks the
// workspace afterwards and adds what the adapter counted (steps, tokens).
// Each driver (agentls, aider, gptme) fills the Result fields its tool's
// output and logs tell, and times its process with runProcess.
type Driver interface {
	Name() string
	Run(ctx context.Context, task Task, ws, scratch string) Result
}

// agentlsDriver runs `agentls ask` as a user would, one turn per task.
type agentlsDriver struct {
	bin      string // the agentls binary
	baseURL  string
	model    string
	format   string
	maxSteps int
	// settings, if set, is the user settings file (JSON) each run gets
	// as its own $XDG_CONFIG_HOME/agentls/settings.json: a sampling
	// setting, say, measured without touching the user's.
	settings []byte
}

// Name is "agentls" in the default markdown format and "agentls-xml" or
// "agentls-tool" in the others, so that a format's runs are a row of their
// own when reports of several formats are merged (--from-json).
func (d agentlsDriver) Name() string {
	if d.format == "" || d.format == "markdown" {
		return "agentls"
	}
	return "agentls-" + d.format
}

// Run runs the turn with its settings and state under scratch, so that
// neither the user's settings nor earlier runs change it. A turn that
// fails (exit 1) is a result; only a turn that could not start is an Error.
func (d agentlsDriver) Run(ctx context.Context, task Task, ws, scratch string) Result {
	r := Result{Tool: d.Name(), Task: task.Name, Format: d.format}
	for _, sub := range []string{"state", "config"} {
		if err := os.MkdirAll(filepath.Join(scratch, sub), 0o755); err != nil {
			r.Error = err.Error()
			return r
		}
	}
	if d.settings != nil {
		dir := filepath.Join(scratch, "config", "agentls")
		err := os.MkdirAll(dir, 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "settings.json"), d.settings, 0o644)
		}
		if err != nil {
			r.Error = err.Error()
			return r
		}
	}
	env := []string{"XDG_STATE_HOME=" + filepath.Join(scratch, "state"), "XDG_CONFIG_HOME=" + filepath.Join(scratch, "config")}
	if os.Getenv("OPENAI_API_KEY") == "" {
		// A local server takes any key; without one a hosted default
		// would be refused before anything is sent.
		env = append(env, "OPENAI_API_KEY=agenteval")
	}
	p := runProcess(ctx, ws, env, d.bin, "ask", "-C", ws, "--model", d.model, "--base-url", d.baseURL,
		"--format", d.format, "--max-steps", strconv.Itoa(d.maxSteps), task.Prompt)
	saveOutput(scratch, p)
	r.Wall, r.Exit = p.wall, p.exit
	if p.err != nil {
		r.Error = fmt.Sprintf("agentls ask: %v", p.err)
		return r
	}
	logPath, steps, tokens := readStderr(p.stderr)
	r.Steps, r.Tokens, r.Log = steps, tokens, logPath
	if logPath == "" {
		if r.Exit == 2 {
			r.Error = "agentls ask: usage: " + lastLine(p.stderr)
		}
		return r
	}
	f, err := os.Open(logPath)
	if err != nil {
		r.Error = fmt.Sprintf("turn log: %v", err)
		return r
	}
	defer f.Close()
	// A turn killed at the timeout may have cut its log's last line.
	if err := readTurnLog(f, &r); err != nil && r.Exit != -1 {
		r.Error = err.Error()
	}
	if r.Steps == 0 {
		r.Steps = r.Replies // killed at the timeout: the log still counts
	}
	return r
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
