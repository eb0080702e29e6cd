package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// runner runs every task runs times with one driver.
type runner struct {
	driver       Driver
	tasks        []Task
	runs         int
	timeout      time.Duration // per turn
	checkTimeout time.Duration
	scratch      string    // where workspaces and state go
	progress     io.Writer // one line per result (nil: none)
}

// run returns one Result per task and run, in order. Every task gets its
// workspace at the same path (scratch/ws), emptied first: the system
// prompt names the root, and a local server reuses the cached prefix of
// the prompt it saw last.
func (rn runner) run(ctx context.Context) ([]Result, error) {
	ws := filepath.Join(rn.scratch, "ws")
	var results []Result
	for _, task := range rn.tasks {
		for i := 1; i <= rn.runs; i++ {
			if err := ctx.Err(); err != nil {
				return results, err
			}
			r, err := rn.one(ctx, task, i, ws)
			if err != nil {
				return results, err
			}
			results = append(results, r)
			if rn.progress != nil {
				fmt.Fprintf(rn.progress, "%s run %d: %s\n", task.Name, i, r.summary())
			}
		}
	}
	return results, nil
}

// one runs a task once. Its error is the runner's own (a workspace that
// cannot be made); what the tool or the checker did is in the Result.
func (rn runner) one(ctx context.Context, task Task, n int, ws string) (Result, error) {
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
	scratch := filepath.Join(rn.scratch, "runs", fmt.Sprintf("%s-%d", task.Name, n))
	tctx, cancel := context.WithTimeout(ctx, rn.timeout)
	r := rn.driver.Run(tctx, task, ws, scratch)
	cancel()
	r.Task, r.Run = task.Name, n
	after, err := snapshot(ws)
	if err != nil {
		return r, fmt.Errorf("task %s: workspace: %w", task.Name, err)
	}
	r.Changed = !sameFiles(before, after)
	if r.Error == "" {
		r.Solved = check(ctx, task, ws, rn.checkTimeout) == nil
	}
	r.Rejected = r.Changed && !r.Solved
	return r, nil
}

func (r Result) summary() string {
	s := "failed"
	if r.Solved {
		s = "solved"
	}
	if r.Error != "" {
		s = "error: " + r.Error
	}
	return fmt.Sprintf("%s (%d steps, %d/%d well-formed, %d edits, %s)", s, r.Steps, r.WellFormed, r.CallReplies, r.Edits, r.Wall.Round(time.Second/10))
}
