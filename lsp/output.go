package lsp

import (
	"bytes"
	"fmt"
	"sync"
	"time"
)

// The output channel: commands' and jobs' output goes to the editor as
// window/logMessage lines prefixed with their source ("[job 2] ok ...").
// Writers never wait for the editor: lines go through a bounded queue to
// one sender, and each source may send at most linesPerSecond lines a
// second; what is skipped is counted and said (the log files have it all),
// so a command printing a gigabyte cannot flood the editor.

const (
	linesPerSecond = 200
	outputQueue    = 1024
	maxLineBytes   = 4096 // a longer line is sent in pieces
)

type outputChannel struct {
	send func(line string) // one at a time, from the sender goroutine

	mu      sync.Mutex
	queue   chan string
	started bool
	closed  bool
	sources map[string]*outputSource
}

// outputSource is one command's or job's partial line and rate window.
type outputSource struct {
	partial []byte
	window  time.Time // start of the current second
	sent    int       // lines sent in it
	skipped int       // lines skipped since the last notice
}

// write takes output of a source; it never blocks on the editor.
func (o *outputChannel) write(source string, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sources == nil {
		o.sources = map[string]*outputSource{}
	}
	src := o.sources[source]
	if src == nil {
		src = &outputSource{}
		o.sources[source] = src
	}
	src.partial = append(src.partial, p...)
	for {
		i := bytes.IndexByte(src.partial, '\n')
		if i < 0 && len(src.partial) < maxLineBytes {
			break
		}
		if i < 0 {
			i = maxLineBytes
		}
		line := string(bytes.TrimRight(src.partial[:i], "\r"))
		src.partial = src.partial[min(i+1, len(src.partial)):]
		o.line(source, src, line)
	}
	if len(src.partial) == 0 {
		src.partial = nil // let a flood's buffer go
	}
}

// line sends one line within the source's rate, counting what it skips.
func (o *outputChannel) line(source string, src *outputSource, line string) {
	now := time.Now()
	if now.Sub(src.window) >= time.Second {
		if src.skipped > 0 {
			o.enqueue(fmt.Sprintf("[%s] … %d lines not shown here (the output is too fast; the log file has them)", source, src.skipped))
		}
		src.window, src.sent, src.skipped = now, 0, 0
	}
	if src.sent >= linesPerSecond {
		src.skipped++
		return
	}
	src.sent++
	o.enqueue("[" + source + "] " + line)
}

// enqueue hands a line to the sender; a full queue drops it (the editor
// is not keeping up).
func (o *outputChannel) enqueue(line string) {
	if o.closed {
		return
	}
	if !o.started {
		o.started = true
		o.queue = make(chan string, outputQueue)
		go func() {
			for l := range o.queue {
				o.send(l)
			}
		}()
	}
	select {
	case o.queue <- line:
	default:
	}
}

// close stops the sender; later output is dropped.
func (o *outputChannel) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.started && !o.closed {
		close(o.queue)
	}
	o.closed = true
}

// newOutputChannel sends lines to the client's log with send.
func newOutputChannel(send func(line string)) *outputChannel {
	return &outputChannel{send: send}
}
