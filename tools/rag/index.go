package rag

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"unicode"
	"unicode/utf8"
)

// BM25's parameters: the usual ones (Robertson's k1 1.2, b 0.75).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// pathWeight is how many occurrences a word of a file's path counts
	// for: a question naming "config" should find config.go before a file
	// that mentions config once.
	pathWeight = 3
	// indexVersion changes when the saved format does; a saved index of
	// another version is rebuilt.
	indexVersion = 1
)

// An Index is a BM25 index of the workspace's files. Documents are
// files; a file changed or removed is marked dead (Path "") and a changed
// one added again under a new id, so that an update never rewrites the
// postings of common words; compact rebuilds them when the dead are many.
// It is not safe for concurrent use: Searcher guards it.
type Index struct {
	Version int
	Docs    []Doc
	// Terms are the words, by id; Postings[id] lists the documents that
	// hold Terms[id] (rebuilt from Docs on load, not saved).
	Terms    []string
	termIDs  map[string]uint32
	postings [][]posting
	byPath   map[string]uint32
	live     int
	totalLen int64
}

// A Doc is one indexed file: what identifies its version on disk, and its
// words with their counts (kept so that postings can be rebuilt).
type Doc struct {
	Path    string
	ModTime int64
	Size    int64
	Len     int32
	TermIDs []uint32
	Freqs   []uint16
}

type posting struct {
	doc uint32
	tf  uint16
}

func newIndex() *Index {
	return &Index{Version: indexVersion, termIDs: map[string]uint32{}, byPath: map[string]uint32{}}
}

// Len is how many files the index holds.
func (ix *Index) Len() int { return ix.live }

// has reports whether the index holds path at this version.
func (ix *Index) has(f fileInfo) bool {
	id, ok := ix.byPath[f.Path]
	if !ok {
		return false
	}
	d := ix.Docs[id]
	return d.ModTime == f.ModTime && d.Size == f.Size
}

// remove drops path from the index, if it is there.
func (ix *Index) remove(path string) {
	id, ok := ix.byPath[path]
	if !ok {
		return
	}
	d := &ix.Docs[id]
	ix.totalLen -= int64(d.Len)
	ix.live--
	*d = Doc{} // dead: postings that point here are skipped
	delete(ix.byPath, path)
}

// terms are one file's words and their counts, made outside the
// Searcher's lock (analyze), then added to the index under it (insert).
type terms struct {
	counts map[string]*int
	n      int
}

// analyze counts a file's words: its content's, and its path's at
// pathWeight each.
func analyze(path string, content []byte) terms {
	t := terms{counts: map[string]*int{}}
	var tk tokenizer
	count := func(weight int) func([]byte) {
		return func(w []byte) {
			if c, ok := t.counts[string(w)]; ok { // a lookup by string(w) does not allocate; a store would
				*c += weight
			} else {
				c := weight
				t.counts[string(w)] = &c
			}
			t.n += weight
		}
	}
	tk.run(content, count(1))
	tk.run([]byte(path), count(pathWeight))
	return t
}

// add indexes a file's words, replacing any earlier version of it.
func (ix *Index) add(f fileInfo, content []byte) { ix.insert(f, analyze(f.Path, content)) }

// insert adds a file's analyzed words, replacing any earlier version of
// the file.
func (ix *Index) insert(f fileInfo, t terms) {
	ix.remove(f.Path)
	id := uint32(len(ix.Docs))
	d := Doc{Path: f.Path, ModTime: f.ModTime, Size: f.Size, Len: int32(t.n),
		TermIDs: make([]uint32, 0, len(t.counts)), Freqs: make([]uint16, 0, len(t.counts))}
	for w, c := range t.counts {
		tid, ok := ix.termIDs[w]
		if !ok {
			tid = uint32(len(ix.Terms))
			ix.Terms = append(ix.Terms, w)
			ix.termIDs[w] = tid
			ix.postings = append(ix.postings, nil)
		}
		tf := uint16(min(*c, math.MaxUint16))
		d.TermIDs = append(d.TermIDs, tid)
		d.Freqs = append(d.Freqs, tf)
		ix.postings[tid] = append(ix.postings[tid], posting{doc: id, tf: tf})
	}
	ix.Docs = append(ix.Docs, d)
	ix.byPath[f.Path] = id
	ix.live++
	ix.totalLen += int64(t.n)
}

// compactIfSparse rebuilds the index without its dead documents when they
// are more than a quarter of it, so postings stay mostly live and the
// document frequencies close to the truth.
func (ix *Index) compactIfSparse() {
	dead := len(ix.Docs) - ix.live
	if dead < 64 || dead*4 < len(ix.Docs) {
		return
	}
	docs := make([]Doc, 0, ix.live)
	for _, d := range ix.Docs {
		if d.Path != "" {
			docs = append(docs, d)
		}
	}
	ix.Docs = docs
	ix.rebuild()
}

// rebuild makes the postings, the path map and the totals from Docs (after
// a load or a compaction), dropping words no live document has.
func (ix *Index) rebuild() {
	used := make([]int32, len(ix.Terms))
	for i := range used {
		used[i] = -1
	}
	var terms []string
	ix.termIDs = map[string]uint32{}
	ix.byPath = make(map[string]uint32, len(ix.Docs))
	ix.live, ix.totalLen = 0, 0
	for i := range ix.Docs {
		d := &ix.Docs[i]
		if d.Path == "" {
			continue
		}
		for j, old := range d.TermIDs {
			if used[old] < 0 {
				used[old] = int32(len(terms))
				terms = append(terms, ix.Terms[old])
			}
			d.TermIDs[j] = uint32(used[old])
		}
	}
	ix.Terms = terms
	ix.postings = make([][]posting, len(terms))
	for id, t := range terms {
		ix.termIDs[t] = uint32(id)
	}
	for i, d := range ix.Docs {
		if d.Path == "" {
			continue
		}
		for j, tid := range d.TermIDs {
			ix.postings[tid] = append(ix.postings[tid], posting{doc: uint32(i), tf: d.Freqs[j]})
		}
		ix.byPath[d.Path] = uint32(i)
		ix.live++
		ix.totalLen += int64(d.Len)
	}
}

// A hit is one file found, with its score.
type hit struct {
	Path  string
	Score float64
}

// idf is BM25's inverse document frequency of a word found in df files.
func (ix *Index) idf(df int) float64 {
	n := float64(ix.live)
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// search returns the k best files for the query's words, best first, and
// the query's words the index knows with their idf (for the snippets).
func (ix *Index) search(query string, k int) ([]hit, map[string]float64) {
	weights := map[string]float64{}
	var tids []uint32
	tokenize([]byte(query), func(w []byte) {
		t := string(w)
		if _, seen := weights[t]; seen {
			return
		}
		tid, ok := ix.termIDs[t]
		if !ok {
			return
		}
		// A word's files are its live postings: a file indexed again
		// (changed, or an editor's buffer in its place) leaves a dead one,
		// which must not count — past the live files, idf turns negative
		// and a word found only there is found nowhere.
		df := 0
		for _, p := range ix.postings[tid] {
			if ix.Docs[p.doc].Path != "" {
				df++
			}
		}
		weights[t] = ix.idf(df)
		tids = append(tids, tid)
	})
	if len(tids) == 0 || ix.live == 0 {
		return nil, weights
	}
	avg := float64(ix.totalLen) / float64(ix.live)
	// Scores are dense, one a document: a common word's postings cover
	// most of them, and adding into a slice is many times faster than
	// into a map (100k files: 360 ms to a few).
	scores := make([]float32, len(ix.Docs))
	for _, tid := range tids {
		idf := weights[ix.Terms[tid]]
		for _, p := range ix.postings[tid] {
			d := &ix.Docs[p.doc]
			if d.Path == "" {
				continue
			}
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(d.Len)/avg)
			scores[p.doc] += float32(idf * tf * (bm25K1 + 1) / (tf + norm))
		}
	}
	// The k best, kept sorted best first (ties by path) as scores are
	// scanned: k is small, so an insertion costs little and most
	// documents are rejected by one comparison with the worst kept.
	better := func(a, b hit) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Path < b.Path
	}
	top := make([]hit, 0, k+1)
	for id, sc := range scores {
		if sc <= 0 {
			continue
		}
		h := hit{Path: ix.Docs[id].Path, Score: float64(sc)}
		if len(top) == k && !better(h, top[k-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return better(h, top[i]) })
		top = append(top, hit{})
		copy(top[i+1:], top[i:])
		top[i] = h
		if len(top) > k {
			top = top[:k]
		}
	}
	return top, weights
}

// tokenize calls emit with the words of text, lowercased: every run of
// letters, digits and underscores of 2 to 64 bytes, and, when it has
// several, its parts split at underscores, lower-to-upper case changes and
// letter-digit changes (parseConfig: parseconfig, parse, config), so a
// question in words finds identifiers. The bytes emit is given are reused
// after it returns (a caller keeping one makes a string of it).
func tokenize(text []byte, emit func([]byte)) {
	var tk tokenizer
	tk.run(text, emit)
}

// A tokenizer keeps its buffers across words, so that tokenizing a file
// allocates only for the words the caller keeps.
type tokenizer struct {
	word    []rune
	lower   []byte
	offsets []int // offsets[i]: where word[i] starts in lower
}

func (tk *tokenizer) run(text []byte, emit func([]byte)) {
	tk.word = tk.word[:0]
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		i += size
		if r == '_' || r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			tk.word = append(tk.word, r)
			continue
		}
		if len(tk.word) > 0 {
			tk.emitWord(emit)
			tk.word = tk.word[:0]
		}
	}
	if len(tk.word) > 0 {
		tk.emitWord(emit)
	}
}

func (tk *tokenizer) emitWord(emit func([]byte)) {
	word := tk.word
	tk.lower, tk.offsets = tk.lower[:0], tk.offsets[:0]
	for _, r := range word {
		tk.offsets = append(tk.offsets, len(tk.lower))
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			tk.lower = append(tk.lower, byte(r))
		} else {
			tk.lower = utf8.AppendRune(tk.lower, unicode.ToLower(r))
		}
	}
	tk.offsets = append(tk.offsets, len(tk.lower))
	whole := bytes.Trim(tk.lower, "_")
	if len(whole) < 2 || len(whole) > 64 {
		return
	}
	emit(whole)
	start := 0
	for i := 1; i <= len(word); i++ {
		if i < len(word) && !isBoundary(word[i-1], word[i], i+1 < len(word) && unicode.IsLower(word[i+1])) {
			continue
		}
		if part := bytes.Trim(tk.lower[tk.offsets[start]:tk.offsets[i]], "_"); len(part) >= 2 && len(part) != len(whole) {
			emit(part)
		}
		start = i
	}
}

// isBoundary reports whether a word's part ends between prev and next:
// at an underscore, a lower-to-upper change (parseConfig), the last upper
// of an acronym before a lower (HTTPServer: HTTP Server), or a change
// between letters and digits.
func isBoundary(prev, next rune, nextNextLower bool) bool {
	switch {
	case prev == '_' || next == '_':
		return true
	case unicode.IsLower(prev) && unicode.IsUpper(next):
		return true
	case unicode.IsUpper(prev) && unicode.IsUpper(next) && nextNextLower:
		return true
	case unicode.IsDigit(prev) != unicode.IsDigit(next):
		return true
	}
	return false
}

// indexFile is where a workspace's index is saved in its state folder.
func indexFile(dir string) string { return filepath.Join(dir, "index.gob") }

// save writes the index to dir atomically (a temporary file renamed over
// the old), so a reader, or another agentls, never sees half of one.
func (ix *Index) save(dir string) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(ix); err != nil {
		return fmt.Errorf("encode the index: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "index-*.tmp")
	if err != nil {
		return fmt.Errorf("save the index: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("save the index to %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save the index to %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), indexFile(dir)); err != nil {
		return fmt.Errorf("save the index: %w", err)
	}
	return nil
}

// loadIndex reads the index saved in dir: nil and no error when there is
// none, or it is of another version or unreadable (it is rebuilt then: the
// index is a cache).
func loadIndex(dir string) (*Index, error) {
	data, err := os.ReadFile(indexFile(dir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load the index: %w", err)
	}
	ix := newIndex()
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(ix); err != nil || ix.Version != indexVersion {
		return nil, nil
	}
	for _, d := range ix.Docs {
		if len(d.TermIDs) != len(d.Freqs) {
			return nil, nil
		}
		for _, t := range d.TermIDs {
			if int(t) >= len(ix.Terms) {
				return nil, nil
			}
		}
	}
	ix.rebuild()
	return ix, nil
}
