package anchored

import (
	"runtime"
	"sync"
)

// parallelLines is the number of lines from which the passes over a
// text's lines run on two cores: below it (about 200 KB of code), waking
// the other core costs more than it saves (on a virtual machine an idle
// core is woken through the hypervisor: 100 KB of Go rendered slower on
// two cores than on one).
const parallelLines = 10_000

// workersFor is how many cores a pass over n lines (or other items as
// costly) runs on: two from parallelLines on, when there are two.
func workersFor(n int) int {
	if n < parallelLines || runtime.GOMAXPROCS(0) < 2 {
		return 1
	}
	return 2
}

// onWorkers calls f(0) … f(workers-1), at once when there are two; f(w)
// must write only what belongs to worker w.
func onWorkers(workers int, f func(w int)) {
	if workers == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { f(1) })
	f(0)
	wg.Wait()
}

// inHalves calls f on [0, n) — or, on two cores (workersFor), on [0, mid)
// and [mid, n) at once. f must write only what belongs to its own range.
func inHalves(n int, f func(from, to int)) {
	workers := workersFor(n)
	onWorkers(workers, func(w int) { f(w*n/workers, (w+1)*n/workers) })
}
