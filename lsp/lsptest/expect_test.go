package lsptest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// editorWith is an editor with no server that has seen s: enough to check
// expectations and Await.
func editorWith(t *testing.T, s seen, opts ...Option) *Editor {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	return &Editor{t: t, Root: t.TempDir(), cfg: cfg, changed: make(chan struct{}), buffers: map[string]*buffer{"a.go": {version: 3, text: "package a\n"}}, seen: s}
}

func message(typ protocol.MessageType, text string) protocol.ShowMessageParams {
	return protocol.ShowMessageParams{Type: typ, Message: text}
}

// TestExpectations: each expectation is met by what it names and not by
// what merely looks like it — the near misses a test would otherwise
// pass on (words spread over two messages, the right code in the wrong
// file, the end of another progress, a refused edit for an applied one).
func TestExpectations(t *testing.T) {
	t.Parallel()
	applyBegin := ProgressEvent{Token: "1", Kind: "begin", Title: "agentls: apply reply"}
	tests := []struct {
		name string
		seen seen
		x    Expectation
		want verdict
	}{
		{"words in one message", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeWarning, "the editor refused the edit: 3 changes are kept as pending review")}},
			ShownMessage("refused", "pending review"), met},
		{"words spread over two messages", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeWarning, "the editor refused the edit"), message(protocol.MessageTypeInfo, "kept as pending review")}},
			ShownMessage("refused", "pending review"), unmet},
		{"the second of two", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "agentls: applied 1 edit")}},
			ShownMessages(2, "applied"), unmet},
		{"an information for an error", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "agentls: nothing applied")}},
			ShownMessageOfType(protocol.MessageTypeError, "nothing applied"), unmet},
		{"an error", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeError, "agentls: nothing applied: a.go is outside")}},
			ShownMessageOfType(protocol.MessageTypeError, "nothing applied"), met},
		{"no message while none", seen{}, NoShownMessage("no edits"), met},
		{"no message once shown", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeWarning, "agentls: reply has no edits to apply")}},
			NoShownMessage("no edits"), unmeetable},
		{"a request is no message", seen{requests: []answeredRequest{{params: protocol.ShowMessageRequestParams{Message: "run `touch made`?"}}}},
			ShownMessage("touch made"), unmet},
		{"a request", seen{requests: []answeredRequest{{params: protocol.ShowMessageRequestParams{Message: "run `touch made`?"}}}},
			ShownMessageRequest("touch made"), met},
		{"a log line", seen{logs: []string{"[job 3] started"}}, LoggedMessage("[job 3] started"), met},
		{"the code in another file", seen{diags: map[string][]protocol.Diagnostic{"b.go": {{Code: "pending-edit"}}}},
			Diagnostics(ForFile("a.go"), WithCode("pending-edit")), unmet},
		{"the code in the file", seen{diags: map[string][]protocol.Diagnostic{"a.go": {{Code: "pending-approval"}, {Code: "pending-edit", Message: "agent edit: rename"}}}},
			Diagnostics(ForFile("a.go"), WithCode("pending-edit"), WithMessage("rename")), met},
		{"every filter on one diagnostic", seen{diags: map[string][]protocol.Diagnostic{"a.go": {{Source: "agentls: go vet", Message: "x"}, {Source: "other", Message: "undefinedName", Range: protocol.Range{Start: protocol.Position{Line: 3}}}}}},
			Diagnostics(ForFile("a.go"), WithSource("agentls: go vet"), AtLine(3), WithMessage("undefinedName")), unmet},
		{"no diagnostics in a file with others elsewhere", seen{diags: map[string][]protocol.Diagnostic{"b.go": {{Code: "pending-edit"}}, "a.go": {}}},
			NoDiagnostics(ForFile("a.go")), met},
		{"diagnostics still shown", seen{diags: map[string][]protocol.Diagnostic{"a.go": {{Code: "pending-approval"}}}},
			NoDiagnostics(ForFile("a.go"), WithCode("pending-approval")), unmet},
		{"the end of another progress", seen{progress: []ProgressEvent{applyBegin, {Token: "2", Kind: "end"}}},
			CompletedWork("agentls: apply reply"), unmet},
		{"the end of its progress", seen{progress: []ProgressEvent{applyBegin, {Token: "1", Kind: "end", Message: "done"}}},
			CompletedWork("agentls: apply reply"), met},
		{"ended saying something else", seen{progress: []ProgressEvent{applyBegin, {Token: "1", Kind: "end", Message: "done"}}},
			CompletedWorkSaying("agentls: apply reply", "cancelled"), unmet},
		{"turn 12 is not turn 1", seen{progress: []ProgressEvent{{Token: "1", Kind: "begin", Title: "agentls: agent turn 12"}, {Token: "1", Kind: "end"}}},
			CompletedWork("agentls: agent turn 1"), unmet},
		{"begun", seen{progress: []ProgressEvent{applyBegin}}, StartedWork("agentls: apply reply"), met},
		{"a refused edit is not applied", seen{refused: []refusedEdit{{label: "agentls: accept 3 edits"}}},
			AppliedEdit("accept"), unmet},
		{"applied", seen{applied: []string{"agentls: accept 3 edits"}}, AppliedEdit("accept"), met},
		{"refused", seen{refused: []refusedEdit{{label: "agentls: apply reply (3 files)", reason: "the user declined"}}}, RefusedEdit("apply reply"), met},
		{"one edit of two", seen{applied: []string{"x"}}, AppliedEdits(2), unmet},
		{"held", seen{held: 1}, HeldEdits(1), met},
		{"cancelled", seen{}, CancelledRequests(1), unmet},
		{"the buffer's text", seen{}, BufferContent("a.go", "package a\n"), met},
		{"another text", seen{}, BufferContent("a.go", "package b\n"), unmet},
		{"a buffer not open", seen{}, BufferContent("b.go", ""), unmet},
		{"a file not written", seen{}, FileContent("a.go", "package a\n"), unmet},
		{"a file containing", seen{}, FileContaining("a.go", "package"), unmet},
		{"the buffer containing both", seen{}, BufferContaining("a.go", "package", "a\n"), met},
		{"the buffer containing one of two", seen{}, BufferContaining("a.go", "package", "func"), unmet},
		{"a buffer not open contains nothing", seen{}, BufferContaining("b.go", ""), unmet},
		{"the buffer without", seen{}, BufferNotContaining("a.go", "func", "import"), met},
		{"the buffer with one of them", seen{}, BufferNotContaining("a.go", "func", "package"), unmet},
		{"the buffer's end", seen{}, BufferEndingWith("a.go", "a\n"), met},
		{"the buffer's start is no end", seen{}, BufferEndingWith("a.go", "package"), unmet},
		{"one diagnostic of two", seen{diags: map[string][]protocol.Diagnostic{"a.go": {{Code: "pending-edit"}, {Code: "pending-edit"}}}},
			DiagnosticsCount(1, ForFile("a.go"), WithCode("pending-edit")), unmet},
		{"two diagnostics, one elsewhere", seen{diags: map[string][]protocol.Diagnostic{"a.go": {{Code: "pending-edit"}}, "b.go": {{Code: "pending-edit"}}}},
			DiagnosticsCount(1, ForFile("a.go"), WithCode("pending-edit")), met},
		{"no diagnostics counted", seen{}, DiagnosticsCount(0, ForFile("a.go")), met},
		{"no error while a warning", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeWarning, "agentls: the editor skipped a.go")}},
			NoShownMessageOfType(protocol.MessageTypeError), met},
		{"no error once one", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeError, "agentls: nothing applied")}},
			NoShownMessageOfType(protocol.MessageTypeError), unmeetable},
		{"no error with other words", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeError, "agentls: nothing applied")}},
			NoShownMessageOfType(protocol.MessageTypeError, "refused"), met},
		{"no file", seen{}, NoFile("c.go"), met},
		{"any of two hopeless", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "x y")}},
			AnyOf(NoShownMessage("x"), NoShownMessage("y")), unmeetable},
		{"all of, one unmet", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "x")}},
			AllOf(ShownMessage("x"), ShownMessage("y")), unmet},
		{"all of, one hopeless", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "x")}},
			AllOf(ShownMessage("y"), NoShownMessage("x")), unmeetable},
		{"all of", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "x y")}},
			AllOf(ShownMessage("x"), ShownMessage("y")), met},
		{"any of one met", seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "x")}},
			AnyOf(ShownMessage("y"), ShownMessage("x")), met},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := editorWith(t, tt.seen)
			if got, why := tt.x.check(e); got != tt.want {
				t.Errorf("%s: verdict %d (%s), want %d", tt.x, got, why, tt.want)
			}
		})
	}
}

func TestShownDocumentAndFile(t *testing.T) {
	t.Parallel()
	e := editorWith(t, seen{})
	e.seen.shown = []protocol.DocumentURI{protocol.DocumentURI(uri.File(filepath.Join(e.Root, "review.diff")))}
	if err := os.WriteFile(filepath.Join(e.Root, "c.go"), []byte("package c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, x := range []Expectation{ShownDocument("review.diff"), FileContent("c.go", "package c\n")} {
		if v, why := x.check(e); v != met {
			t.Errorf("%s: %d (%s)", x, v, why)
		}
	}
	if v, why := DocumentsShown(1).check(e); v != met {
		t.Errorf("DocumentsShown(1): %d (%s)", v, why)
	}
	if v, _ := DocumentsShown(2).check(e); v != unmet {
		t.Errorf("DocumentsShown(2) of one: %d", v)
	}
	if v, why := FileContaining("c.go", "package", "c").check(e); v != met {
		t.Errorf("FileContaining: %d (%s)", v, why)
	}
	if v, _ := NoFile("c.go").check(e); v != unmet {
		t.Errorf("NoFile of a file that exists: %d", v)
	}
}

// fakeT records the failure of an Await and ends its goroutine, as
// t.Fatalf does.
type fakeT struct {
	testing.TB
	failure string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// await runs e.Await(exps…) for an editor started in a fakeT and returns
// its failure ("": it returned).
func await(e *Editor, exps ...Expectation) string {
	f := &fakeT{}
	e.t = f
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Await(exps...)
	}()
	<-done
	return f.failure
}

// TestAwait: Await returns once every expectation is met, however late
// the event; it fails naming every expectation not met (and not the met
// ones) with what the editor saw; it fails at once on one that can no
// longer be met, and on a call with nothing to wait for.
func TestAwait(t *testing.T) {
	t.Parallel()
	t.Run("met by a later event", func(t *testing.T) {
		e := editorWith(t, seen{})
		go e.record(func(s *seen) {
			s.messages = append(s.messages, message(protocol.MessageTypeInfo, "agentls: applied 2 edits"))
		})
		if failure := await(e, ShownMessage("applied")); failure != "" {
			t.Fatal(failure)
		}
	})
	t.Run("names what is not met", func(t *testing.T) {
		// The timeout only bounds the wait for what never comes.
		e := editorWith(t, seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeInfo, "agentls: applied 2 edits")}}, AwaitTimeout(1))
		failure := await(e, ShownMessage("applied"), ShownMessage("undone"), Diagnostics(ForFile("a.go"), WithCode("pending-edit")))
		for _, want := range []string{`not met`, `a shown message with "undone" (0 so far)`, `a diagnostic in a.go, with code "pending-edit"`, "the editor saw", "[info] agentls: applied 2 edits", "a.go at version 3"} {
			if !strings.Contains(failure, want) {
				t.Errorf("the failure does not say %q:\n%s", want, failure)
			}
		}
		if strings.Contains(failure, `a shown message with "applied"`) {
			t.Errorf("the failure names a met expectation:\n%s", failure)
		}
	})
	t.Run("can no longer be met", func(t *testing.T) {
		e := editorWith(t, seen{messages: []protocol.ShowMessageParams{message(protocol.MessageTypeWarning, "agentls: reply has no edits to apply")}})
		failure := await(e, NoShownMessage("no edits"), ShownMessage("applied"))
		if !strings.Contains(failure, "can no longer be met") || !strings.Contains(failure, "shown: agentls: reply has no edits") {
			t.Errorf("failure:\n%s", failure)
		}
	})
	t.Run("nothing to wait for", func(t *testing.T) {
		e := editorWith(t, seen{})
		if failure := await(e); !strings.Contains(failure, "no expectations") {
			t.Errorf("failure: %s", failure)
		}
	})
}

// BenchmarkCheck measures one check of a typical Await (a message, a
// diagnostic, a progress end) against what a long session has seen: the
// check runs after every event, so it scans n events each time.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var s seen
			s.diags = map[string][]protocol.Diagnostic{}
			for i := range n {
				s.messages = append(s.messages, message(protocol.MessageTypeInfo, fmt.Sprintf("agentls: applied %d edits in a.go", i)))
				s.progress = append(s.progress, ProgressEvent{Token: fmt.Sprint(i), Kind: "begin", Title: "agentls: apply reply"})
				s.diags[fmt.Sprintf("f%d.go", i)] = []protocol.Diagnostic{{Code: "pending-edit", Message: "agent edit"}}
			}
			e := &Editor{Root: b.TempDir(), buffers: map[string]*buffer{}, seen: s}
			exps := []Expectation{ShownMessage("undone"), Diagnostics(ForFile("a.go"), WithCode("pending-edit")), CompletedWork("agentls: agent turn 1")}
			b.ResetTimer()
			for range b.N {
				if failures, _ := e.checkLocked(exps); len(failures) != 3 {
					b.Fatalf("%d failures", len(failures))
				}
			}
		})
	}
}
