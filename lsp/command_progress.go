package lsp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// While an agent's approved command runs, its turn's progress says so
// ("step 2: running go test ./...") and then shows the output's last
// line, at most once per commandProgressEvery: an editor that shows only
// a spinner (Helix) otherwise says nothing for a whole `go test`. The
// shell host runs one command at a time and streams its output without a
// context, so the server keeps which turn's command runs now.

// commandProgressEvery bounds how often a running command's output is
// reported: often enough to see it move, seldom enough not to flood the
// editor with a fast build's every line.
const commandProgressEvery = time.Second

// commandProgress is the agent command running now, shown in its turn's
// progress. Its methods take its lock and call no other store.
type commandProgress struct {
	mu sync.Mutex
	// steps are each turn's tool call in progress: "step N: running …".
	steps map[*task]string
	// running is the task whose command runs now (nil: none), step its
	// line.
	running *task
	step    string
	// partial is the output's unfinished last line; pending a line not
	// reported yet (throttled), flushed by timer.
	partial, pending string
	last             time.Time // when output was last reported
	timer            *time.Timer
}

// toolStart remembers what a turn's tool call would run, for begin.
func (c *commandProgress) toolStart(t *task, step int, u tools.ToolUse) {
	what := commandOf(u)
	if what == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.steps == nil {
		c.steps = map[*task]string{}
	}
	c.steps[t] = fmt.Sprintf("step %d: running %s", step, what)
}

// commandOf is the first line of a shell call's command (as the shell
// tool reads it: the block, else its "command" argument), "" for a call
// that runs none.
func commandOf(u tools.ToolUse) string {
	if u.Tool != tools.NameShell {
		return ""
	}
	script := u.Content
	if cmd, ok := u.Kwargs["command"].(string); ok && strings.TrimSpace(script) == "" {
		script = cmd
	}
	if strings.TrimSpace(script) == "" {
		script = strings.Join(u.Args, " ")
	}
	first, rest, _ := strings.Cut(strings.TrimSpace(script), "\n")
	first = text.Shorten(strings.TrimSpace(first), 60, "…")
	if first == "" {
		return ""
	}
	if strings.TrimSpace(rest) != "" {
		first += " …"
	}
	return first
}

// begin reports that t's command runs now (the shell host calls it once
// the command is approved, before it runs).
func (c *commandProgress) begin(ctx context.Context, t *task) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
	c.running, c.step = t, c.steps[t]
	if c.step == "" {
		c.step = "running a command"
	}
	t.report(ctx, c.step)
}

// output takes the running command's output as it arrives.
func (c *commandProgress) output(ctx context.Context, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil {
		return
	}
	text := c.partial + string(p)
	i := strings.LastIndexByte(text, '\n')
	c.partial = text[i+1:]
	if len(c.partial) > 4096 {
		c.partial = c.partial[len(c.partial)-4096:] // a line without end
	}
	line := lastLine(text[:i+1])
	if line == "" {
		return
	}
	c.pending = line
	if wait := commandProgressEvery - time.Since(c.last); wait > 0 {
		if c.timer == nil {
			c.timer = time.AfterFunc(wait, func() { c.flush(ctx) })
		}
		return
	}
	c.reportLocked(ctx)
}

// flush reports the line the throttle held back, if its command still
// runs.
func (c *commandProgress) flush(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if c.running != nil && c.pending != "" {
		c.reportLocked(ctx)
	}
}

func (c *commandProgress) reportLocked(ctx context.Context) {
	c.running.report(ctx, c.step+": "+c.pending)
	c.pending, c.last = "", time.Now()
}

// end forgets t's tool call: its command, if it ran, has ended.
func (c *commandProgress) end(t *task) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.steps, t)
	if c.running == t {
		c.stopLocked()
	}
}

func (c *commandProgress) stopLocked() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.running, c.step, c.partial, c.pending = nil, "", "", ""
}

// lastLine is the last line of text that holds more than blanks, without
// escape sequences' noise, clipped for a status line.
func lastLine(output string) string {
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:] // a progress bar redrawn in place: its last state
		}
		l = strings.TrimSpace(strings.ReplaceAll(l, "\t", " "))
		if l != "" {
			return text.Shorten(l, 80, "…")
		}
	}
	return ""
}
