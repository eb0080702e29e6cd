package lsp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/position"
	"github.com/agentls/agentls/lsp/internal/review"
	"github.com/agentls/agentls/lsp/internal/rpc"
	"github.com/agentls/agentls/tools/edittool"
)

// A document is a buffer the editor has open; it shadows the file on disk.
// A buffer that is no file (VS Code's untitled:, vim-fugitive's
// fugitive://, a diff view) is kept too, with no path: its text can hold a
// reply to apply, but it is no file of the workspace.
type document struct {
	uri      protocol.DocumentURI
	path     string // absolute file name; "" for a buffer that is no file
	language string
	version  int32
	// buf holds the text; immutable, so copies of a document share it,
	// and a change costs about one chunk, not the whole text.
	buf *edits.Buffer
	// hashes are the line hashes of buf once an anchored tool read it
	// (linehashes.go), changed in place under documents.mu: copies of a
	// document must not read them.
	hashes *anchored.Index
}

// text returns the document's whole text.
func (d *document) text() string { return d.buf.Text() }

// documents are the open buffers, by URI and by file name.
type documents struct {
	mu      sync.Mutex
	byURI   map[protocol.DocumentURI]*document
	byPath  map[string]*document
	changed chan struct{} // closed and replaced on every change
	watches []*echoWatch  // edits on their way to the editor (echo.go)
}

func newDocuments() *documents {
	return &documents{byURI: map[protocol.DocumentURI]*document{}, byPath: map[string]*document{}, changed: make(chan struct{})}
}

// signal wakes those waiting for a change (mu held).
func (ds *documents) signal() {
	close(ds.changed)
	ds.changed = make(chan struct{})
}

// waitVersionsPast waits, up to timeout in all, until the documents of
// the files (path → version) are no longer at those versions (or closed):
// all of them, or with anyOne the first. It is how the server sees the
// didChange an editor sends after applying an edit, or after the user
// typed, which may still be on its way.
func (ds *documents) waitVersionsPast(ctx context.Context, files map[string]int32, anyOne bool, timeout time.Duration) {
	if len(files) == 0 {
		return
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ds.mu.Lock()
		moved := 0
		for file, version := range files {
			if d, ok := ds.byPath[file]; !ok || d.version != version {
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

func (ds *documents) get(u protocol.DocumentURI) (document, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.byURI[u]
	if !ok {
		return document{}, false
	}
	return *d, true
}

func (ds *documents) byFile(path string) (document, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.byPath[path]
	if !ok {
		return document{}, false
	}
	return *d, true
}

func (s *Server) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) (any, error) {
	d := &document{
		uri:      p.TextDocument.URI,
		language: string(p.TextDocument.LanguageID),
		version:  p.TextDocument.Version,
		buf:      edits.NewBuffer(p.TextDocument.Text),
	}
	if file, err := fileOfURI(d.uri); err == nil {
		d.path = cleanFile(file)
	} else {
		s.log.Info("opened a buffer that is no file: kept for its text only", "uri", d.uri, "why", err)
	}
	s.docs.open(d)
	return nil, nil
}

func (s *Server) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) (any, error) {
	s.docs.close(p.TextDocument.URI)
	s.replies.forget(p.TextDocument.URI) // a reopened buffer may start at the same version
	return nil, nil
}

// didChange applies incremental or full changes. A version that does not
// increase is logged and the change ignored: it is a client bug, and
// applying it could corrupt the buffer's text. The review store follows
// each change (pending hunks move with the user's edits, or turn into
// conflicts); the file's diagnostics are published again only then.
func (s *Server) didChange(ctx context.Context, p *didChangeParams) (any, error) {
	enc := s.session().encoding
	seq, _ := rpc.MessageOf(ctx)
	republish := ""
	err := s.docs.change(seq, p, enc, func(d document, prev int32, steps []review.Step, changes []textChange) {
		s.replies.follow(d.uri, prev, d.version, changes)
		if rel, err := s.relPath(d); err == nil && (s.review.Follow(rel, steps, enc) || s.answers.has(rel)) {
			republish = rel
		}
	})
	if err != nil {
		s.log.Warn("didChange: "+err.Error(), "uri", p.TextDocument.URI)
	}
	if republish != "" {
		s.goBackground("republish pending", func(ctx context.Context) { s.publishDiagnostics(ctx, republish) })
	}
	return nil, nil
}

// open keeps a newly opened buffer (replacing one opened twice without a
// close).
func (ds *documents) open(d *document) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if old, ok := ds.byURI[d.uri]; ok && old.path != "" {
		delete(ds.byPath, old.path)
	}
	ds.byURI[d.uri] = d
	if d.path != "" {
		ds.byPath[d.path] = d
	}
	ds.signal()
}

// close forgets a closed buffer.
func (ds *documents) close(u protocol.DocumentURI) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d, ok := ds.byURI[u]; ok {
		if ds.byPath[d.path] == d {
			delete(ds.byPath, d.path)
		}
		delete(ds.byURI, u)
		ds.signal()
	}
}

// change applies a didChange (message seq) to its buffer. Each change
// re-indexes only the chunks of the buffer it touches, so a keystroke
// does not copy or rescan a large document. followed is told, with the
// lock still held, the document as changed and what each change did to
// its lines — the review store must see them together, so the lock order
// is documents.mu → review.mu (and replyCounts.mu: session.go). An error says why the change
// was not taken (whole or in part).
func (ds *documents) change(seq uint64, p *didChangeParams, enc edits.Encoding, followed func(d document, prev int32, steps []review.Step, changes []textChange)) error {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.byURI[p.TextDocument.URI]
	if !ok {
		return errors.New("the document is not open")
	}
	if p.TextDocument.Version <= d.version {
		return fmt.Errorf("version %d does not increase past %d: ignored (a client bug)", p.TextDocument.Version, d.version)
	}
	buf, hashes := d.buf, d.hashes
	var steps []review.Step  // what each change did to the lines
	var changes []textChange // and to the bytes
	var problem error
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			before := buf
			buf, hashes = edits.NewBuffer(c.Text), nil
			steps = append(steps, review.Step{Before: before, After: buf, Whole: true})
			changes = append(changes, textChange{whole: true})
			continue
		}
		start, end, err := position.New(buf, enc).Offsets(*c.Range)
		if err == nil {
			before := buf
			if buf, err = buf.Replace(start, end, c.Text); err == nil {
				changes = append(changes, textChange{firstLine: int(c.Range.Start.Line), lastLine: int(c.Range.End.Line), text: c.Text, before: before})
				steps = append(steps, review.Step{Before: before, After: buf, First: int(c.Range.Start.Line), Last: int(c.Range.End.Line)})
				change := lineChange{start: start, end: end, startLine: int(c.Range.Start.Line), endLine: int(c.Range.End.Line), text: c.Text}
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
	prev := d.version
	d.buf, d.hashes, d.version = buf, hashes, p.TextDocument.Version
	ds.recordEcho(seq, d)
	ds.signal()
	followed(*d, prev, steps, changes)
	return problem
}

// A textChange is one content change of a didChange: text put in place of
// a stretch of lines firstLine to lastLine of before (the buffer as it
// was: immutable, so keeping it copies nothing); whole for a full-text
// change.
type textChange struct {
	firstLine, lastLine int
	text                string
	before              *edits.Buffer
	whole               bool
}

// lines returns the changed lines whole, as they were ("" when they
// cannot be read). Only a reply count that may be kept reads them.
func (ch textChange) lines() string {
	if ch.before == nil {
		return ""
	}
	return changedLines(ch.before, ch.firstLine, ch.lastLine)
}

// changedLines returns lines first to last of buf, whole ("" when they
// cannot be read).
func changedLines(buf *edits.Buffer, first, last int) string {
	from, to, err := position.New(buf, edits.UTF8).LineOffsets(first, last)
	if err != nil {
		return ""
	}
	lines, _ := buf.Slice(from, to)
	return lines
}

func cleanFile(name string) string {
	if real, err := filepath.EvalSymlinks(name); err == nil {
		return real
	}
	return filepath.Clean(name)
}

// editorSource reads files as the editor has them: an open buffer, else
// the disk. It implements edittool.Source.
type editorSource struct {
	docs *documents
	disk edittool.DiskSource
}

// source is the workspace as the editor has it (editorSource).
func (s *Server) source() editorSource {
	return editorSource{docs: s.docs, disk: edittool.DiskSource{Root: s.session().root}}
}

func (e editorSource) Read(ctx context.Context, rel string) (string, int32, bool, error) {
	name := filepath.Join(e.disk.Root, filepath.FromSlash(rel))
	if d, ok := e.docs.byFile(cleanFile(name)); ok {
		return d.text(), d.version, true, nil
	}
	return e.disk.Read(ctx, rel)
}

// relPathOfURI returns a file URI's path relative to the workspace root.
func (sess *session) relPathOfURI(u protocol.DocumentURI) (string, error) {
	file, err := fileOfURI(u)
	if err != nil {
		return "", err
	}
	return relPathIn(sess.root, document{uri: u, path: cleanFile(file)})
}

// relPath returns a document's path relative to the workspace root.
func (s *Server) relPath(d document) (string, error) { return relPathIn(s.session().root, d) }

// relPathIn returns a document's path relative to root, the workspace's.
func relPathIn(root string, d document) (string, error) {
	if d.path == "" {
		return "", fmt.Errorf("%s is not a file on disk (an untitled or virtual buffer): agentls works on the workspace's files; save it into the workspace first", d.uri)
	}
	if root == "" {
		return "", fmt.Errorf("%s: there is no workspace folder; open a folder in the editor", d.path)
	}
	rel, err := filepath.Rel(root, d.path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside the workspace %s", d.path, root)
	}
	return filepath.ToSlash(rel), nil
}

// all returns the open documents that are files (buffers that are no
// file are no part of the workspace: not listed to the model, not saved).
func (ds *documents) all() []document {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	out := make([]document, 0, len(ds.byURI))
	for _, d := range ds.byURI {
		if d.path != "" {
			out = append(out, *d)
		}
	}
	return out
}

// fileOfURI returns the file a document URI names. Only a file: URI with
// an absolute path (on this host) names one: go.lsp.dev/uri's Filename
// panics on the others, and editors send plenty (VS Code's
// untitled:Untitled-1, vim-fugitive's fugitive://, http: or git: views).
func fileOfURI(u protocol.DocumentURI) (string, error) {
	parsed, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("%q is not a URI: %w", u, err)
	}
	if !strings.EqualFold(parsed.Scheme, "file") {
		return "", fmt.Errorf("%s is not a file (its scheme is %q, not file)", u, parsed.Scheme)
	}
	if parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost") {
		return "", fmt.Errorf("%s names a file on another host (%s)", u, parsed.Host)
	}
	name := parsed.Path
	if len(name) > 1 && filepath.VolumeName(name[1:]) != "" {
		name = name[1:] // file:///C:/x on Windows
	}
	name = filepath.FromSlash(name)
	if !filepath.IsAbs(name) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%s has no absolute file name", u)
	}
	return name, nil
}

// workspaceRoot returns the folder a root or workspace-folder URI names
// (s.mu held, in initialize). One that is no folder on disk (untitled:, a
// remote scheme) is no root: the server runs without a workspace, and the
// user is told once initialized.
func (s *Server) workspaceRoot(u protocol.DocumentURI) string {
	root, err := fileOfURI(u)
	if err != nil {
		s.log.Warn("the workspace folder is not a folder on disk: no workspace", "uri", u, "why", err)
		s.pendingProblems = append(s.pendingProblems, fmt.Sprintf("the workspace folder %s is not a folder on disk, so agentls runs without a workspace (edits need one): open a local folder", u))
		return ""
	}
	return root
}
