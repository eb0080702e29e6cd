package edits

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExactPatchEven times the patch tool's exact path as editbench
// peers' patch row does, three ways: building a new string for the result
// (ApplyHunks), writing it into a buffer kept from call to call
// (ApplyHunksTo), and only resolving the edits (ResolveHunks, what the
// server sends). The mean per call (ns/op) includes the garbage
// collector's work, which a new string per call makes proportional to the
// file.
func BenchmarkExactPatchEven(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20, 10 << 20} {
		f := realisticGo(size)
		exact, _, _, _ := realisticPatches(f)
		hunks, err := ParseConflict(exact)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("string/"+sizeLabel(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				hs, _ := ParseConflict(exact)
				if _, err := ApplyHunks(f, hs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("reused/"+sizeLabel(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(f)))
			var buf []byte
			for b.Loop() {
				hs, _ := ParseConflict(exact)
				if buf, err = ApplyHunksTo(buf[:0], f, hs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("edits/"+sizeLabel(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				if _, err := ResolveHunks(f, hunks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPatchToDisk is the disk half of the patch tool's path as
// editbench peers' patch-disk row times it: an exact patch's edits
// recorded in a Changeset (Edit), then ApplyToDisk (read the file again
// and compare, temporary file, write, rename). The file is put back
// between calls, untimed. "sync" adds an fsync before the rename, to show
// what it would cost (ApplyToDisk does not sync, as gptme's patch tool,
// which writes the file in place, does not).
func BenchmarkPatchToDisk(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20, 10 << 20} {
		f := realisticGo(size)
		exact, _, _, _ := realisticPatches(f)
		hunks, err := ParseConflict(exact)
		if err != nil {
			b.Fatal(err)
		}
		for _, sync := range []bool{false, true} {
			name := sizeLabel(size)
			if sync {
				name = "sync/" + name
			}
			b.Run(name, func(b *testing.B) { benchPatchToDisk(b, f, hunks, diskOptions{sync: sync}) })
		}
	}
}

func benchPatchToDisk(b *testing.B, f string, hunks []Hunk, opts diskOptions) {
	root := b.TempDir()
	path := filepath.Join(root, "f.go")
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, []byte(f), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		es, err := ResolveHunks(f, hunks)
		if err != nil {
			b.Fatal(err)
		}
		var cs Changeset
		if err := cs.Edit("f.go", f, true, NotOpen, es); err != nil {
			b.Fatal(err)
		}
		if err := applyToDisk(root, &cs, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTypedPatch is the server's first patch after a keystroke on an
// open buffer: the buffer changed by one character (a new version, whose
// text is not joined yet), then an exact hunk resolved. "join" joins the
// text and resolves it (what the server did through its Source before it
// handed the edit tools its buffers); "chunks" resolves on the buffer
// (Buffer.ResolveHunks), which joins nothing on the exact path and
// searches only the chunks whose line filter may hold the hunk's longest
// line: what the server's patch does now (lsp's
// BenchmarkPatchOpenBuffer/.../typed). "open" is NewBuffer, where the
// filters are made.
func BenchmarkTypedPatch(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		f := realisticGo(size)
		exact, _, _, _ := realisticPatches(f)
		hunks, err := ParseConflict(exact)
		if err != nil {
			b.Fatal(err)
		}
		// What opening the document costs: its chunks, their line
		// indexes and line filters.
		b.Run("open/"+sizeLabel(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				NewBuffer(f)
			}
		})
		open := NewBuffer(f)
		for _, mode := range []string{"join", "chunks"} {
			b.Run(mode+"/"+sizeLabel(size), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					typed, err := open.Replace(0, 0, "x")
					if err != nil {
						b.Fatal(err)
					}
					if mode == "join" {
						_, err = ResolveHunks(typed.Text(), hunks)
					} else {
						_, err = typed.ResolveHunks(hunks)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
