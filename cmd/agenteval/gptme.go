package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// gptmeDriver runs gptme the way its users script it against a local
// server: non-interactive (no
// confirmations; it goes on while the model's replies call tools), its
// markdown tool format, the workspace as its workspace. Its configuration
// and conversation logs go to scratch.
type gptmeDriver struct {
	bin     string // the gptme executable
	baseURL string // the adapter's
	model   string
}

func (d gptmeDriver) Name() string { return "gptme" }

// gptmeName is the conversation's name: its log is
// XDG_DATA_HOME/gptme/logs/NAME/conversation.jsonl.
const gptmeName = "agenteval"

func (d gptmeDriver) gptmeArgs(prompt, ws string) []string {
	// "local/": gptme's provider for an OpenAI-compatible server at
	// OPENAI_BASE_URL, as its docs tell users of llama.cpp and Ollama;
	// "openai/" would send an unknown model to OpenAI's Responses API,
	// which such servers do not have (HTTP 404).
	return []string{d.bin, "--non-interactive", "--name", gptmeName, "--model", "local/" + d.model,
		"--tool-format", "markdown", "--workspace", ws, prompt}
}

// gptmeEnv points gptme at the adapter (the OpenAI client reads
// OPENAI_BASE_URL) and keeps its configuration, data and logs in scratch.
func (d gptmeDriver) gptmeEnv(scratch string) []string {
	home := filepath.Join(scratch, "home")
	return []string{"OPENAI_BASE_URL=" + d.baseURL, "OPENAI_API_KEY=" + apiKey(), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"GPTME_LOGS_HOME=" + filepath.Join(scratch, "logs")}
}

func (d gptmeDriver) Run(ctx context.Context, task Task, ws, scratch string) Result {
	r := Result{Tool: d.Name(), Task: task.Name, Format: "markdown"}
	if err := os.MkdirAll(filepath.Join(scratch, "home"), 0o755); err != nil {
		r.Error = err.Error()
		return r
	}
	p := runProcess(ctx, ws, d.gptmeEnv(scratch), d.gptmeArgs(task.Prompt, ws)...)
	saveOutput(scratch, p)
	r.Wall, r.Exit = p.wall, p.exit
	if p.err != nil {
		r.Error = fmt.Sprintf("gptme: %v", p.err)
		return r
	}
	r.Log = filepath.Join(scratch, "logs", gptmeName, "conversation.jsonl")
	f, err := os.Open(r.Log)
	if err != nil {
		if r.Exit == 0 {
			r.Error = fmt.Sprintf("gptme's conversation log: %v", err)
		}
		r.Log = ""
		return r
	}
	defer f.Close()
	if err := readGptmeLog(f, &r); err != nil && r.Exit != -1 {
		r.Error = err.Error()
	}
	return r
}

// What gptme's tools answer (gptme/tools/save.py, patch.py): an edit that
// applied, a call that failed, and of those a call it could not read.
var (
	gptmeEdited    = regexp.MustCompile(`^(Saved to|Appended to|Patch successfully applied|Patch applied)`)
	gptmeFailed    = regexp.MustCompile(`^(Error|Cannot |No path provided|No content provided)|Invalid patch|Patch failed`)
	gptmeMalformed = regexp.MustCompile(`Invalid patch|invalid patch|No path provided|No content provided|No patch provided|Path is required`)
)

// gptmeReply is what one of gptme's replies did, as its log shows it.
type gptmeReply struct {
	key                  string
	calls, failed, edits int
	malformed            bool
}

// readGptmeLog counts from gptme's conversation log: each assistant
// message is a reply; the system messages after it are its tools'
// outputs. A reply with outputs tried to call a tool; it is well-formed
// unless an output says gptme could not read the call.
func readGptmeLog(in io.Reader, r *Result) error {
	var replies []*gptmeReply
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var m struct {
			Role    string `json:"role"`
			Content string `json:"content"`
			Hide    bool   `json:"hide"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return fmt.Errorf("gptme's conversation log: %w", err)
		}
		switch {
		case m.Role == "assistant":
			replies = append(replies, &gptmeReply{key: m.Content})
		case m.Role == "system" && (m.Hide || strings.HasPrefix(m.Content, "<")):
			// gptme's own notices between steps (token budget, time), not
			// a tool's output.
		case m.Role == "system" && len(replies) > 0:
			cur := replies[len(replies)-1]
			cur.calls++
			switch {
			case gptmeEdited.MatchString(m.Content):
				cur.edits++
			case gptmeFailed.MatchString(m.Content):
				cur.failed++
			}
			cur.malformed = cur.malformed || gptmeMalformed.MatchString(m.Content)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("gptme's conversation log: %w", err)
	}
	for _, rp := range replies {
		r.Replies++
		r.Calls += rp.calls
		r.FailedCalls += rp.failed
		r.Edits += rp.edits
		if rp.calls > 0 {
			r.CallReplies++
			if !rp.malformed {
				r.WellFormed++
			}
		}
	}
	r.MaxRepeat, r.MaxFailedRepeat = repeatRuns(replies, func(rp *gptmeReply) string { return rp.key },
		func(rp *gptmeReply) bool { return rp.calls > 0 },
		func(rp *gptmeReply) bool { return rp.calls > 0 && rp.failed == rp.calls })
	return nil
}
