package edittool

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
)

// bufferSource is memSource with its files open as edits.Buffers, as the
// server's editor holds them (tools.BufferSource), counting the buffers
// it hands over.
type bufferSource struct {
	memSource
	bufs  map[string]*edits.Buffer
	reads int
}

func newBufferSource(files map[string]string) *bufferSource {
	s := &bufferSource{memSource: memSource(files), bufs: map[string]*edits.Buffer{}}
	for p, text := range files {
		// A keystroke typed and deleted: a Buffer of the same text whose
		// chunks were cut again, as after a user's edit.
		b, err := edits.NewBuffer(text).Replace(0, 0, "x")
		if err == nil {
			b, err = b.Replace(0, 1, "")
		}
		if err != nil {
			panic(err)
		}
		s.bufs[p] = b
	}
	return s
}

func (s *bufferSource) ReadBuffer(_ context.Context, p string) (*edits.Buffer, int32, bool) {
	b, ok := s.bufs[p]
	if ok {
		s.reads++
	}
	return b, 7, ok
}

// bigGo returns n numbered Go functions with a line of non-ASCII text in
// each: several chunks of an edits.Buffer.
func bigGo(n int) string {
	var sb strings.Builder
	sb.WriteString("package big\n\n")
	for i := range n {
		fmt.Fprintf(&sb, "// f%d grüßt 日本 😀 %d.\nfunc f%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i, i%7)
	}
	return sb.String()
}

// hunk is one conflict-marker hunk.
func hunk(orig, upd string) string {
	return "<<<<<<< ORIGINAL\n" + orig + "=======\n" + upd + ">>>>>>> UPDATED\n"
}

// linesAround returns the whole lines of text from n lines before the
// line holding byte off to n after it: hunks across the chunk seams of a
// Buffer (cut at the first line break past each 4 KB).
func linesAround(text string, off, n int) string {
	lines := strings.SplitAfter(text, "\n")
	at, line := 0, 0
	for line < len(lines) && at+len(lines[line]) <= off {
		at += len(lines[line])
		line++
	}
	return strings.Join(lines[max(0, line-n):min(len(lines), line+n+1)], "")
}

// TestPatchOnBufferSameAsText: patch and patch_many read an open file as
// its editor Buffer (tools.BufferSource) and resolve on its chunks, and
// give what they give on its text: the same message or error, and the
// same changes — base, version, result and the edits sent. A change made
// on the buffer keeps it (BaseBuffer), so its text is joined only when
// read.
func TestPatchOnBufferSameAsText(t *testing.T) {
	big := bigGo(600) // about 40 KB: ten chunks
	crlf := strings.ReplaceAll(big, "\n", "\r\n")
	seams := func(text string) string {
		var p strings.Builder
		for off := 4 << 10; off < len(text); off += 8 << 10 {
			orig := linesAround(text, off, 3)
			p.WriteString(hunk(orig, strings.ReplaceAll(orig, "return x", "return -x")))
		}
		return p.String()
	}
	f300 := "func f300(x int) int {\n\treturn x + 6\n}\n"
	files := map[string]string{
		"big.go":   big,
		"crlf.go":  crlf,
		"bom.go":   "\ufeff" + big,
		"small.go": "package small\n\nfunc S() int { return 1 }\n",
		"noeol.go": strings.TrimSuffix(big, "\n"),
	}
	tests := []struct {
		name string
		run  func(b *Batch) (string, error)
	}{
		{"one exact hunk in the middle", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk(f300, strings.Replace(f300, "x + 6", "x * 6", 1)))
		}},
		{"non-ASCII lines", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("// f42 grüßt 日本 😀 42.\n", "// f42 sagt 日本語 🙂 42.\n"))
		}},
		{"hunks across chunk seams", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", seams(big))
		}},
		{"the first and the last lines", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("package big\n", "package large\n")+hunk("func f599(x int) int {\n\treturn x + 4\n}\n\n", ""))
		}},
		{"the last line without a line break", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "noeol.go", hunk("func f599(x int) int {\n\treturn x + 4\n}\n", "func f599(x int) int {\n\treturn x\n}\n"))
		}},
		{"CRLF lines", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "crlf.go", hunk(f300, strings.Replace(f300, "x + 6", "x * 6", 1)))
		}},
		{"CRLF across seams", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "crlf.go", strings.ReplaceAll(seams(crlf), "\r\n", "\n"))
		}},
		{"a byte-order mark", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "bom.go", hunk("package big\n", "package large\n"))
		}},
		{"trailing spaces: a loose match", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("func f300(x int) int {  \n", "func f300(y int) int {\n"))
		}},
		{"no match", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("func f300(x int) int {\n\treturn x + 5\n}\n", "func f300() {}\n"))
		}},
		{"ambiguous", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("\treturn x + 6\n}\n", "\treturn x + 60\n}\n"))
		}},
		{"already applied", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("func f300(x int) int {\n", "func f300(x int) int {\n"))
		}},
		{"overlapping hunks", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk(f300, "")+hunk("\treturn x + 6\n}\n\n// f301 grüßt 日本 😀 301.\n", "\treturn 0\n}\n\n// f301.\n"))
		}},
		{"a placeholder", func(b *Batch) (string, error) {
			return b.Patch(context.Background(), "big.go", hunk("func f300(x int) int {\n\t// ...\n}\n", "func f300(x int) int {\n\t// ...\n}\n// more\n"))
		}},
		{"patch_many, a file twice and one not open", func(b *Batch) (string, error) {
			return b.patchMany(context.Background(), []filePatch{
				{"big.go", hunk(f300, strings.Replace(f300, "x + 6", "x * 6", 1))},
				{"small.go", hunk("func S() int { return 1 }\n", "func S() int { return 2 }\n")},
				{"big.go", hunk("func f300(x int) int {\n\treturn x * 6\n", "func f300(x int) int {\n\treturn x * 7\n")},
				{"disk.go", hunk("package disk\n", "package disk2\n")},
			})
		}},
		{"patch_many failing on its second file", func(b *Batch) (string, error) {
			return b.patchMany(context.Background(), []filePatch{
				{"big.go", hunk(f300, "")},
				{"small.go", hunk("not there\n", "x\n")},
			})
		}},
		{"patch after save in one batch", func(b *Batch) (string, error) {
			if _, err := b.Save(context.Background(), "small.go", "package small\n\nfunc S() int { return 3 }\n"); err != nil {
				return "", err
			}
			return b.Patch(context.Background(), "small.go", hunk("func S() int { return 3 }\n", "func S() int { return 4 }\n"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			onDisk := map[string]string{"disk.go": "package disk\n"}
			withDisk := func(m map[string]string) map[string]string {
				out := map[string]string{}
				for p, s := range m {
					out[p] = s
				}
				for p, s := range onDisk {
					out[p] = s
				}
				return out
			}
			text := &Batch{Root: "/ws", Source: memSource(withDisk(files))}
			src := newBufferSource(files)
			src.memSource = withDisk(files)
			buf := &Batch{Root: "/ws", Source: src}
			wantMsg, wantErr := tc.run(text)
			gotMsg, gotErr := tc.run(buf)
			if gotMsg != wantMsg || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("on the buffer: %q, %v\non the text:   %q, %v", gotMsg, gotErr, wantMsg, wantErr)
			}
			if fromBatch := tc.name == "patch after save in one batch"; src.reads == 0 != fromBatch {
				t.Errorf("%d buffers read", src.reads)
			}
			want, got := describeChanges(text.Changes), describeChanges(buf.Changes)
			if !slices.Equal(got, want) {
				t.Errorf("changes on the buffer:\n%s\non the text:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, c := range buf.Changes.Changes {
				if _, open := src.bufs[c.Path]; open && src.reads > 0 && c.BaseBuffer() == nil {
					t.Errorf("%s: its change does not keep the buffer it was made on", c.Path)
				}
			}
		})
	}
}

// describeChanges is what a changeset says of each file: everything a
// front-end reads of it.
func describeChanges(cs edits.Changeset) []string {
	var out []string
	for _, c := range cs.Effective() {
		out = append(out, fmt.Sprintf("%s %s v%d base %q result %q edits %+v", c.Path, c.Action, c.Version, c.Base(), c.Result(), c.TextEdits()))
	}
	return out
}

// TestPatchNotOpenReadsText: a BufferSource's file that is not open, or
// that the batch changed already, is read as text, as before.
func TestPatchNotOpenReadsText(t *testing.T) {
	src := newBufferSource(map[string]string{"open.go": "package open\n"})
	src.memSource = memSource{"open.go": "package open\n", "disk.go": "package disk\n"}
	b := &Batch{Root: "/ws", Source: src}
	if _, err := b.Patch(context.Background(), "disk.go", hunk("package disk\n", "package d\n")); err != nil {
		t.Fatal(err)
	}
	if src.reads != 0 || b.Changes.Changes[0].BaseBuffer() != nil {
		t.Errorf("a file not open was read as a buffer (%d reads)", src.reads)
	}
	if _, err := b.Patch(context.Background(), "open.go", hunk("package open\n", "package o\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Patch(context.Background(), "open.go", hunk("package o\n", "package p\n")); err != nil {
		t.Fatal(err)
	}
	if src.reads != 1 {
		t.Errorf("%d buffer reads, want 1: the second patch reads the batch's own change", src.reads)
	}
	if got := describeChanges(b.Changes); len(got) != 2 || !strings.Contains(got[1], `open.go modify v7 base "package open\n" result "package p\n"`) {
		t.Errorf("changes %q", got)
	}
}
