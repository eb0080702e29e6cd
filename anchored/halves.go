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

// inHalves calls f on [0, n) — or, for n of at least parallelLines lines
// when two cores are free to run them, on [0, mid) and [mid, n) at once.
// f must write only what belongs to its own range.
func inHalves(n int, f func(from, to int)) {
	if n < parallelLines || runtime.GOMAXPROCS(0) < 2 {
		f(0, n)
		return
	}
	mid := n / 2
	var wg sync.WaitGroup
	wg.Go(func() { f(mid, n) })
	f(0, mid)
	wg.Wait()
}
