package documents

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/position"
)

// A Document is a buffer the editor has open; it shadows the file on
// disk. A buffer that is no file (VS Code's untitled:, vim-fugitive's
// fugitive://, a diff view) is kept too, with no Path: its text can hold
// a reply to apply, but it is no file of the workspace.
type Document struct {
	URI      protocol.DocumentURI
	Path     string // absolute file name, symlinks resolved; "" for a buffer that is no file
	Language string
	Version  int32
	// Buf holds the text; immutable, so copies of a document share it,
	// and a change costs about one chunk, not the whole text.
	Buf *edits.Buffer
	// hashes are the line hashes of Buf once an anchored tool read it
	// (linehashes.go), changed in place under Store.mu: copies of a
	// document must not read them.
	hashes *anchored.Index
}

// Text returns the document's whole text.
func (d *Document) Text() string { return d.Buf.Text() }

// A Store holds the open buffers, by URI and by file name. Its methods
// take its lock and call no other store.
type Store struct {
	mu      sync.Mutex
	byURI   map[protocol.DocumentURI]*Document
	byPath  map[string]*Document
	changed chan struct{} // closed and replaced on every change
	watches []*Watch      // edits on their way to the editor (echo.go)
}

// New returns an empty store.
func New() *Store {
	return &Store{byURI: map[protocol.DocumentURI]*Document{}, byPath: map[string]*Document{}, changed: make(chan struct{})}
}

// signal wakes those waiting for a change (mu held).
func (ds *Store) signal() {
	close(ds.changed)
	ds.changed = make(chan struct{})
}

// Get returns the open buffer of a URI.
func (ds *Store) Get(u protocol.DocumentURI) (Document, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.byURI[u]
	if !ok {
		return Document{}, false
	}
	return *d, true
}

// ByFile returns the open buffer of a file (its absolute name, symlinks
// resolved: Document.Path).
func (ds *Store) ByFile(path string) (Document, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.byPath[path]
	if !ok {
		return Document{}, false
	}
	return *d, true
}

// Files returns the open documents that are files (buffers that are no
// file are no part of the workspace: not listed to the model, not saved).
func (ds *Store) Files() []Document {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	out := make([]Document, 0, len(ds.byURI))
	for _, d := range ds.byURI {
		if d.Path != "" {
			out = append(out, *d)
		}
	}
	return out
}

// Open keeps a newly opened buffer (replacing one opened twice without a
// close).
func (ds *Store) Open(d Document) {
	d.hashes = nil
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if old, ok := ds.byURI[d.URI]; ok && old.Path != "" {
		delete(ds.byPath, old.Path)
	}
	ds.byURI[d.URI] = &d
	if d.Path != "" {
		ds.byPath[d.Path] = &d
	}
	ds.signal()
}

// Close forgets a closed buffer.
func (ds *Store) Close(u protocol.DocumentURI) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d, ok := ds.byURI[u]; ok {
		if ds.byPath[d.Path] == d {
			delete(ds.byPath, d.Path)
		}
		delete(ds.byURI, u)
		ds.signal()
	}
}

// A ContentChange is one change of a didChange. Its Range is a pointer:
// nil means the whole text (a value Range cannot tell a full replacement
// from an insert at 0:0).
type ContentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// A Change is what one ContentChange did to a buffer: Text put in place of
// lines First to Last (LSP lines) of Before, giving After; Whole for a
// full-text replace. Before and After are immutable: keeping them copies
// nothing.
type Change struct {
	Before, After *edits.Buffer
	First, Last   int
	Text          string
	Whole         bool
}

// Apply applies a didChange — the buffer of uri goes to version through
// changes, positions counted in enc — and numbers the state it makes
// with seq, the message's place in the inbound order (echo.go). Each
// change re-indexes only the chunks of the buffer it touches, so a
// keystroke does not copy or rescan a large document.
//
// followed is told, with the lock still held, the document as changed,
// its version before and what each change did: the stores that follow
// the buffers (pending review hunks, reply counts) must see the changes
// in the order the buffer took them, so the lock order is Store.mu →
// theirs. A version that does not increase is refused: it is a client
// bug, and applying it could corrupt the text. An error says why the
// didChange was not taken (whole or in part).
func (ds *Store) Apply(seq uint64, uri protocol.DocumentURI, version int32, changes []ContentChange, enc edits.Encoding, followed func(d Document, prev int32, changes []Change)) error {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.byURI[uri]
	if !ok {
		return errors.New("the document is not open")
	}
	if version <= d.Version {
		return fmt.Errorf("version %d does not increase past %d: ignored (a client bug)", version, d.Version)
	}
	buf, hashes := d.Buf, d.hashes
	var done []Change
	var problem error
	for _, c := range changes {
		before := buf
		if c.Range == nil {
			buf, hashes = edits.NewBuffer(c.Text), nil
			done = append(done, Change{Before: before, After: buf, Text: c.Text, Whole: true})
			continue
		}
		start, end, err := position.New(buf, enc).Offsets(*c.Range)
		if err == nil {
			if buf, err = buf.Replace(start, end, c.Text); err == nil {
				first, last := int(c.Range.Start.Line), int(c.Range.End.Line)
				done = append(done, Change{Before: before, After: buf, First: first, Last: last, Text: c.Text})
				change := lineChange{start: start, end: end, startLine: first, endLine: last, text: c.Text}
				if hashes != nil && !updateLineHashes(hashes, before, buf, change) {
					problem = errors.New("line hashes out of step with the buffer: dropped")
					hashes = nil
				}
				continue
			}
		}
		d.hashes = nil // may have taken some of the changes
		return fmt.Errorf("a range outside the document (%v: %v): the buffer may be out of step", c.Range, err)
	}
	prev := d.Version
	d.Buf, d.hashes, d.Version = buf, hashes, version
	ds.recordEcho(seq, d)
	ds.signal()
	followed(*d, prev, done)
	return problem
}

// WaitVersionsPast waits, up to timeout in all, until the documents of
// the files (path → version) are no longer at those versions (or closed):
// all of them, or with anyOne the first. It is how the server sees the
// didChange an editor sends after applying an edit, or after the user
// typed, which may still be on its way.
func (ds *Store) WaitVersionsPast(ctx context.Context, files map[string]int32, anyOne bool, timeout time.Duration) {
	if len(files) == 0 {
		return
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ds.mu.Lock()
		moved := 0
		for file, version := range files {
			if d, ok := ds.byPath[file]; !ok || d.Version != version {
				moved++
			}
		}
		ch := ds.changed
		ds.mu.Unlock()
		if moved == len(files) || anyOne && moved > 0 {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
