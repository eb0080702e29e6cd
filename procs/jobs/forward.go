package jobs

import (
	"bytes"
	"fmt"
	"sync"
)

// A forwarder hands a job's output to Options.Output from a goroutine of
// its own, so a slow callback delays the editor's view, never the job.
// What it holds is bounded: past outputBacklog bytes waiting, output is
// only counted, and the callback is told how much it missed, in place.
type forwarder struct {
	id   int
	out  func(id int, stream string, p []byte)
	wake chan struct{} // one pending wake-up is enough
	done chan struct{}

	mu      sync.Mutex
	queue   []chunk
	pending int // bytes queued or being delivered
	closed  bool
}

// A chunk is output to deliver, or, with skipped > 0, output that was not
// kept.
type chunk struct {
	stream  string
	data    []byte
	skipped int64
}

func newForwarder(id int, out func(int, string, []byte)) *forwarder {
	f := &forwarder{id: id, out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go f.run()
	return f
}

// send queues a copy of p.
func (f *forwarder) send(stream string, p []byte) {
	f.mu.Lock()
	if f.pending+len(p) > outputBacklog {
		if n := len(f.queue); n > 0 && f.queue[n-1].skipped > 0 {
			f.queue[n-1].skipped += int64(len(p))
		} else {
			f.queue = append(f.queue, chunk{skipped: int64(len(p))})
		}
	} else {
		f.queue = append(f.queue, chunk{stream: stream, data: bytes.Clone(p)})
		f.pending += len(p)
	}
	f.mu.Unlock()
	f.poke()
}

func (f *forwarder) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// close delivers what is queued and returns when the callback is done.
func (f *forwarder) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.poke()
	<-f.done
}

func (f *forwarder) run() {
	defer close(f.done)
	for {
		f.mu.Lock()
		q, closed := f.queue, f.closed
		f.queue = nil
		f.mu.Unlock()
		size := 0
		for _, c := range q {
			if c.skipped > 0 {
				f.out(f.id, Note, fmt.Appendf(nil, "[%d bytes of output not shown: it came faster than it could be displayed; the job's log has everything]\n", c.skipped))
				continue
			}
			f.out(f.id, c.stream, c.data)
			size += len(c.data)
		}
		f.mu.Lock()
		f.pending -= size
		f.mu.Unlock()
		if closed {
			return // nothing is sent after close
		}
		if len(q) == 0 {
			<-f.wake
		}
	}
}
