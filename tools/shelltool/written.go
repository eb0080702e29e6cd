package shelltool

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// TurnWrites are the files an agent turn's edit tools wrote (recorded by
// whoever binds the tools: agent.BindTools), so that a runner the user
// allowed (`go test`, `make`) asks again before it runs one of them
// (policy.WrittenRunBy). A file counts until the user approves a command
// that runs it, and again once it is written again. The zero value is
// ready; it is safe for concurrent use.
type TurnWrites struct {
	mu sync.Mutex
	// paths in the order first written; each one's count of writes, and
	// the count the user approved running it at.
	paths    []string
	writes   map[string]int
	approved map[string]int
}

// Add records files written (relative to the workspace, slash-separated).
func (w *TurnWrites) Add(paths ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writes == nil {
		w.writes, w.approved = map[string]int{}, map[string]int{}
	}
	for _, p := range paths {
		if _, seen := w.writes[p]; !seen {
			w.paths = append(w.paths, p)
		}
		w.writes[p]++
	}
}

// pending returns the files written and not approved to run since, and
// their counts of writes, for approve.
func (w *TurnWrites) pending() ([]string, []int) {
	if w == nil {
		return nil, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var paths []string
	var counts []int
	for _, p := range w.paths {
		if n := w.writes[p]; w.approved[p] != n {
			paths, counts = append(paths, p), append(counts, n)
		}
	}
	return paths, counts
}

// approve records that the user approved running files as pending gave
// them: one written again meanwhile stays pending.
func (w *TurnWrites) approve(paths []string, counts []int) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, p := range paths {
		w.approved[p] = max(w.approved[p], counts[i])
	}
}

type writesKey struct{}

// turnWrites returns the TurnWrites of the call ctx belongs to, or nil.
func turnWrites(ctx context.Context) *TurnWrites {
	w, _ := ctx.Value(writesKey{}).(*TurnWrites)
	return w
}

// RunsInTurn is Runs for one agent turn whose edit tools record the files
// they write in writes: an allowlisted runner that would run one of them
// asks again.
func RunsInTurn(host func() (*Host, error), c approval.Confirmer, writes *TurnWrites) map[string]tools.RunFunc {
	runs := Runs(host, c)
	if writes == nil {
		return runs
	}
	for name, run := range runs {
		runs[name] = func(ctx context.Context, use tools.ToolUse) (string, error) {
			return run(context.WithValue(ctx, writesKey{}, writes), use)
		}
	}
	return runs
}

// askWritten puts a shell block to the user again when the policy allows
// it but it runs a file the turn's edit tools wrote (policy.WrittenRunBy:
// `go test` after the agent saved x_test.go): the user allowed the runner,
// not the code the agent writes for it. It returns the verdict to go on
// with, or the refusal. A question the policy asks anyway says why too,
// and what "Always" for a runner allows.
func askWritten(ctx context.Context, c approval.Confirmer, script string, v policy.Verdict) (policy.Verdict, error) {
	if v.Decision == policy.Deny {
		return v, nil
	}
	writes := turnWrites(ctx)
	paths, counts := writes.pending()
	why, files := policy.WrittenRunBy(script, paths)
	if v.Decision == policy.Ask {
		if why != "" {
			v.Reason += "; " + why
		}
		for _, p := range policy.Patterns(script) {
			if policy.RunsCode(p) {
				v.Reason += fmt.Sprintf("; “Always” lets `%s` run unasked from now on, on your code as it is; after the agent changes a file it runs, it asks again", p)
				break
			}
		}
		return v, nil
	}
	if why == "" {
		return v, nil
	}
	// No "Always" here: it would allow what the question is about.
	q := approval.Command(script, why+": the command is allowed, but not to run code the agent wrote without you seeing it", "")
	if err := ask(ctx, c, nil, q); err != nil {
		return v, err
	}
	var ran []int // the counts of the files the question named
	for _, f := range files {
		ran = append(ran, counts[slices.Index(paths, f)])
	}
	writes.approve(files, ran)
	return v, nil
}
