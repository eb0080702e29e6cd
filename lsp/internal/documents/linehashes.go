package documents

import (
	"strings"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/position"
)

// Line hashes for the anchored tools: once view_anchored or patch_anchored
// has read an open buffer, the document keeps the xxh3 hash of each of its
// lines (an anchored.Index) and every change rehashes only the lines it
// touches, so anchoring the buffer again does not hash every line.
//
// LSP ends lines at "\n", "\r\n" and a lone "\r"; anchored only at "\n".
// Hashes are kept only for buffers without a lone "\r", where the two
// agree, so a change's LSP lines are anchored's lines.

// LineHashes returns a snapshot of the line hashes of the open buffer of
// file (Document.Path) at version, hashing it the first time; nil when
// the buffer is not open at that version.
func (ds *Store) LineHashes(file string, version int32) *anchored.Index {
	ds.mu.Lock()
	d, ok := ds.byPath[file]
	if !ok || d.Version != version {
		ds.mu.Unlock()
		return nil
	}
	if d.hashes != nil {
		defer ds.mu.Unlock()
		return d.hashes.Clone() // the document's own goes on changing
	}
	buf := d.Buf
	ds.mu.Unlock()
	// Hash outside the lock, then keep the index if the buffer is still
	// at that version.
	text := buf.Text()
	ix := anchored.NewTextIndex(text, anchored.Options{})
	if hasLoneCR(text) {
		return ix // used once, not kept
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d, ok := ds.byPath[file]; ok && d.Version == version && d.hashes == nil {
		d.hashes = ix.Clone()
	}
	return ix
}

// A lineChange is one change of a didChange: before's bytes [start, end),
// on LSP lines startLine..endLine, became text.
type lineChange struct {
	start, end         int
	startLine, endLine int
	text               string
}

// updateLineHashes brings ix from the text of before to that of after,
// which differ by the change c: only the lines from c's first to the end
// of its text are hashed again. It reports false if ix does not fit
// before, or the change leaves a lone "\r" (see above); ix must then be
// dropped.
func updateLineHashes(ix *anchored.Index, before, after *edits.Buffer, c lineChange) bool {
	if makesLoneCR(after, c.start, len(c.text)) {
		return false
	}
	oldLines, newLines := anchoredLines(before), anchoredLines(after)
	if ix.Len() != oldLines {
		return false
	}
	first := min(c.startLine, oldLines)
	unchangedAfter := max(0, oldLines-(c.endLine+1))
	removed, added := oldLines-first-unchangedAfter, newLines-first-unchangedAfter
	if removed < 0 || added < 0 {
		return false
	}
	contents, ok := lineContents(after, first, added)
	if !ok {
		return false
	}
	ix.Update(first, removed, contents)
	return true
}

// hasLoneCR reports whether text has a "\r" not followed by "\n".
func hasLoneCR(text string) bool {
	for i := strings.IndexByte(text, '\r'); i >= 0; {
		if i+1 == len(text) || text[i+1] != '\n' {
			return true
		}
		next := strings.IndexByte(text[i+1:], '\r')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// makesLoneCR reports whether a text of n bytes inserted at start in a
// buffer without a lone "\r" left one: in the text, or where it meets the
// buffer on either side.
func makesLoneCR(after *edits.Buffer, start, n int) bool {
	lo, hi := max(0, start-1), min(after.Len(), start+n+2)
	around, err := after.Slice(lo, hi)
	if err != nil {
		return true
	}
	if hi < after.Len() && strings.HasSuffix(around, "\r") {
		around = around[:len(around)-1] // followed by the buffer's own "\n"
	}
	return hasLoneCR(around)
}

// anchoredLines is the number of lines anchored counts in b: a text ending
// with a line break has no empty last line (LSP counts one), nor has a
// text of just a byte-order mark.
func anchoredLines(b *edits.Buffer) int {
	if text, _ := b.Slice(0, min(b.Len(), 4)); text == "" || text == "\ufeff" {
		return 0
	}
	n := b.Lines()
	if last, err := b.Slice(b.Len()-1, b.Len()); err == nil && last == "\n" {
		n--
	}
	return n
}

// lineContents returns the contents of lines first..first+n-1 of b, as
// anchored hashes them.
func lineContents(b *edits.Buffer, first, n int) ([]string, bool) {
	if n == 0 {
		return nil, true
	}
	start, end, err := position.New(b, edits.UTF8).LineOffsets(first, first+n-1)
	if err != nil {
		return nil, false
	}
	region, err := b.Slice(start, end)
	if err != nil {
		return nil, false
	}
	contents := anchored.LineContents(region, first == 0)
	return contents, len(contents) == n
}
