package tools

import "sync"

// TurnWrites are the files an agent turn's edit tools wrote (each edit
// tool records the files its calls name in Env.Writes), so that a runner
// the user allowed (`go test`, `make`) asks again before it runs one of
// them (policy.WrittenRunBy). A file counts until the user approves a
// command that runs it, and again once it is written again. The zero
// value is ready; it is safe for concurrent use, and a nil one records
// nothing.
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
	if w == nil {
		return
	}
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

// Pending returns the files written and not approved to run since, and
// their counts of writes, for Approve.
func (w *TurnWrites) Pending() ([]string, []int) {
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

// Approve records that the user approved running files as Pending gave
// them: one written again meanwhile stays pending.
func (w *TurnWrites) Approve(paths []string, counts []int) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, p := range paths {
		w.approved[p] = max(w.approved[p], counts[i])
	}
}
