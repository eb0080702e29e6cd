package lsp

import (
	"slices"

	"github.com/agentls/agentls/edits"
)

// An echoWatch keeps the states an edit's buffers go through while the
// edit is on its way, each with the number of the message (inbound) that
// made it. Neovim answers an applyEdit after the didChange of every change
// it applied, so the state made by the last message before its answer is
// the buffer as the editor left it — before any keystroke that followed:
// a user who undoes the edit right away must not make it look skipped.
type echoWatch struct {
	states map[string][]echoState // by file name
}

// An echoState is a buffer as one message left it; seq 0 is the buffer
// as it was when the watch began.
type echoState struct {
	seq     uint64
	version int32
	buf     *edits.Buffer
}

// keptEchoStates bounds the states kept per buffer: only the ones up to
// an answer that is already on its way are ever asked for.
const keptEchoStates = 256

// watch begins to keep the states of the open buffers of files.
func (ds *documents) watch(files map[string]int32) *echoWatch {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	w := &echoWatch{states: map[string][]echoState{}}
	for file := range files {
		if d, ok := ds.byPath[file]; ok {
			w.states[file] = []echoState{{version: d.version, buf: d.buf}}
		}
	}
	ds.watches = append(ds.watches, w)
	return w
}

func (ds *documents) unwatch(w *echoWatch) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.watches = slices.DeleteFunc(ds.watches, func(x *echoWatch) bool { return x == w })
}

// recordEcho keeps d's new state for the watches of its file (ds.mu
// held); seq numbers the didChange that made it.
func (ds *documents) recordEcho(seq uint64, d *document) {
	for _, w := range ds.watches {
		if states, ok := w.states[d.path]; ok && len(states) < keptEchoStates {
			w.states[d.path] = append(states, echoState{seq: seq, version: d.version, buf: d.buf})
		}
	}
}

// echoAt returns file's buffer as the last message up to mark left it.
func (ds *documents) echoAt(w *echoWatch, file string, mark uint64) (echoState, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	var at echoState
	found := false
	for _, st := range w.states[file] {
		if st.seq > mark {
			break
		}
		at, found = st, true
	}
	return at, found
}
