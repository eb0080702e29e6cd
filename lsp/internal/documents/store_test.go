package documents

import (
	"context"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

func at(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

// TestApply: a didChange is taken whole, refused whole when its version
// does not increase or the buffer is not open, and followed is told what
// each change did, in order.
func TestApply(t *testing.T) {
	const u = protocol.DocumentURI("file:///w/a.go")
	tests := []struct {
		name     string
		version  int32
		changes  []ContentChange
		wantErr  bool
		wantText string
		want     []Change // Before and After left out
	}{
		{"an insert", 2, []ContentChange{{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: "x\n"}}, false, "a\nx\nb\n", []Change{{First: 1, Last: 1, Text: "x\n"}}},
		{"two changes in order", 2, []ContentChange{
			{Range: &protocol.Range{Start: at(0, 0), End: at(0, 1)}, Text: "A"},
			{Range: &protocol.Range{Start: at(1, 0), End: at(2, 0)}},
		}, false, "A\n", []Change{{First: 0, Last: 0, Text: "A"}, {First: 1, Last: 2}}},
		{"a whole text", 2, []ContentChange{{Text: "new\n"}}, false, "new\n", []Change{{Text: "new\n", Whole: true}}},
		{"a version that does not increase", 1, []ContentChange{{Text: "new\n"}}, true, "a\nb\n", nil},
		{"a range past the end", 2, []ContentChange{{Range: &protocol.Range{Start: at(9, 0), End: at(9, 0)}, Text: "x"}}, true, "a\nb\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := New()
			ds.Open(Document{URI: u, Path: "/w/a.go", Version: 1, Buf: edits.NewBuffer("a\nb\n")})
			var got []Change
			var prev int32
			err := ds.Apply(7, u, tt.version, tt.changes, edits.UTF16, func(d Document, p int32, cs []Change) {
				prev, got = p, cs
				if d.Version != tt.version {
					t.Errorf("followed with version %d, want %d", d.Version, tt.version)
				}
			})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Apply: %v, want an error: %v", err, tt.wantErr)
			}
			d, _ := ds.Get(u)
			if d.Text() != tt.wantText {
				t.Errorf("text %q, want %q", d.Text(), tt.wantText)
			}
			if tt.wantErr {
				if got != nil {
					t.Error("followed was told of a change refused")
				}
				return
			}
			if prev != 1 || len(got) != len(tt.want) {
				t.Fatalf("followed with prev %d and %d changes, want 1 and %d", prev, len(got), len(tt.want))
			}
			for i, c := range got {
				if c.Before == nil || c.After == nil {
					t.Errorf("change %d: no buffers before and after", i)
				}
				c.Before, c.After = nil, nil
				if c != tt.want[i] {
					t.Errorf("change %d: %+v, want %+v", i, c, tt.want[i])
				}
			}
		})
	}
}

// TestOpenClose: a buffer is found by URI and by file while open; one
// that is no file is kept but not listed among the files; reopening a URI
// replaces it.
func TestOpenClose(t *testing.T) {
	ds := New()
	ds.Open(Document{URI: "file:///w/a.go", Path: "/w/a.go", Version: 0, Buf: edits.NewBuffer("a")})
	ds.Open(Document{URI: "untitled:Untitled-1", Buf: edits.NewBuffer("reply")})
	if d, ok := ds.ByFile("/w/a.go"); !ok || d.Version != 0 || d.Text() != "a" {
		t.Errorf("ByFile: %+v, %v", d, ok)
	}
	if _, ok := ds.Get("untitled:Untitled-1"); !ok {
		t.Error("a buffer that is no file was not kept")
	}
	if files := ds.Files(); len(files) != 1 || files[0].Path != "/w/a.go" {
		t.Errorf("Files: %+v, want a.go alone", files)
	}
	ds.Open(Document{URI: "file:///w/a.go", Path: "/w/a.go", Version: 3, Buf: edits.NewBuffer("b")})
	if d, _ := ds.ByFile("/w/a.go"); d.Version != 3 {
		t.Errorf("reopened at version %d, want 3", d.Version)
	}
	ds.Close("file:///w/a.go")
	if _, ok := ds.ByFile("/w/a.go"); ok {
		t.Error("a closed buffer is still found by its file")
	}
	if _, ok := ds.Get("file:///w/a.go"); ok {
		t.Error("a closed buffer is still found by its URI")
	}
}

// TestWaitVersionsPast: the wait ends when the buffers move past the
// versions (all, or with anyOne the first), when one is closed, or at
// the timeout when none moves.
func TestWaitVersionsPast(t *testing.T) {
	ds := New()
	for _, f := range []string{"a", "b"} {
		ds.Open(Document{URI: protocol.DocumentURI("file:///w/" + f), Path: "/w/" + f, Version: 1, Buf: edits.NewBuffer("")})
	}
	files := map[string]int32{"/w/a": 1, "/w/b": 1}
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		ds.WaitVersionsPast(ctx, files, true, time.Minute)
	}()
	if err := ds.Apply(1, "file:///w/a", 2, []ContentChange{{Text: "x"}}, edits.UTF8, func(Document, int32, []Change) {}); err != nil {
		t.Fatal(err)
	}
	<-done // anyOne: a's change ends it

	done = make(chan struct{})
	files = map[string]int32{"/w/a": 2, "/w/b": 1}
	go func() {
		defer close(done)
		ds.WaitVersionsPast(ctx, files, false, time.Minute)
	}()
	if err := ds.Apply(2, "file:///w/a", 3, []ContentChange{{Text: "y"}}, edits.UTF8, func(Document, int32, []Change) {}); err != nil {
		t.Fatal(err)
	}
	ds.Close("file:///w/b") // all: b closing is b moving
	<-done

	start := time.Now()
	ds.WaitVersionsPast(ctx, map[string]int32{"/w/a": 3}, false, time.Millisecond)
	if time.Since(start) > 30*time.Second {
		t.Error("the wait outlived its timeout")
	}
}

// TestWatchKeepsEchoes: a watch keeps each state a watched buffer goes
// through, numbered by the message that made it, and EchoAt picks the
// last up to a mark.
func TestWatchKeepsEchoes(t *testing.T) {
	ds := New()
	const u = protocol.DocumentURI("file:///w/a")
	ds.Open(Document{URI: u, Path: "/w/a", Version: 1, Buf: edits.NewBuffer("0")})
	w := ds.Watch(map[string]int32{"/w/a": 1, "/w/closed": 1})
	for seq, text := range []string{"", "one", "two"} {
		if seq == 0 {
			continue
		}
		if err := ds.Apply(uint64(seq*10), u, int32(1+seq), []ContentChange{{Text: text}}, edits.UTF8, func(Document, int32, []Change) {}); err != nil {
			t.Fatal(err)
		}
	}
	ds.Unwatch(w)
	if err := ds.Apply(30, u, 9, []ContentChange{{Text: "after"}}, edits.UTF8, func(Document, int32, []Change) {}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mark    uint64
		version int32
		text    string
	}{{0, 1, "0"}, {9, 1, "0"}, {10, 2, "one"}, {25, 3, "two"}, {99, 3, "two"}} {
		st, ok := ds.EchoAt(w, "/w/a", tt.mark)
		if !ok || st.Version != tt.version || st.Buf.Text() != tt.text {
			t.Errorf("EchoAt(%d) = %d %q, %v; want %d %q", tt.mark, st.Version, st.Buf.Text(), ok, tt.version, tt.text)
		}
	}
	if _, ok := ds.EchoAt(w, "/w/closed", 99); ok {
		t.Error("a state for a file that was not open")
	}
}
