package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// runner runs every task runs times with each driver, every model call
// going through the adapter.
type runner struct {
	drivers      []Driver
	adapter      *adapter // counts each run's model calls and tokens
	tasks        []Task
	runs         int
	block        int           // tasks run by one tool before the next takes them (0: all)
	timeout      time.Duration // per turn
	checkTimeout time.Duration
	scratch      string    // where workspaces and state go
	progress     io.Writer // one line per result (nil: none)
	record       io.Writer // one JSON line per result, as it comes (nil: none)
	// skip holds the runs not to make again, by runKey: what earlier
	// results (--skip) already hold.
	skip map[string]bool
}

// runKey names a run of a tool on a task.
func runKey(tool, task string, run int) string { return fmt.Sprintf("%s/%s/%d", tool, task, run) }

// run returns one Result per tool, task and run. Tasks go in blocks: each
// tool runs a block's tasks, then the next tool the same ones. A local
// server reuses the cached prefix of the prompt it saw last, and each
// tool's system prompt is its own, so a tool running many tasks in a row
// pays for its prompt once; blocks keep every tool on the same tasks when
// the run is cut short. Every run's workspace is at the same path
// (scratch/ws), emptied first: a system prompt that names the root stays
// the same.
func (rn runner) run(ctx context.Context) ([]Result, error) {
	ws := filepath.Join(rn.scratch, "ws")
	block := rn.block
	if block <= 0 {
		block = len(rn.tasks)
	}
	var results []Result
	for start := 0; start < len(rn.tasks); start += block {
		tasks := rn.tasks[start:min(start+block, len(rn.tasks))]
		for _, d := range rn.drivers {
			for _, task := range tasks {
				for i := 1; i <= rn.runs; i++ {
					if err := ctx.Err(); err != nil {
						return results, err
					}
					if rn.skip[runKey(d.Name(), task.Name, i)] {
						continue
					}
					r, err := rn.one(ctx, d, task, i, ws)
					if err != nil {
						return results, err
					}
					if ctx.Err() != nil {
						return results, ctx.Err() // cut by the user: not a measure
					}
					results = append(results, r)
					if rn.progress != nil {
						fmt.Fprintf(rn.progress, "%s %s run %d: %s\n", r.Tool, task.Name, i, r.summary())
					}
					if rn.record != nil {
						line, _ := json.Marshal(r)
						fmt.Fprintf(rn.record, "%s\n", line)
					}
				}
			}
		}
	}
	return results, nil
}

// one runs a task once with d. Its error is the runner's own (a workspace
// that cannot be made); what the tool or the checker did is in the Result.
func (rn runner) one(ctx context.Context, d Driver, task Task, n int, ws string) (Result, error) {
	if err := os.RemoveAll(ws); err != nil {
		return Result{}, fmt.Errorf("workspace: %w", err)
	}
	if err := copyTree(task.FilesDir(), ws); err != nil {
		return Result{}, fmt.Errorf("task %s: workspace: %w", task.Name, err)
	}
	before, err := snapshot(ws)
	if err != nil {
		return Result{}, fmt.Errorf("task %s: workspace: %w", task.Name, err)
	}
	scratch := filepath.Join(rn.scratch, "runs", d.Name(), fmt.Sprintf("%s-%d", task.Name, n))
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return Result{}, fmt.Errorf("task %s: %w", task.Name, err)
	}
	if rn.adapter != nil {
		rn.adapter.take() // nothing from before counts
	}
	tctx, cancel := context.WithTimeout(ctx, rn.timeout)
	r := d.Run(tctx, task, ws, scratch)
	cancel()
	r.Tool, r.Task, r.Run = d.Name(), task.Name, n
	if rn.adapter != nil {
		u := rn.adapter.take()
		r.Steps, r.PromptTokens, r.CompletionTokens = u.Calls, u.PromptTokens, u.CompletionTokens
		r.Tokens = u.PromptTokens + u.CompletionTokens
		r.TokensEstimated = u.Estimated > 0
		r.HTTPErrors, r.Flattened, r.Sampling = u.Failed, u.Flattened, u.Sampling
		if r.Replies == 0 {
			r.Replies = u.Calls - u.Failed // a peer that logs no replies
		}
	}
	after, err := snapshot(ws)
	if err != nil {
		return r, fmt.Errorf("task %s: workspace: %w", task.Name, err)
	}
	r.Changed = !sameFiles(withoutToolFiles(before), withoutToolFiles(after))
	if r.Error == "" {
		r.Solved = check(ctx, task, ws, rn.checkTimeout) == nil
	}
	r.Rejected = r.Changed && !r.Solved
	return r, nil
}

// withoutToolFiles leaves out the files a tool keeps for itself in the
// workspace (aider's caches): they are not the model's edits.
func withoutToolFiles(files map[string]string) map[string]string {
	out := make(map[string]string, len(files))
	for p, c := range files {
		if !strings.HasPrefix(p, ".aider") && !strings.HasPrefix(p, ".gptme") {
			out[p] = c
		}
	}
	return out
}

func (r Result) summary() string {
	s := "failed"
	if r.Solved {
		s = "solved"
	}
	if r.Error != "" {
		s = "error: " + r.Error
	}
	return fmt.Sprintf("%s (%d steps, %d/%d well-formed, %d edits, %d tokens, %s, exit %d)", s, r.Steps, r.WellFormed, r.CallReplies, r.Edits, r.Tokens, r.Wall.Round(time.Second/10), r.Exit)
}
