package edits

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// randomEdits returns sorted, non-overlapping edits of a text of size
// bytes: some empty, some inserting, some longer than pieceBuffer.
func randomEdits(r *rand.Rand, size, n int) []TextEdit {
	var es []TextEdit
	at := 0
	for range n {
		if at > size {
			break
		}
		start := at + r.IntN(size-at+1)
		end := start + r.IntN(size-start+1)/max(1, r.IntN(8))
		var repl string
		switch r.IntN(4) {
		case 0: // a deletion
		case 1:
			repl = strings.Repeat("N", pieceBuffer+r.IntN(100))
		default:
			repl = strings.Repeat("n", r.IntN(50))
		}
		es = append(es, TextEdit{Start: start, End: end, New: repl})
		at = end
	}
	return es
}

// TestWritePieces: what writePieces writes is what ApplyEdits makes, in
// a few writes: small pieces gathered, long ones written straight.
func TestWritePieces(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		size := []int{0, 1, 100, pieceBuffer - 1, pieceBuffer, 3 * pieceBuffer}[i%6] + r.IntN(10)
		text := strings.Repeat("abcdefghij\n", size/11+1)[:size]
		es := randomEdits(r, size, r.IntN(6))
		var w countingWriter
		if err := writePieces(&w, text, es); err != nil {
			t.Fatal(err)
		}
		if want := ApplyEdits(text, es); w.String() != want {
			t.Fatalf("size %d, edits %d: wrote %d bytes, want %d (ApplyEdits)", size, len(es), w.Len(), len(want))
		}
		if limit := 2*len(es) + 2; w.writes > limit {
			t.Errorf("size %d, %d edits: %d writes, want at most %d", size, len(es), w.writes, limit)
		}
	}
}

type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

func (w *countingWriter) WriteString(s string) (int, error) {
	w.writes++
	return w.Buffer.WriteString(s)
}

// TestReadsAs: the check that a file still has its base compares all of
// it, however the reads split it, a block at a time.
func TestReadsAs(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 3*readCompareBlock/16+5)
	changedLate := long[:len(long)-3] + "X" + long[len(long)-2:]
	for _, tc := range []struct {
		name, file, want string
		same             bool
	}{
		{"empty", "", "", true},
		{"equal", "a\nb\n", "a\nb\n", true},
		{"differs", "a\nB\n", "a\nb\n", false},
		{"shorter", "a\n", "a\nb\n", false},
		{"longer", "a\nb\nc\n", "a\nb\n", false},
		{"long, equal", long, long, true},
		{"long, differs in the last block", changedLate, long, false},
		{"long, one byte more", long + "x", long, false},
		{"long, one byte less", long[:len(long)-1], long, false},
	} {
		for _, rd := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"halves", iotest.HalfReader},
			{"data and EOF together", iotest.DataErrReader},
		} {
			got, err := readsAs(rd.wrap(strings.NewReader(tc.file)), tc.want)
			if err != nil || got != tc.same {
				t.Errorf("%s, %s: readsAs = %v, %v; want %v", tc.name, rd.name, got, err, tc.same)
			}
		}
	}
	if _, err := readsAs(iotest.ErrReader(errors.New("EIO")), "x"); err == nil {
		t.Error("a read error: no error")
	}
}

// TestApplyToDiskWritesEdits: a change recorded by its edits
// (Changeset.Edit) is written from them without its Result being made,
// and the file holds the Result; when a later file fails, it is put back
// as its Base.
func TestApplyToDiskWritesEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := strings.Repeat("line of text\n", 3*pieceBuffer/13)
	for i := range 20 {
		root := tree(t, map[string]string{"a.txt": base})
		es := randomEdits(r, len(base), 1+r.IntN(5))
		cs := &Changeset{}
		if err := cs.Edit("a.txt", base, true, NotOpen, es); err != nil {
			t.Fatal(err)
		}
		want := ApplyEdits(base, es)
		if want == base {
			continue
		}
		fail := i%2 == 1
		if fail {
			cs.Write("z.txt", "", false, NotOpen, "z\n")
		}
		err := applyToDisk(root, cs, diskOptions{beforeWrite: func(c *FileChange) error {
			if c.Path == "z.txt" {
				return errors.New("disk full")
			}
			return nil
		}})
		got, _ := os.ReadFile(filepath.Join(root, "a.txt"))
		switch {
		case fail && err == nil:
			t.Fatal("no error")
		case fail && string(got) != base:
			t.Errorf("%d: not put back: %d bytes, want the base's %d", i, len(got), len(base))
		case !fail && err != nil:
			t.Fatal(err)
		case !fail && string(got) != want:
			t.Errorf("%d: wrote %d bytes, want the result's %d", i, len(got), len(want))
		}
		if after := snapshot(t, root); len(after) != 1 {
			t.Errorf("%d: files left: %q", i, mapsKeys(after))
		}
	}
}

func mapsKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
