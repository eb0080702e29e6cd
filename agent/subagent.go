package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/tools"
)

// Subagent defaults: a child turn's own limits when its call names none,
// and how many may run at once.
const (
	DefaultSubagentSteps   = 10
	DefaultSubagentTimeout = 5 * time.Minute
	DefaultMaxSubagents    = 3
)

// Subagents is what a turn's subagent tool needs to start child turns
// (gptme's subagent): the model and format they use, the parent's limits
// that bound theirs, where their conversation logs go and who watches
// their progress. The caller makes one per turn and passes it in the
// turn's context (WithSubagents); BindTools binds the subagent tool to
// the parent's own tools, so a child's read and edit calls go through the
// same Workspace — its edits are the parent turn's, in its undo.
//
// Trust: a child can do only what its parent can (its tools are a subset
// of the parent's registry, read-only unless the call asks for more), and
// asks the user as the parent does; it runs nothing of its own.
type Subagents struct {
	Model  *Model
	Format tools.Format
	// Registry is the parent turn's own tools, bound (what its Runner
	// runs): a child's tools are a subset of them. Nil: the registry the
	// subagent tool was bound in.
	Registry *tools.Registry
	// Limits are the parent turn's: a child's steps, wall time and reply
	// size are bounded by them.
	Limits Limits
	// Root is the workspace folder, as in the parent's Request.
	Root string
	// OpenLog, if set, opens the conversation log of child n.
	OpenLog func(n int) (io.WriteCloser, error)
	// Observe, if set, is told of child n's events (progress nested
	// under the parent's: "subagent 1: step 2: read a.go").
	Observe func(n int, e Event)
	// Hooks are the parent's: they run around a child's calls too, so a
	// hook that refuses a call cannot be passed by by delegating it.
	Hooks []Hook
	// Slots, if set, bound the children of every turn that shares them
	// (the server's turns: a chat and an ask running together); nil: this
	// turn's own, Max at once.
	Slots *SubagentSlots
	// Max is how many children may run at once in the turn's own slots
	// (default 3).
	Max int

	mu      sync.Mutex
	started int // children so far: the next one's number is started+1
	own     SubagentSlots
}

// SubagentSlots bound how many subagents run at once. A call past the
// bound is refused with a message, never queued: a child waiting for a
// place could wait behind one blocked on the user's approval. The zero
// value allows DefaultMaxSubagents.
type SubagentSlots struct {
	// Max is the bound (0: DefaultMaxSubagents).
	Max int

	mu      sync.Mutex
	running int
}

// take reserves a place, or says why there is none; limit is the
// bound when Max is 0 (DefaultMaxSubagents when it is 0 too).
func (p *SubagentSlots) take(limit int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Max > 0 {
		limit = p.Max
	}
	if limit <= 0 {
		limit = DefaultMaxSubagents
	}
	if p.running >= limit {
		return fmt.Errorf("%d %s running already, the most at once: wait for one to finish, or do this part yourself", p.running, plural(p.running, "subagent is", "subagents are"))
	}
	p.running++
	return nil
}

func (p *SubagentSlots) release() {
	p.mu.Lock()
	p.running--
	p.mu.Unlock()
}

type subagentsKey struct{}

// WithSubagents returns ctx carrying s, for the turn run with it: its
// subagent tool starts children through s.
func WithSubagents(ctx context.Context, s *Subagents) context.Context {
	return context.WithValue(ctx, subagentsKey{}, s)
}

// slots returns the slots the children take places in, and the bound of
// the turn's own.
func (s *Subagents) slots() (*SubagentSlots, int) {
	if s.Slots != nil {
		return s.Slots, 0
	}
	return &s.own, s.Max
}

// start reserves a place for a child and returns its number, or an error
// when the slots are full.
func (s *Subagents) start() (int, error) {
	slots, limit := s.slots()
	if err := slots.take(limit); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started++
	return s.started, nil
}

func (s *Subagents) done() {
	slots, _ := s.slots()
	slots.release()
}

// runSubagent is the subagent tool's run in a turn whose bound registry
// *parent will hold once bound: it runs children over the parent's own
// tools (without the subagent tool: a child starts no child), or over the
// Subagents' Registry when that is set.
func runSubagent(parent **tools.Registry) tools.RunFunc {
	return func(ctx context.Context, use tools.ToolUse) (string, error) {
		s, _ := ctx.Value(subagentsKey{}).(*Subagents)
		if s == nil {
			return "", errors.New("subagents cannot run here (this turn was started without them); do the task yourself")
		}
		if s.Registry != nil {
			return s.run(ctx, s.Registry, use)
		}
		return s.run(ctx, *parent, use)
	}
}

// A subagentCall is a subagent call's arguments.
type subagentCall struct {
	prompt   string
	tools    []string
	maxSteps int
	timeout  time.Duration
}

// readSubagentCall reads a call in any format: the prompt is the body (or
// "prompt"), the tools a list (or words, or the block's tag words after
// its type), the limits numbers.
func readSubagentCall(use tools.ToolUse) (subagentCall, error) {
	c := subagentCall{prompt: use.Content}
	if c.prompt == "" {
		c.prompt, _ = use.Kwargs["prompt"].(string)
	}
	if strings.TrimSpace(c.prompt) == "" {
		return c, errors.New("subagent: no prompt given: say the whole sub-task, the subagent sees nothing else")
	}
	switch v := use.Kwargs["tools"].(type) {
	case nil:
		if use.Content != "" {
			c.tools = slices.Clone(use.Args) // ```subagent read patch
		}
	case string:
		c.tools = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	case []any:
		for _, t := range v {
			name, ok := t.(string)
			if !ok {
				return c, fmt.Errorf("subagent: tools must be a list of tool names, got %v", t)
			}
			c.tools = append(c.tools, name)
		}
	default:
		return c, fmt.Errorf("subagent: tools must be a list of tool names, got %v", v)
	}
	number := func(name string) (int, error) {
		switch v := use.Kwargs[name].(type) {
		case nil:
			return 0, nil
		case float64:
			if v < 1 || v != float64(int(v)) {
				return 0, fmt.Errorf("subagent: %s must be a positive whole number, got %v", name, v)
			}
			return int(v), nil
		case string:
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil || n < 1 {
				return 0, fmt.Errorf("subagent: %s must be a positive whole number, got %q", name, v)
			}
			return n, nil
		}
		return 0, fmt.Errorf("subagent: %s must be a number", name)
	}
	var err error
	if c.maxSteps, err = number("max_steps"); err != nil {
		return c, err
	}
	secs, err := number("timeout")
	c.timeout = time.Duration(secs) * time.Second
	return c, err
}

// run runs one child turn for use over parent's tools and returns its
// final answer for the parent.
func (s *Subagents) run(ctx context.Context, parent *tools.Registry, use tools.ToolUse) (string, error) {
	call, err := readSubagentCall(use)
	if err != nil {
		return "", err
	}
	if len(call.tools) == 0 {
		call.tools = []string{tools.NameRead} // read-only by default
	}
	var own []string
	for _, spec := range parent.All() {
		if spec.Name != tools.NameSubagent {
			own = append(own, spec.Name)
		}
	}
	for _, name := range call.tools {
		spec, ok := parent.Get(name)
		switch {
		case name == tools.NameSubagent:
			return "", errors.New("subagent: a subagent cannot start subagents: leave subagent out of its tools")
		case !ok || !spec.Runnable():
			return "", fmt.Errorf("subagent: it cannot have the %s tool: this turn may not use it (its tools: %s); ask for a subset of them", name, strings.Join(own, ", "))
		}
	}
	reg, _, err := parent.Select(call.tools)
	if err != nil {
		return "", fmt.Errorf("subagent: tools: %w", err)
	}
	lim := s.Limits
	parentSteps := cmp.Or(lim.MaxSteps, 20)
	lim.MaxSteps = min(cmp.Or(call.maxSteps, DefaultSubagentSteps), parentSteps)
	parentWall := cmp.Or(lim.MaxWall, 10*time.Minute)
	lim.MaxWall = min(cmp.Or(call.timeout, DefaultSubagentTimeout), parentWall)
	n, err := s.start()
	if err != nil {
		return "", fmt.Errorf("subagent: %w", err)
	}
	defer s.done()
	child := &Turn{Model: s.Model, Registry: reg, Format: s.Format, Runner: Runner{Registry: reg}, Limits: lim, Hooks: s.Hooks}
	if s.Observe != nil {
		child.Observe = func(e Event) { s.Observe(n, e) }
	}
	logNote := ""
	if s.OpenLog != nil {
		if f, err := s.OpenLog(n); err != nil {
			logNote = fmt.Sprintf(" (not logged: %v)", err)
		} else {
			defer f.Close()
			child.Log = f
		}
	}
	sum, err := child.Run(ctx, Request{Prompt: subagentPrompt(n, call.prompt), Root: s.Root})
	final := strings.TrimSpace(sum.Final)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("subagent %d: %w", n, context.Cause(ctx))
		}
		// Its own limit, the model failing, the user stopping it: the
		// parent reads why, with what it had so far.
		if final != "" {
			return "", fmt.Errorf("subagent %d stopped after %d %s: %w; its last words: %s", n, sum.Steps, plural(sum.Steps, "step", "steps"), err, final)
		}
		return "", fmt.Errorf("subagent %d stopped after %d %s: %w", n, sum.Steps, plural(sum.Steps, "step", "steps"), err)
	}
	return fmt.Sprintf("Subagent %d answered (%d %s, %d tool %s)%s:\n%s", n, sum.Steps, plural(sum.Steps, "step", "steps"), sum.ToolUses, plural(sum.ToolUses, "call", "calls"), logNote, final), nil
}

// subagentPrompt is a child's request: who it is and where its answer
// goes, then its task.
func subagentPrompt(n int, task string) string {
	return fmt.Sprintf("You are subagent %d: another agent handed you the task below. It sees only your final message, so put the complete answer there, briefly; do only this task.\n\n%s", n, strings.TrimSpace(task))
}

// OpenSubagentLog creates the conversation log of child n of turn id,
// beside the turn's own (OpenLog).
func OpenSubagentLog(getenv func(string) string, root string, id, n int, now time.Time) (io.WriteCloser, error) {
	dir, err := statedir.Dir(getenv, "turns", root)
	if err != nil {
		return nil, fmt.Errorf("conversation log: %w", err)
	}
	f, err := createLog(dir, fmt.Sprintf("%s-turn%d-subagent%d", now.UTC().Format("20060102T150405Z"), id, n))
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return f, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
