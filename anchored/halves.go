package anchored

import (
	"runtime"
	"sync"
)

// parallelLines is the number of lines from which the passes over a
// text's lines run on two cores: below it (about 64 KB of code), starting
// a goroutine costs more than it saves.
const parallelLines = 3_000

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
