package edits

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// resultMade reports whether c's Result is made (given whole, or made
// from its edits by a read).
func resultMade(c *FileChange) bool {
	return c.result == nil || c.result.whole || c.result.text != "" || c.result.size == 0
}

// A step is one tool call of a batch on the file "f": an edit of the
// file as the batch has it (es is given that text), a whole write, a
// removal, or a read.
type step struct {
	edit   func(cur string) []TextEdit
	write  *string
	remove bool
	read   bool
}

func editStep(es func(cur string) []TextEdit) step { return step{edit: es} }
func writeStep(text string) step                   { return step{write: &text} }

// replaceOnce is the edit replacing the first old in cur by new.
func replaceOnce(old, new string) func(cur string) []TextEdit {
	return func(cur string) []TextEdit {
		i := strings.Index(cur, old)
		if i < 0 {
			panic("no " + old + " in " + cur)
		}
		return []TextEdit{{Start: i, End: i + len(old), New: new}}
	}
}

// TestEditResultMadeOnRead is a batch's tool calls on one file, the edits
// of each recorded without the new text (Changeset.Edit), mixed with
// saves, removals and reads of the file in between, as a model chains
// them: each read, and the Result at the end, must be the text applying
// the calls one after the other makes, and the edits sent must turn Base
// into it — whichever call made the Result and whenever.
func TestEditResultMadeOnRead(t *testing.T) {
	base := "alpha\nbeta\ngamma\n"
	for _, tc := range []struct {
		name    string
		existed bool
		steps   []step
		action  Action
		// ofBase says the edits sent are the recorded ones, not a diff.
		ofBase bool
	}{
		{"one patch", true, []step{editStep(replaceOnce("beta", "BETA"))}, Modify, true},
		{"two patches", true, []step{editStep(replaceOnce("beta", "BETA")), editStep(replaceOnce("gamma", "GAMMA"))}, Modify, true},
		{"patch, read, patch over it", true, []step{editStep(replaceOnce("beta", "BETA")), {read: true}, editStep(replaceOnce("BETA\ng", "BETA!\nG"))}, Modify, true},
		{"a patch undone by the next", true, []step{editStep(replaceOnce("beta", "BETA")), editStep(replaceOnce("BETA", "beta"))}, Modify, true},
		{"save, then patch", true, []step{writeStep("one\ntwo\n"), editStep(replaceOnce("two", "TWO"))}, Modify, false},
		{"patch, then save", true, []step{editStep(replaceOnce("beta", "BETA")), writeStep("one\n")}, Modify, false},
		{"created by a save, then patched", false, []step{writeStep("v1\n"), editStep(replaceOnce("v1", "v2"))}, Create, false},
		{"created by an append", false, []step{editStep(func(string) []TextEdit { return []TextEdit{{0, 0, "new\n"}} })}, Create, false},
		{"removed, then appended to", true, []step{{remove: true}, editStep(func(string) []TextEdit { return []TextEdit{{0, 0, "again\n"}} })}, Modify, false},
		{"patched, removed", true, []step{editStep(replaceOnce("beta", "BETA")), {remove: true}}, Delete, false},
	} {
		// On a buffer: the file's base recorded as an editor's Buffer
		// (EditBuffer), which only an existing file can be.
		modes := []bool{false}
		if tc.existed {
			modes = append(modes, true)
		}
		for _, onBuffer := range modes {
			name := tc.name
			if onBuffer {
				name += " on a buffer"
			} else if tc.existed {
				name += " on text"
			}
			t.Run(name, func(t *testing.T) {
				var cs Changeset
				want, exists := base, tc.existed
				if !exists {
					want = ""
				}
				for i, s := range tc.steps {
					switch {
					case s.edit != nil:
						es := s.edit(want)
						var err error
						if onBuffer {
							err = cs.EditBuffer("f", NewBuffer(base), 3, es)
						} else {
							err = cs.Edit("f", base, tc.existed, 3, es)
						}
						if err != nil {
							t.Fatalf("step %d: %v", i+1, err)
						}
						want, exists = ApplyEdits(want, es), true
					case s.write != nil:
						cs.Write("f", base, tc.existed, 3, *s.write)
						want, exists = *s.write, true
					case s.remove:
						cs.Remove("f", base, 3)
						want, exists = "", false
					case s.read:
						if got, ok, _ := cs.Get("f"); got != want || !ok {
							t.Fatalf("step %d: read %q (exists %v), want %q", i+1, got, ok, want)
						}
					}
				}
				c := cs.Changes[0]
				if got, ok, _ := cs.Get("f"); got != want || ok != exists {
					t.Fatalf("the file reads %q (exists %v), want %q (exists %v)", got, ok, want, exists)
				}
				if c.Action != tc.action {
					t.Errorf("action %v, want %v", c.Action, tc.action)
				}
				if c.Action == Delete {
					return
				}
				if _, ok := c.recordedEdits(); ok != tc.ofBase {
					t.Errorf("edits recorded: %v, want %v", ok, tc.ofBase)
				}
				if out := ApplyEdits(c.Base(), c.TextEdits()); out != want {
					t.Errorf("the edits sent make %q, want %q", out, want)
				}
			})
		}
	}
}

// TestEditBufferLeavesBaseUnjoined: a change recorded on an editor's
// Buffer (EditBuffer) answers what sending it reads — whether it changes
// anything, its edits, which buffer it was made on — from the bytes its
// edits touch, across chunks too, without joining the buffer's text; its
// Base and Result, when read, are those of the text, and the edits turn
// one into the other.
func TestEditBufferLeavesBaseUnjoined(t *testing.T) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	text := sb.String()
	seam := strings.Index(text[chunkTarget:], "\n") + chunkTarget + 1 // the first chunk's end
	for _, tc := range []struct {
		name      string
		es        []TextEdit
		effective bool
	}{
		{"a longer line", []TextEdit{{5, 6, "10"}}, true},
		{"the same length, across a seam", []TextEdit{{seam - 3, seam + 6, strings.ToUpper(text[seam-3 : seam+6])}}, true},
		{"the same length, edits far apart", []TextEdit{{5, 6, "x"}, {len(text) - 3, len(text) - 2, "y"}}, true},
		{"edits that cancel out across a seam", []TextEdit{{seam - 2, seam + 1, text[seam-2 : seam+1]}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf, err := NewBuffer(text).Replace(0, 0, "") // a new version, not joined
			if err != nil {
				t.Fatal(err)
			}
			var cs Changeset
			if err := cs.EditBuffer("f", buf, 4, tc.es); err != nil {
				t.Fatal(err)
			}
			c := cs.Changes[0]
			if got := len(cs.Effective()) == 1; got != tc.effective {
				t.Errorf("effective: %v, want %v", got, tc.effective)
			}
			es := c.TextEdits()
			if buf.joined.text != "" || resultMade(c) || c.BaseBuffer() != buf || c.Version != 4 {
				t.Fatal("Effective or TextEdits joined the buffer or made the Result, or the change lost its buffer")
			}
			want := ApplyEdits(text, tc.es)
			if c.Base() != text || c.Result() != want || ApplyEdits(c.Base(), es) != want {
				t.Errorf("Base %.20q…, Result %.20q…, the edits make %.20q…, want %.20q…", c.Base(), c.Result(), ApplyEdits(c.Base(), es), want)
			}
			c.SetBase(c.Base()) // the same text: the edits still hold
			if _, ok := c.recordedEdits(); !ok && tc.effective {
				t.Error("the edits were dropped when the same base was set again")
			}
		})
	}
	var cs Changeset
	if err := cs.EditBuffer("f", NewBuffer(text), 1, []TextEdit{{0, len(text) + 1, ""}}); err == nil || len(cs.Changes) != 0 {
		t.Errorf("an edit past the end: %v, %d changes recorded", err, len(cs.Changes))
	}
}

// TestEditLeavesResultUnmade: what sending a patch to the editor reads of
// its change — whether it changes anything, its edits, its size — is
// answered from the edits, so the Result (a copy of the whole file) is
// not made on the way; the first read makes it.
func TestEditLeavesResultUnmade(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		es         []TextEdit
		effective  bool
	}{
		{"a longer line", "x := 1\n", []TextEdit{{5, 6, "10"}}, true},
		{"the same length, one byte changed", "x := 1\n", []TextEdit{{5, 6, "2"}}, true},
		{"edits that cancel out", "aa\n", []TextEdit{{0, 1, ""}, {2, 2, "a"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs Changeset
			if err := cs.Edit("f", tc.base, true, 1, tc.es); err != nil {
				t.Fatal(err)
			}
			c := cs.Changes[0]
			if got := len(cs.Effective()) == 1; got != tc.effective {
				t.Errorf("effective: %v, want %v", got, tc.effective)
			}
			es := c.TextEdits()
			if resultMade(c) {
				t.Fatal("Effective or TextEdits made the Result")
			}
			if want := ApplyEdits(tc.base, tc.es); c.Result() != want || ApplyEdits(c.Base(), es) != want {
				t.Errorf("Result %q, the edits make %q, want %q", c.Result(), ApplyEdits(c.Base(), es), want)
			}
		})
	}
}

// TestEditRefusesBadEdits is a tool handing Edit edits that cannot be
// applied: ApplyEdits makes "" of overlapping edits, so a Result made
// from them later would empty the file on disk or in the editor. They are
// refused when recorded, saying what is wrong, and the changeset is left
// as it was.
func TestEditRefusesBadEdits(t *testing.T) {
	base := "alpha\nbeta\ngamma\n"
	for _, tc := range []struct {
		name string
		es   []TextEdit
		want string
	}{
		{"overlapping", []TextEdit{{6, 10, "BE"}, {8, 10, "TA"}}, "must be sorted and not overlap"},
		{"out of order", []TextEdit{{12, 12, "x"}, {6, 10, "BETA"}}, "must be sorted and not overlap"},
		{"past the end", []TextEdit{{6, 99, "BETA"}}, "ends at 99, past the end of the text"},
		{"ending before it starts", []TextEdit{{10, 6, "BETA"}}, "ends (6) before it starts (10)"},
	} {
		for _, earlier := range []bool{false, true} {
			name := tc.name
			if earlier {
				name += ", after a first patch"
			}
			t.Run(name, func(t *testing.T) {
				var cs Changeset
				want := ""
				if earlier {
					if err := cs.Edit("f", base, true, 1, []TextEdit{{0, 0, "// x\n"}}); err != nil {
						t.Fatal(err)
					}
					want = cs.Changes[0].Result()
				}
				err := cs.Edit("f", base, true, 1, tc.es)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was recorded") {
					t.Fatalf("err = %v, want one saying %q and that nothing was recorded", err, tc.want)
				}
				switch {
				case !earlier && len(cs.Changes) != 0:
					t.Errorf("a refused edit recorded a change to %q", cs.Changes[0].Result())
				case earlier && cs.Changes[0].Result() != want:
					t.Errorf("a refused edit changed the file to %q, want %q", cs.Changes[0].Result(), want)
				}
			})
		}
	}
}

// TestEditedThenRebased is a change recorded by its edits whose Base is
// then set to another text before its Result was made (rebased onto the
// user's typing): the Result stays the text the edits made of the base
// they were resolved on — made from the new Base, it would be the edits
// at offsets of another text — and the edits sent are a diff of the two.
func TestEditedThenRebased(t *testing.T) {
	var cs Changeset
	base := "alpha\nbeta\ngamma\n"
	if err := cs.Edit("f", base, true, 1, []TextEdit{{6, 10, "BETA"}}); err != nil {
		t.Fatal(err)
	}
	c := cs.Changes[0]
	c.SetBase("typed\n" + base)
	const want = "alpha\nBETA\ngamma\n"
	if got := c.Result(); got != want {
		t.Fatalf("Result %q, want %q", got, want)
	}
	if out := ApplyEdits(c.Base(), c.TextEdits()); out != want {
		t.Errorf("the edits sent make %q, want %q", out, want)
	}
}

// TestResultMadeConcurrently is one change recorded by its edits, and a
// copy of it (a batch's trial copy), read from several goroutines at once
// (the echo check, the journal, review): the Result is made once and
// every reader gets it; run with -race.
func TestResultMadeConcurrently(t *testing.T) {
	base := strings.Repeat("line\n", 1000)
	var cs Changeset
	if err := cs.Edit("f", base, true, 1, []TextEdit{{5, 9, "LINE"}}); err != nil {
		t.Fatal(err)
	}
	c := cs.Changes[0]
	copied := *c
	want := "line\nLINE\n" + strings.Repeat("line\n", 998)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			change := c
			if i%2 == 1 {
				change = &copied
			}
			_ = change.TextEdits()
			got[i] = change.Result()
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("reader %d got %d bytes, not the edited text", i, len(g))
		}
	}
}

// TestCopyThenEditLeavesTheOriginal is a batch trying a multi-file tool on
// a copy of its changes (edittool's atomically) that patches a file the
// batch already changed, then fails: the original change must keep its
// result, so the copy's edit must not reach into what they share.
func TestCopyThenEditLeavesTheOriginal(t *testing.T) {
	var cs Changeset
	base := "alpha\nbeta\n"
	if err := cs.Edit("f", base, true, 1, []TextEdit{{0, 5, "ALPHA"}}); err != nil {
		t.Fatal(err)
	}
	orig := cs.Changes[0]
	copied := *orig
	trial := Changeset{Changes: []*FileChange{&copied}}
	if err := trial.Edit("f", base, true, 1, []TextEdit{{6, 10, "BETA"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := orig.Result(), "ALPHA\nbeta\n"; got != want {
		t.Errorf("the original reads %q after its copy was edited, want %q", got, want)
	}
	if got, want := copied.Result(), "ALPHA\nBETA\n"; got != want {
		t.Errorf("the copy reads %q, want %q", got, want)
	}
}

// BenchmarkChangeByEdits is a patch's change from being recorded to what
// sending it needs (Edit, Effective, TextEdits): the cost of the edits,
// flat in the file's size; "result" then makes the Result (after the
// send: the echo check, the journal), a copy of the file.
func BenchmarkChangeByEdits(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20, 10 << 20} {
		text := benchFile(size)
		es, err := ResolveHunks(text, []Hunk{middleHunk(text, -1)})
		if err != nil {
			b.Fatal(err)
		}
		for _, result := range []bool{false, true} {
			name := sizeLabel(size) + "/send"
			if result {
				name = sizeLabel(size) + "/result"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					var cs Changeset
					if err := cs.Edit("f.go", text, true, 1, es); err != nil {
						b.Fatal(err)
					}
					eff := cs.Effective()
					if len(eff) != 1 || len(eff[0].TextEdits()) != 1 {
						b.Fatalf("%d changes, want 1 with 1 edit", len(eff))
					}
					if result && len(eff[0].Result()) == len(text) {
						b.Fatal("the Result is the base's length")
					}
				}
			})
		}
	}
}
