package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/review"
)

// publishCounter is a client that takes notifications and counts the
// diagnostics published.
type publishCounter struct {
	jsonrpc2.Conn
	mu        sync.Mutex
	published int
	last      map[protocol.DocumentURI][]protocol.Diagnostic
}

func (c *publishCounter) Notify(_ context.Context, method string, params any) error {
	if method != protocol.MethodTextDocumentPublishDiagnostics {
		return nil
	}
	p := params.(*protocol.PublishDiagnosticsParams)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.published++
	if c.last == nil {
		c.last = map[protocol.DocumentURI][]protocol.Diagnostic{}
	}
	c.last[p.URI] = p.Diagnostics
	return nil
}

func (c *publishCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.published
}

// reviewServer is a server initialized on a temporary workspace holding
// one open document, big.go, with text (not on disk), and a client that
// counts what is published.
func reviewServer(t testing.TB, text string) (*Server, *publishCounter, protocol.DocumentURI) {
	t.Helper()
	home := t.TempDir() // the settings and state folders
	s := newServer(Options{Getenv: func(key string) string {
		if key == "HOME" || key == "XDG_CONFIG_HOME" || key == "XDG_STATE_HOME" {
			return home
		}
		return ""
	}})
	conn := &publishCounter{}
	s.conn, s.ctx = conn, context.Background()
	root := cleanFile(t.TempDir())
	if _, err := s.initialize(context.Background(), &initializeParams{RootURI: protocol.DocumentURI(uri.File(root))}); err != nil {
		t.Fatal(err)
	}
	u := protocol.DocumentURI(uri.File(filepath.Join(root, "big.go")))
	s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	return s, conn, u
}

// numbered is a Go file of n distinct lines.
func numbered(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func f%d() int { return %d }\n", i, i)
	}
	return b.String()
}

// withChanges changes hunks lines of numbered(lines), evenly spread.
func withChanges(text string, lines, hunks int) string {
	for i := range hunks {
		n := (i*lines/hunks + lines/(2*hunks)) % lines
		line := fmt.Sprintf("func f%d() int { return %d }\n", n, n)
		text = strings.Replace(text, line, fmt.Sprintf("func f%d() int { return %d + 1 }\n", n, n), 1)
	}
	return text
}

// BenchmarkDidChangeReview measures one keystroke in a document with 100
// pending review hunks, in documents of growing size, including the
// diagnostics it republishes (the background work is waited for): a
// character typed and deleted on a line between hunks ("char"), and a
// line break typed and deleted above every hunk, which moves them all
// ("newline"). Neither should grow with the document. "whole-text" is the
// character sent as the whole new text (editors without incremental
// sync): that costs the document's size, in the copy and the diff.
func BenchmarkDidChangeReview(b *testing.B) {
	const hunks = 100
	for _, kind := range []string{"char", "newline", "whole-text"} {
		for _, lines := range []int{1_000, 10_000, 50_000} {
			b.Run(fmt.Sprintf("%s/%dlines", kind, lines), func(b *testing.B) {
				text := numbered(lines)
				s, _, u := reviewServer(b, text)
				if n := s.pendingView.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", text, 0, withChanges(text, lines, hunks))}); n != hunks {
					b.Fatalf("queued %d hunks, want %d", n, hunks)
				}
				s.wg.Wait()
				// Line 1 is the blank line after the package clause: above
				// every hunk, in none.
				key, insert := "x", protocol.Range{Start: at(1, 0), End: at(1, 0)}
				remove := protocol.Range{Start: at(1, 0), End: at(1, 1)}
				if kind == "newline" {
					key, remove.End = "\n", at(2, 0)
				}
				typedText := strings.Replace(text, "\n\n", "\nx\n", 1)
				v := int32(1)
				for b.Loop() {
					v++
					change := documents.ContentChange{Range: &insert, Text: key}
					if v%2 == 1 {
						change = documents.ContentChange{Range: &remove}
					}
					if kind == "whole-text" {
						change = documents.ContentChange{Text: typedText}
						if v%2 == 1 {
							change.Text = text
						}
					}
					s.didChange(context.Background(), &didChangeParams{
						TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
						ContentChanges: []documents.ContentChange{change},
					})
					s.wg.Wait()
				}
			})
		}
	}
}

// TestReviewKeystrokes: through the server (no pipe), a keystroke that
// moves no pending hunk publishes nothing (the server republished the
// whole file's review on every keystroke, resolving each hunk on the whole
// document); one that moves them or breaks one publishes where they are
// now, and the code actions at their new lines offer them. A document
// opened after its hunks were queued has them placed on its text.
func TestReviewKeystrokes(t *testing.T) {
	base := "package p\n\nfunc a() {}\nvar x = 1\nfunc b() {}\n\nfunc c() {}\nvar y = 2\nfunc d() {}\n"
	agent := strings.Replace(strings.Replace(base, "var x = 1", "var x = 10", 1), "var y = 2", "var y = 20", 1)
	s, conn, u := reviewServer(t, base)
	if n := s.pendingView.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", base, 0, agent)}); n != 2 {
		t.Fatalf("queued %d hunks, want 2", n)
	}
	s.wg.Wait()
	steps := []struct {
		name      string
		change    documents.ContentChange
		republish bool
		want      []where // the pending diagnostics after it
	}{
		{"a character on a blank line above", documents.ContentChange{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: " "}, false, []where{{3, 3, false}, {7, 7, false}}},
		{"a character at the end of the last line", documents.ContentChange{Range: &protocol.Range{Start: at(8, 11), End: at(8, 11)}, Text: " "}, false, []where{{3, 3, false}, {7, 7, false}}},
		{"a line break above", documents.ContentChange{Range: &protocol.Range{Start: at(1, 1), End: at(1, 1)}, Text: "\n"}, true, []where{{4, 4, false}, {8, 8, false}}},
		{"a character in the first hunk's line", documents.ContentChange{Range: &protocol.Range{Start: at(4, 0), End: at(4, 0)}, Text: "/"}, true, []where{{conflict: true}, {8, 8, false}}},
		{"another in it", documents.ContentChange{Range: &protocol.Range{Start: at(4, 0), End: at(4, 0)}, Text: "/"}, false, []where{{conflict: true}, {8, 8, false}}},
		{"both taken back", documents.ContentChange{Range: &protocol.Range{Start: at(4, 0), End: at(4, 2)}}, true, []where{{4, 4, false}, {8, 8, false}}},
	}
	for i, st := range steps {
		before := conn.count()
		s.didChange(context.Background(), &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: int32(2 + i)},
			ContentChanges: []documents.ContentChange{st.change},
		})
		s.wg.Wait()
		if republished := conn.count() > before; republished != st.republish {
			t.Errorf("%s: republished = %v, want %v", st.name, republished, st.republish)
		}
		conn.mu.Lock()
		diags := conn.last[s.session().fileURI("big.go")]
		conn.mu.Unlock()
		var got []where
		for _, d := range diags {
			if d.Severity == protocol.DiagnosticSeverityWarning {
				got = append(got, where{conflict: true})
			} else {
				got = append(got, where{int(d.Range.Start.Line), int(d.Range.End.Line), false})
			}
		}
		if !slices.Equal(got, st.want) {
			t.Errorf("%s: diagnostics at %v, want %v", st.name, got, st.want)
		}
		d, _ := s.docs.Get(u)
		for id, w := range st.want {
			if w.conflict {
				continue
			}
			if acts := s.pendingView.actions(s.ctx, d, protocol.Range{Start: at(w.first, 0), End: at(w.first, 0)}); !hasAction(acts, fmt.Sprintf("Accept agent edit %d", id+1)) {
				t.Errorf("%s: no accept action for edit %d on line %d", st.name, id+1, w.first)
			}
		}
	}

	// Closed and opened again with the user's edit above: the hunks are
	// placed on the text it was opened with.
	d, _ := s.docs.Get(u)
	s.didClose(context.Background(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 0, Text: "// moved\n" + d.Text()}})
	reopened, _ := s.docs.Get(u)
	if acts := s.pendingView.actions(s.ctx, reopened, protocol.Range{Start: at(9, 0), End: at(9, 0)}); !hasAction(acts, "Accept agent edit 2") {
		t.Errorf("after reopening, no accept action for edit 2 on line 9: %v", acts)
	}
	if acts := s.pendingView.actions(s.ctx, d, protocol.Range{Start: at(8, 0), End: at(8, 0)}); !hasAction(acts, "Reject all agent edits") {
		t.Errorf("a copy of the closed buffer got no review actions: %v", acts)
	}
}

func hasAction(actions []protocol.CodeAction, title string) bool {
	return slices.ContainsFunc(actions, func(a protocol.CodeAction) bool { return a.Title == title })
}

// BenchmarkReviewActions measures the review code actions for a range of
// a few lines in the server alone (no pipe, no JSON), with 100 pending
// hunks, in documents of growing size: the line index answers in a binary
// search, so it should not grow with the document. It reports the p99
// latency too.
func BenchmarkReviewActions(b *testing.B) {
	const hunks = 100
	for _, lines := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("%dlines", lines), func(b *testing.B) {
			text := numbered(lines)
			s, _, u := reviewServer(b, text)
			s.pendingView.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", text, 0, withChanges(text, lines, hunks))})
			s.wg.Wait()
			d, _ := s.docs.Get(u)
			middle := 2 + hunks/2*lines/hunks + lines/(2*hunks) // the line of the middle hunk
			r := protocol.Range{Start: at(middle-2, 0), End: at(middle+2, 0)}
			if n := len(s.pendingView.actions(s.ctx, d, r)); n != 2+5 {
				b.Fatalf("%d review actions, want accept and reject for one hunk and 5 for the file and all", n)
			}
			lat := make([]time.Duration, 0, 1024)
			for b.Loop() {
				start := time.Now()
				s.pendingView.actions(s.ctx, d, r)
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}

// TestReviewConcurrent: keystrokes, code actions on copies of the
// document older than them, republishing and a hunk taken and put back
// (an accept that failed) all at once keep the store in step with the
// buffer: afterwards it holds what resolving every hunk on the whole text
// gives (run with -race).
func TestReviewConcurrent(t *testing.T) {
	const lines, hunks, keystrokes = 2_000, 20, 200
	text := numbered(lines)
	s, _, u := reviewServer(t, text)
	s.pendingView.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", text, 0, withChanges(text, lines, hunks))})
	s.wg.Wait()
	done := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			d, _ := s.docs.Get(u)
			s.pendingView.actions(s.ctx, d, protocol.Range{Start: at(lines/2, 0), End: at(lines/2+40, 0)})
			s.pendingView.diagnostics(context.Background(), "big.go")
		}
	}()
	go func() {
		defer readers.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			s.review.PutBack(s.review.Take(reviewArgs{Hunk: 3}.selector(s.session().relPathOfURI)))
		}
	}()
	for v := int32(2); v < 2+keystrokes; v++ {
		change := documents.ContentChange{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: "\n"}
		if v%2 == 1 {
			change = documents.ContentChange{Range: &protocol.Range{Start: at(int(v)%lines, 0), End: at(int(v)%lines, 0)}, Text: "// typed\n"}
		}
		s.didChange(context.Background(), &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []documents.ContentChange{change},
		})
	}
	close(done)
	readers.Wait()
	s.wg.Wait()
	d, _ := s.docs.Get(u)
	got := s.pendingView.placed(context.Background(), "big.go")
	if len(got) != hunks {
		t.Fatalf("%d hunks pending, want %d", len(got), hunks)
	}
	var all []*review.Pending
	for _, h := range got {
		all = append(all, h.Pending)
	}
	whole := review.PlaceAll(d.Buf, all, edits.UTF16) // the encoding without the client asking for another
	for _, h := range got {
		if whole[h.Pending] != h.Placement {
			t.Errorf("edit %d: the store has %+v, the whole text %+v", h.ID, h.Placement, whole[h.Pending])
		}
	}
}

func at(line, char int) protocol.Position {
	return protocol.Position{Line: uint32(line), Character: uint32(char)}
}

// where is a placed hunk as a test states it: its first and last line, or
// a conflict.
type where struct {
	first, last int
	conflict    bool
}
