package documents

import (
	"slices"

	"github.com/agentls/agentls/edits"
)

// A Watch keeps the states an edit's buffers go through while the edit
// is on its way, each with the number of the message (the inbound order)
// that made it. Neovim answers an applyEdit after the didChange of every
// change it applied, so the state made by the last message before its
// answer is the buffer as the editor left it — before any keystroke that
// followed: a user who undoes the edit right away must not make it look
// skipped.
type Watch struct {
	states map[string][]State // by file name
}

// A State is a buffer as one message left it; Seq 0 is the buffer as it
// was when the watch began.
type State struct {
	Seq     uint64
	Version int32
	Buf     *edits.Buffer
}

// keptEchoStates bounds the states kept per buffer: only the ones up to
// an answer that is already on its way are ever asked for.
const keptEchoStates = 256

// Watch begins to keep the states of the open buffers of files.
func (ds *Store) Watch(files map[string]int32) *Watch {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	w := &Watch{states: map[string][]State{}}
	for file := range files {
		if d, ok := ds.byPath[file]; ok {
			w.states[file] = []State{{Version: d.Version, Buf: d.Buf}}
		}
	}
	ds.watches = append(ds.watches, w)
	return w
}

// Unwatch stops keeping states for w (its states stay readable).
func (ds *Store) Unwatch(w *Watch) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.watches = slices.DeleteFunc(ds.watches, func(x *Watch) bool { return x == w })
}

// recordEcho keeps d's new state for the watches of its file (ds.mu
// held); seq numbers the didChange that made it.
func (ds *Store) recordEcho(seq uint64, d *Document) {
	for _, w := range ds.watches {
		if states, ok := w.states[d.Path]; ok && len(states) < keptEchoStates {
			w.states[d.Path] = append(states, State{Seq: seq, Version: d.Version, Buf: d.Buf})
		}
	}
}

// EchoAt returns file's buffer as the last message up to mark left it.
func (ds *Store) EchoAt(w *Watch, file string, mark uint64) (State, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	var at State
	found := false
	for _, st := range w.states[file] {
		if st.Seq > mark {
			break
		}
		at, found = st, true
	}
	return at, found
}
