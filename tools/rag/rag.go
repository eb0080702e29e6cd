package rag

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentls/agentls/tools"
)

const (
	// DefaultWait is how long a call waits for an index being built
	// before it answers with the progress: a small workspace is indexed
	// within it, and the model is answered at once.
	DefaultWait = 2 * time.Second
	// DefaultResults is how many files a result lists.
	DefaultResults = 8
	// DefaultRefreshBudget: listing 10k files takes about 50 ms on a
	// loaded machine, 100k about 600; the query itself 5 and 10.
	DefaultRefreshBudget = 100 * time.Millisecond
	// syncUpdate is the most changed files a call re-indexes before it
	// answers; more are re-indexed in the background while the index as
	// it was answers.
	syncUpdate = 256
	// snippetLines is the window of lines shown from each file.
	snippetLines = 12
	// maxLineBytes and maxResultBytes bound what a result shows.
	maxLineBytes   = 200
	maxResultBytes = 16 << 10
)

// Options configure rag.
type Options struct {
	// Dir is the folder the workspace's index is saved in (statedir.Dir
	// "rag"); "" keeps it in memory only, unless StateDir gives one.
	Dir string
	// StateDir, when Dir is "", is called on the first call to make and
	// name the folder (so that binding the tool for a turn that never
	// calls it creates nothing); an error keeps the index in memory.
	StateDir func() (string, error)
	// Wait is how long a call waits for an index being built (0:
	// DefaultWait).
	Wait time.Duration
	// Results is how many files a result lists (0: DefaultResults).
	Results int
	// RefreshBudget is how long a call may spend listing the files to
	// find those changed before it answers (0: DefaultRefreshBudget);
	// where listing takes longer, the index is brought up to date in the
	// background after each answer.
	RefreshBudget time.Duration
	// Embed, when set, re-ranks BM25's best files by the embeddings of
	// their passages (the embeddings setting); EmbedModel names its model,
	// which keys the vector cache.
	Embed      Embed
	EmbedModel string
}

// Tool is rag, configured by opts: bound in a turn, it searches the Env's
// workspace, its index made on the first call; with the Env's Buffers (an
// editor's open buffers) their text is searched in place of the files',
// so an unsaved change is found, and shown, before it is saved.
func Tool(opts Options) tools.Tool {
	return tools.Tool{Spec: ragSpec(), Bind: func(env tools.Env) tools.RunFunc {
		var once sync.Once
		var s *Searcher
		return func(ctx context.Context, use tools.ToolUse) (string, error) {
			once.Do(func() { s = New(env.Workspace.Root(), opts) })
			var buffers map[string]string
			if env.Buffers != nil {
				buffers = env.Buffers()
			}
			return s.SearchBuffers(ctx, queryArg(use), buffers)
		}
	}}
}

// ragSpec: rag finds the passages relevant to a question, over an index
// of the workspace it keeps in the state folder.
func ragSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameRag,
		BlockTypes:   []string{tools.NameRag},
		Description:  "Find the files and passages of the workspace most relevant to a question.",
		Instructions: `Write the question or the words to look for (names of functions, types, settings, error messages): you get the best-matching files, each with the window of lines that matches best, with line numbers. It ranks by the words themselves (BM25: identifiers are split, so "parse config" finds parseConfig), not by meaning, and honours .gitignore. Read a file it finds before you change it. The first call in a large workspace may answer that the index is being built; call again later, or use the shell's grep meanwhile.`,
		Parameters: []tools.Parameter{
			{Name: "query", Type: "string", Required: true, Description: "The question, or the words to find."},
		},
		Hints:        []string{"read-only"},
		Requires:     "nothing: it reads the workspace and keeps its index in the state folder",
		LoadPriority: 15,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("where are the settings validated?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameRag, "settings validation of keys")),
				tools.ExampleSystem("Result of rag:\n2 files for \"settings validation of keys\" (BM25 over 120 files indexed):\n\nsettings/settings.go lines 300-311 (score 9.1):\n  300  // keys are every setting..."),
			}},
		},
	}
}

// queryArg is the call's question: its body, its arguments, or its named
// query.
func queryArg(use tools.ToolUse) string {
	if q := strings.TrimSpace(use.Content); q != "" {
		return q
	}
	if len(use.Args) > 0 {
		return strings.TrimSpace(strings.Join(use.Args, " "))
	}
	q, _ := use.Kwargs["query"].(string)
	return strings.TrimSpace(q)
}

// A Searcher answers questions over one workspace's index, building it in
// the background the first time and bringing it up to date on each call.
// It is safe for concurrent use.
type Searcher struct {
	root string
	opts Options

	mu     sync.Mutex
	ix     *Index // nil until a first build ends
	loaded bool   // the saved index was looked for
	job    *job   // the build or update under way, if any
	// saveErr is why the index was last not saved, if it was not.
	saveErr error
	// refreshCost is how long the last listing of the files took; over
	// Options.RefreshBudget, calls answer at once and refresh behind.
	refreshCost time.Duration
	// removed counts the files forgotten since the index was last saved.
	removed int

	vmu     sync.Mutex   // guards vectors, apart from mu: embedding waits on the network
	vectors *vectorCache // nil until embeddings first re-rank

	// behindGate, when set (by tests only), holds a refresh behind an
	// answer until it is closed, so a test can see the answer given from
	// the index as it was without racing the refresh.
	behindGate chan struct{}
}

// A job indexes files in the background.
type job struct {
	done           chan struct{}
	indexed, total atomic.Int64
	initial        bool
	err            error // set before done is closed
}

// New returns a Searcher over root's files.
func New(root string, opts Options) *Searcher {
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.Results <= 0 {
		opts.Results = DefaultResults
	}
	if opts.RefreshBudget == 0 {
		opts.RefreshBudget = DefaultRefreshBudget
	}
	if opts.Dir == "" && opts.StateDir != nil {
		if dir, err := opts.StateDir(); err == nil {
			opts.Dir = dir
		}
	}
	return &Searcher{root: root, opts: opts}
}

// Search answers query: the best files with their best passage, the
// progress of a first index still being built, or an error saying why
// nothing can be answered.
func (s *Searcher) Search(ctx context.Context, query string) (string, error) {
	return s.SearchBuffers(ctx, query, nil)
}

// SearchBuffers is Search with the editor's buffers (path → text) taking
// the place of the files they hold: indexed as they are now, and quoted
// from. A buffer's file is read again from disk by the next refresh.
func (s *Searcher) SearchBuffers(ctx context.Context, query string, buffers map[string]string) (string, error) {
	if query == "" {
		return "", errors.New("no question given: write what you are looking for, e.g. rag where are the settings validated")
	}
	j, err := s.refresh(ctx)
	if err != nil {
		return "", err
	}
	if j != nil {
		timer := time.NewTimer(s.opts.Wait)
		select {
		case <-j.done:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	hits, weights, indexed, note, err := s.query(j, query, buffers)
	if err != nil || hits == nil {
		return note, err
	}
	if len(hits) == 0 {
		return fmt.Sprintf("nothing matches %q in the %d files indexed%s: try other words (names of functions, types, messages), or shell's grep for an exact string", query, indexed, note), nil
	}
	ps := passages(s.root, hits, weights, buffers)
	how := "BM25"
	if s.opts.Embed != nil {
		ranked, err := s.rerank(ctx, query, ps)
		if err != nil {
			note += fmt.Sprintf(" (embeddings failed, so ranked by BM25 alone: %v)", err)
		} else {
			ps, how = ranked, "BM25 and embeddings"
		}
	}
	if len(ps) > s.opts.Results {
		ps = ps[:s.opts.Results]
	}
	return render(query, ps, indexed, how, note), nil
}

// query runs the query on the index under the lock: the files found (more
// than Results when embeddings re-rank them), the words' weights, and a
// note on the index's state. With no index yet it returns nil hits and,
// as the note, the build's progress.
func (s *Searcher) query(j *job, query string, buffers map[string]string) (hits []hit, weights map[string]float64, indexed int, note string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ix == nil {
		if j != nil {
			select {
			case <-j.done:
				if j.err != nil {
					return nil, nil, 0, "", fmt.Errorf("rag: building the index failed: %w", j.err)
				}
			default:
				return nil, nil, 0, fmt.Sprintf("index building: %d of %d files; call rag again in a little while (the first index of a large workspace takes a while), or use shell's grep meanwhile", j.indexed.Load(), j.total.Load()), nil
			}
		}
		return nil, nil, 0, "", errors.New("rag: no index") // not reached: refresh makes one or a job
	}
	if s.ix.Len() == 0 {
		return nil, nil, 0, "", errors.New("nothing indexed: the workspace has no text files rag reads (it skips binary files, files over 1 MB, symlinks and what .gitignore ignores); read or list files instead")
	}
	if s.job != nil && s.job.total.Load() > 0 {
		note = fmt.Sprintf(" (re-indexing %d changed files: %d done; results may be stale)", s.job.total.Load(), s.job.indexed.Load())
	} else if s.refreshCost > s.opts.RefreshBudget {
		note = " (this workspace is large, so its index is brought up to date behind each answer: a file changed since the last call may not be found yet)"
	}
	if s.saveErr != nil {
		note += fmt.Sprintf(" (the index could not be saved, so it is rebuilt next time: %v)", s.saveErr)
	}
	k := s.opts.Results
	if s.opts.Embed != nil {
		k = max(k, rerankDepth)
	}
	for rel, text := range buffers {
		// Only the workspace's files rag indexes (not ignored, not
		// binary); marked with no time or size of a file, so the next
		// refresh reads the disk's again.
		if _, known := s.ix.byPath[rel]; known && len(text) <= MaxFileBytes {
			s.ix.remove(rel)
			s.ix.add(fileInfo{Path: rel, ModTime: -1, Size: -1}, []byte(text))
		}
	}
	hits, weights = s.ix.search(query, k)
	if hits == nil {
		hits = []hit{}
	}
	return hits, weights, s.ix.Len(), note, nil
}

// rerank re-ranks passages with embeddings, through the vector cache
// (loaded on first use, saved after each call that added to it).
func (s *Searcher) rerank(ctx context.Context, query string, ps []passage) ([]passage, error) {
	s.vmu.Lock()
	defer s.vmu.Unlock()
	if s.vectors == nil {
		s.vectors = loadVectors(s.opts.Dir, s.opts.EmbedModel)
	}
	ranked, err := rerank(ctx, s.vectors, s.opts.Embed, query, ps)
	if err != nil {
		return nil, err
	}
	// A cache not saved costs only requests next time: not the call's error.
	_ = s.vectors.save(s.opts.Dir)
	return ranked, nil
}

// refresh brings the index up to date with the files: it loads the saved
// index on first use, lists the files, forgets the removed, and re-indexes
// the changed — now when they are few, else in a job it returns (the job
// already under way, if there is one).
func (s *Searcher) refresh(ctx context.Context) (*job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		s.loaded = true
		if s.opts.Dir != "" {
			ix, err := loadIndex(s.opts.Dir)
			if err != nil {
				return nil, err
			}
			s.ix = ix
		}
	}
	if s.job != nil {
		if s.job.initial {
			return s.job, nil
		}
		return nil, nil // an update under way: the index as it is answers
	}
	if s.ix != nil && s.refreshCost > s.opts.RefreshBudget {
		// Listing this workspace costs more than a call should wait:
		// answer now, and bring the index up to date behind the answer.
		j := &job{done: make(chan struct{})}
		s.job = j
		go s.refreshBehind(context.WithoutCancel(ctx), j, s.behindGate)
		return nil, nil
	}
	start := time.Now()
	files, _, err := listFiles(ctx, s.root)
	if err != nil {
		return nil, fmt.Errorf("rag: %w", err)
	}
	var changed []fileInfo
	if s.ix == nil {
		changed = files
	} else {
		changed = s.diffLocked(files)
		s.refreshCost = time.Since(start)
		if len(changed) <= syncUpdate {
			for _, f := range changed {
				if content, ok := readText(s.root, f); ok {
					s.ix.add(f, content)
				} else {
					s.ix.remove(f.Path)
				}
			}
			if len(changed) > 0 || s.removed > 0 {
				s.ix.compactIfSparse()
				s.saveLocked()
			}
			s.removed = 0
			return nil, nil
		}
	}
	j := &job{done: make(chan struct{}), initial: s.ix == nil}
	j.total.Store(int64(len(changed)))
	s.job = j
	go s.run(context.WithoutCancel(ctx), j, changed)
	return j, nil
}

// diffLocked forgets the indexed files no longer listed and returns the
// listed ones that are not indexed as they are (new or changed).
func (s *Searcher) diffLocked(files []fileInfo) []fileInfo {
	var changed []fileInfo
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		listed[f.Path] = true
		if !s.ix.has(f) {
			changed = append(changed, f)
		}
	}
	var removed []string
	for p := range s.ix.byPath {
		if !listed[p] {
			removed = append(removed, p)
		}
	}
	for _, p := range removed {
		s.ix.remove(p)
	}
	s.removed += len(removed)
	return changed
}

// refreshBehind lists the files outside the lock and re-indexes what
// changed, for j, after a call answered from the index as it was.
func (s *Searcher) refreshBehind(ctx context.Context, j *job, gate <-chan struct{}) {
	if gate != nil {
		<-gate
	}
	start := time.Now()
	files, _, err := listFiles(ctx, s.root)
	s.mu.Lock()
	if err != nil {
		s.job = nil
		s.mu.Unlock()
		close(j.done)
		return
	}
	changed := s.diffLocked(files)
	s.refreshCost = time.Since(start)
	j.total.Store(int64(len(changed)))
	s.mu.Unlock()
	s.run(ctx, j, changed)
}

// run indexes files for j: workers (one a core) read each file and count
// its words outside the lock, and run adds them under it, so queries go on
// meanwhile. A first build fills an index of its own, published when it
// is complete.
func (s *Searcher) run(ctx context.Context, j *job, files []fileInfo) {
	target := newIndex()
	if !j.initial {
		s.mu.Lock()
		target = s.ix
		s.mu.Unlock()
	}
	type analyzed struct {
		f  fileInfo
		t  terms
		ok bool
	}
	work := make(chan fileInfo)
	out := make(chan analyzed, 64)
	var workers sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		workers.Go(func() {
			for f := range work {
				content, ok := readText(s.root, f)
				a := analyzed{f: f, ok: ok}
				if ok {
					a.t = analyze(f.Path, content)
				}
				out <- a
			}
		})
	}
	go func() {
		defer close(work)
		for _, f := range files {
			if ctx.Err() != nil {
				return
			}
			work <- f
		}
	}()
	go func() {
		workers.Wait()
		close(out)
	}()
	for a := range out {
		s.mu.Lock()
		if a.ok {
			target.insert(a.f, a.t)
		} else {
			target.remove(a.f.Path)
		}
		s.mu.Unlock()
		j.indexed.Add(1)
	}
	s.mu.Lock()
	if j.initial || len(files) > 0 || s.removed > 0 {
		target.compactIfSparse()
		s.ix = target
		s.saveLocked()
	}
	s.removed = 0
	s.job = nil
	s.mu.Unlock()
	close(j.done)
}

// saveLocked saves the index when there is a state folder. A failure to
// save costs only a rebuild next time, so it is not the call's error:
// results mention it (saveErr).
func (s *Searcher) saveLocked() {
	if s.opts.Dir == "" || s.ix == nil {
		return
	}
	s.saveErr = s.ix.save(s.opts.Dir)
}
