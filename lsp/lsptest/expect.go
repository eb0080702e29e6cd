package lsptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
)

// seen is what the editor has been sent and has done for the server, in
// order; expectations are checked against it (and the buffers) under
// Editor.mu, after every event.
type seen struct {
	messages  []protocol.ShowMessageParams
	requests  []answeredRequest
	logs      []string
	shown     []protocol.DocumentURI // documents the server asked to show
	progress  []ProgressEvent
	diags     map[string][]protocol.Diagnostic // by path relative to Root
	applied   []string                         // the labels of the workspace edits applied
	refused   []refusedEdit
	held      int // workspace/applyEdit requests left unanswered
	cancelled []json.RawMessage
}

type answeredRequest struct {
	params  protocol.ShowMessageRequestParams
	pressed string // "" when dismissed
}

type refusedEdit struct{ label, reason string }

// A verdict is where an expectation stands on what the editor has seen.
type verdict int

const (
	unmet      verdict = iota // not yet
	met                       // now (and Await returns once all are)
	unmeetable                // never, whatever comes: Await fails at once
)

// An Expectation is something the editor can see: a message, diagnostics,
// a finished progress, an applied edit, a buffer's text. Make them with
// ShownMessage, Diagnostics, CompletedWork…, and wait for them with
// Await.
type Expectation struct {
	description string
	// check runs with Editor.mu held; when not met, it may say what was
	// seen instead (the failure quotes it).
	check func(e *Editor) (verdict, string)
}

func (x Expectation) String() string { return x.description }

// DefaultAwaitTimeout is how long Await waits before failing the test.
const DefaultAwaitTimeout = 10 * time.Second

// Await waits until every expectation is met (they are checked under the
// editor's lock after every event it sees) and fails the test after
// DefaultAwaitTimeout (or AwaitTimeout), or at once when one can no
// longer be met, naming each expectation not met and what the editor saw.
//
// It fails the test the editor was started in: an editor belongs to one
// test (no test shares one with its subtests, which would have to fail
// from their own goroutine), so it takes no testing.TB.
func (e *Editor) Await(exps ...Expectation) {
	e.t.Helper()
	if len(exps) == 0 {
		e.t.Fatalf("lsptest: Await with no expectations waits for nothing: give what the editor should see (ShownMessage, Diagnostics…)")
	}
	wait := e.cfg.awaitTimeout
	if wait <= 0 {
		wait = DefaultAwaitTimeout
	}
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	for {
		e.mu.Lock()
		failures, hopeless := e.checkLocked(exps)
		ch := e.changed
		if len(failures) == 0 {
			e.mu.Unlock()
			return
		}
		if hopeless {
			report := e.reportLocked()
			e.mu.Unlock()
			e.t.Fatalf("lsptest: an expectation can no longer be met:\n%s\nthe editor saw:\n%s", strings.Join(failures, "\n"), report)
		}
		e.mu.Unlock()
		select {
		case <-ch:
		case <-timeout.C:
			// Once more: a file on disk changes without an event.
			e.mu.Lock()
			failures, _ = e.checkLocked(exps)
			report := e.reportLocked()
			e.mu.Unlock()
			if len(failures) == 0 {
				return
			}
			e.t.Fatalf("lsptest: after %s, not met:\n%s\nthe editor saw:\n%s", wait, strings.Join(failures, "\n"), report)
		}
	}
}

// checkLocked returns a line for each expectation not met, and whether
// one never will be.
func (e *Editor) checkLocked(exps []Expectation) (failures []string, hopeless bool) {
	for _, x := range exps {
		v, got := x.check(e)
		if v == met {
			continue
		}
		line := "  - " + x.description
		if got != "" {
			line += " (" + got + ")"
		}
		if v == unmeetable {
			line += " — can no longer be met"
			hopeless = true
		}
		failures = append(failures, line)
	}
	return failures, hopeless
}

// reportLocked is what the editor saw, for a failure.
func (e *Editor) reportLocked() string {
	var b strings.Builder
	section := func(title string, n int) {
		if n == 0 {
			fmt.Fprintf(&b, "  %s: none\n", title)
		} else {
			fmt.Fprintf(&b, "  %s:\n", title)
		}
	}
	s := &e.seen
	section("messages", len(s.messages))
	for _, m := range s.messages {
		fmt.Fprintf(&b, "    [%s] %s\n", m.Type, clip(m.Message))
	}
	section("message requests", len(s.requests))
	for _, r := range s.requests {
		var titles []string
		for _, a := range r.params.Actions {
			titles = append(titles, a.Title)
		}
		answer := "dismissed"
		if r.pressed != "" {
			answer = fmt.Sprintf("pressed %q", r.pressed)
		}
		fmt.Fprintf(&b, "    %s %q: %s\n", clip(r.params.Message), titles, answer)
	}
	section("diagnostics", len(s.diags))
	for _, path := range sortedKeys(s.diags) {
		fmt.Fprintf(&b, "    %s: %d\n", path, len(s.diags[path]))
		for _, d := range s.diags[path] {
			fmt.Fprintf(&b, "      line %d [%v] %s: %s\n", d.Range.Start.Line, d.Code, d.Source, clip(d.Message))
		}
	}
	section("progress", len(s.progress))
	for _, p := range s.progress {
		fmt.Fprintf(&b, "    %s %s %q %q\n", p.Token, p.Kind, p.Title, p.Message)
	}
	fmt.Fprintf(&b, "  workspace edits: %d applied %q, %d refused, %d held unanswered\n", len(s.applied), s.applied, len(s.refused), s.held)
	for _, r := range s.refused {
		fmt.Fprintf(&b, "    refused %q: %s\n", r.label, r.reason)
	}
	if len(s.shown) > 0 {
		fmt.Fprintf(&b, "  documents shown: %v\n", s.shown)
	}
	if len(s.logs) > 0 {
		// The output channel's last lines say what the server was doing
		// when the test gave up (a turn's tool calls, a job's output).
		const last = 8
		fmt.Fprintf(&b, "  log: %d lines, the last %d:\n", len(s.logs), min(last, len(s.logs)))
		for _, l := range s.logs[max(0, len(s.logs)-last):] {
			fmt.Fprintf(&b, "    %s\n", clip(l))
		}
	}
	section("buffers", len(e.buffers))
	for _, path := range sortedKeys(e.buffers) {
		fmt.Fprintf(&b, "    %s at version %d, %d bytes\n", path, e.buffers[path].version, len(e.buffers[path].text))
	}
	return strings.TrimRight(b.String(), "\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clip keeps a failure readable: a message can hold a whole diff.
func clip(s string) string {
	const max = 300
	if len(s) > max {
		s = text.Clip(s, max) + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}

// containsAll reports whether s contains every one of words.
func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// clipEnd is clip keeping the end: what a streamed document has come to.
func clipEnd(s string) string {
	const max = 300
	if len(s) > max {
		s = fmt.Sprintf("(%d bytes) …", len(s)) + text.ClipTail(s, max)
	}
	return strings.ReplaceAll(s, "\n", `\n`)
}

func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, " and ")
}

// ShownMessage is met once one window/showMessage contains every one of
// words. Give the words that matter to the user (what happened, what to
// do), not a whole sentence.
func ShownMessage(words ...string) Expectation {
	return ShownMessages(1, words...)
}

// ShownMessages is met once n window/showMessages contain every one of
// words (the n-th apply's message, say).
func ShownMessages(n int, words ...string) Expectation {
	desc := "a shown message with " + quoteAll(words)
	if n != 1 {
		desc = fmt.Sprintf("%d shown messages with %s", n, quoteAll(words))
	}
	return Expectation{description: desc, check: func(e *Editor) (verdict, string) {
		k := 0
		for _, m := range e.seen.messages {
			if containsAll(m.Message, words) {
				k++
			}
		}
		if k >= n {
			return met, ""
		}
		return unmet, fmt.Sprintf("%d so far", k)
	}}
}

// ShownMessageOfType is ShownMessage for a message of one type (an
// error, say, not an information that happens to use the words).
func ShownMessageOfType(typ protocol.MessageType, words ...string) Expectation {
	return Expectation{description: fmt.Sprintf("a shown %s message with %s", typ, quoteAll(words)), check: func(e *Editor) (verdict, string) {
		for _, m := range e.seen.messages {
			if containsAll(m.Message, words) {
				if m.Type == typ {
					return met, ""
				}
				return unmet, fmt.Sprintf("one is of type %s", m.Type)
			}
		}
		return unmet, ""
	}}
}

// NoShownMessage is met while no shown message contains every one of
// words; once one does it never can be, and Await fails at once. With
// other expectations, it says the message did not come before they were
// met.
func NoShownMessage(words ...string) Expectation {
	return Expectation{description: "no shown message with " + quoteAll(words), check: func(e *Editor) (verdict, string) {
		for _, m := range e.seen.messages {
			if containsAll(m.Message, words) {
				return unmeetable, "shown: " + clip(m.Message)
			}
		}
		return met, ""
	}}
}

// NoShownMessageOfType is NoShownMessage for messages of one type; with
// no words, no message of the type at all: NoShownMessageOfType(
// protocol.MessageTypeError) beside what a long run waits for makes its
// first error fail the test at once, naming it.
func NoShownMessageOfType(typ protocol.MessageType, words ...string) Expectation {
	desc := fmt.Sprintf("no shown %s message", typ)
	if len(words) > 0 {
		desc += " with " + quoteAll(words)
	}
	return Expectation{description: desc, check: func(e *Editor) (verdict, string) {
		for _, m := range e.seen.messages {
			if m.Type == typ && containsAll(m.Message, words) {
				return unmeetable, "shown: " + clip(m.Message)
			}
		}
		return met, ""
	}}
}

// ShownMessageRequest is met once a window/showMessageRequest (a question
// with buttons) contains every one of words.
func ShownMessageRequest(words ...string) Expectation {
	return Expectation{description: "a message request with " + quoteAll(words), check: func(e *Editor) (verdict, string) {
		for _, r := range e.seen.requests {
			if containsAll(r.params.Message, words) {
				return met, ""
			}
		}
		return unmet, ""
	}}
}

// LoggedMessage is met once a window/logMessage (the output channel)
// contains every one of words.
func LoggedMessage(words ...string) Expectation {
	return Expectation{description: "a logged message with " + quoteAll(words), check: func(e *Editor) (verdict, string) {
		for _, l := range e.seen.logs {
			if containsAll(l, words) {
				return met, ""
			}
		}
		return unmet, ""
	}}
}

// A DiagnosticFilter narrows the diagnostics Diagnostics and
// NoDiagnostics look at.
type DiagnosticFilter struct {
	description string
	keep        func(path string, d protocol.Diagnostic) bool
	path        string // ForFile's: only that file's diagnostics are looked at
}

// ForFile keeps the diagnostics published for path (relative to the
// root, slash-separated).
func ForFile(path string) DiagnosticFilter {
	return DiagnosticFilter{description: "in " + path, keep: func(p string, _ protocol.Diagnostic) bool { return p == path }, path: path}
}

// WithCode keeps the diagnostics with the code ("pending-edit").
func WithCode(code string) DiagnosticFilter {
	return DiagnosticFilter{description: fmt.Sprintf("with code %q", code), keep: func(_ string, d protocol.Diagnostic) bool {
		return d.Code != nil && fmt.Sprint(d.Code) == code
	}}
}

// WithMessage keeps the diagnostics whose message contains every one of
// words.
func WithMessage(words ...string) DiagnosticFilter {
	return DiagnosticFilter{description: "with " + quoteAll(words), keep: func(_ string, d protocol.Diagnostic) bool { return containsAll(d.Message, words) }}
}

// WithSource keeps the diagnostics from source ("agentls: go vet").
func WithSource(source string) DiagnosticFilter {
	return DiagnosticFilter{description: fmt.Sprintf("from %q", source), keep: func(_ string, d protocol.Diagnostic) bool { return d.Source == source }}
}

// AtLine keeps the diagnostics that start on line (0-based, as in LSP).
func AtLine(line uint32) DiagnosticFilter {
	return DiagnosticFilter{description: fmt.Sprintf("at line %d (0-based)", line), keep: func(_ string, d protocol.Diagnostic) bool { return d.Range.Start.Line == line }}
}

// WithSeverity keeps the diagnostics of a severity.
func WithSeverity(s protocol.DiagnosticSeverity) DiagnosticFilter {
	return DiagnosticFilter{description: "of severity " + s.String(), keep: func(_ string, d protocol.Diagnostic) bool { return d.Severity == s }}
}

func describeFilters(fs []DiagnosticFilter) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, f.description)
	}
	return strings.Join(parts, ", ")
}

// matchingLocked counts the diagnostics last published that pass every
// filter.
func (e *Editor) matchingLocked(fs []DiagnosticFilter) int {
	n := 0
	count := func(path string, ds []protocol.Diagnostic) {
		for _, d := range ds {
			if !slices.ContainsFunc(fs, func(f DiagnosticFilter) bool { return !f.keep(path, d) }) {
				n++
			}
		}
	}
	// A check runs after every event: with ForFile, look at that file
	// only, not every file the session published for.
	for _, f := range fs {
		if f.path != "" {
			count(f.path, e.seen.diags[f.path])
			return n
		}
	}
	for path, ds := range e.seen.diags {
		count(path, ds)
	}
	return n
}

// Diagnostics is met once a diagnostic last published passes every filter.
func Diagnostics(filters ...DiagnosticFilter) Expectation {
	return Expectation{description: "a diagnostic " + describeFilters(filters), check: func(e *Editor) (verdict, string) {
		if e.matchingLocked(filters) > 0 {
			return met, ""
		}
		return unmet, ""
	}}
}

// NoDiagnostics is met while no diagnostic last published passes every
// filter (diagnostics are replaced when published again: a cleared
// problem meets it).
func NoDiagnostics(filters ...DiagnosticFilter) Expectation {
	return Expectation{description: "no diagnostic " + describeFilters(filters), check: func(e *Editor) (verdict, string) {
		if n := e.matchingLocked(filters); n > 0 {
			return unmet, fmt.Sprintf("%d shown", n)
		}
		return met, ""
	}}
}

// DiagnosticsCount is met while exactly n diagnostics last published pass
// every filter: a file's one pending hunk, not two.
func DiagnosticsCount(n int, filters ...DiagnosticFilter) Expectation {
	return Expectation{description: fmt.Sprintf("%d diagnostics %s", n, describeFilters(filters)), check: func(e *Editor) (verdict, string) {
		if k := e.matchingLocked(filters); k != n {
			return unmet, fmt.Sprintf("%d shown", k)
		}
		return met, ""
	}}
}

// StartedWork is met once a work-done progress titled title has begun.
func StartedWork(title string) Expectation {
	return Expectation{description: fmt.Sprintf("progress %q begun", title), check: func(e *Editor) (verdict, string) {
		if e.workTokenLocked(title) != "" {
			return met, ""
		}
		return unmet, ""
	}}
}

// CompletedWork is met once a work-done progress titled title has ended
// (its $/progress end).
func CompletedWork(title string) Expectation {
	return CompletedWorkSaying(title, "")
}

// CompletedWorkSaying is CompletedWork for an end whose message contains
// message ("cancelled").
func CompletedWorkSaying(title, message string) Expectation {
	desc := fmt.Sprintf("progress %q ended", title)
	if message != "" {
		desc += fmt.Sprintf(" saying %q", message)
	}
	return Expectation{description: desc, check: func(e *Editor) (verdict, string) {
		tokens := map[string]bool{}
		for _, p := range e.seen.progress {
			switch {
			case p.Kind == "begin" && p.Title == title:
				tokens[p.Token] = true
			case p.Kind == "end" && tokens[p.Token]:
				if strings.Contains(p.Message, message) {
					return met, ""
				}
				return unmet, fmt.Sprintf("it ended saying %q", p.Message)
			}
		}
		return unmet, ""
	}}
}

// workTokenLocked is the token of the last progress begun with title.
func (e *Editor) workTokenLocked(title string) string {
	token := ""
	for _, p := range e.seen.progress {
		if p.Kind == "begin" && p.Title == title {
			token = p.Token
		}
	}
	return token
}

// AppliedEdit is met once the editor has applied a workspace edit whose
// label contains label.
func AppliedEdit(label string) Expectation {
	return Expectation{description: fmt.Sprintf("an edit labelled %q applied", label), check: func(e *Editor) (verdict, string) {
		if slices.ContainsFunc(e.seen.applied, func(l string) bool { return strings.Contains(l, label) }) {
			return met, ""
		}
		return unmet, ""
	}}
}

// AppliedEdits is met once the editor has applied n workspace edits.
func AppliedEdits(n int) Expectation {
	return Expectation{description: fmt.Sprintf("%d edits applied", n), check: func(e *Editor) (verdict, string) {
		if len(e.seen.applied) >= n {
			return met, ""
		}
		return unmet, fmt.Sprintf("%d so far", len(e.seen.applied))
	}}
}

// RefusedEdit is met once the editor has refused (RefuseEdits) a
// workspace edit whose label contains label.
func RefusedEdit(label string) Expectation {
	return Expectation{description: fmt.Sprintf("an edit labelled %q refused", label), check: func(e *Editor) (verdict, string) {
		if slices.ContainsFunc(e.seen.refused, func(r refusedEdit) bool { return strings.Contains(r.label, label) }) {
			return met, ""
		}
		return unmet, ""
	}}
}

// HeldEdits is met once the editor holds n workspace/applyEdit requests
// unanswered (HoldEdits).
func HeldEdits(n int) Expectation {
	return Expectation{description: fmt.Sprintf("%d edits held unanswered", n), check: func(e *Editor) (verdict, string) {
		if e.seen.held >= n {
			return met, ""
		}
		return unmet, fmt.Sprintf("%d so far", e.seen.held)
	}}
}

// CancelledRequests is met once the server has cancelled ($/cancelRequest)
// n of its requests to the editor.
func CancelledRequests(n int) Expectation {
	return Expectation{description: fmt.Sprintf("%d server requests cancelled", n), check: func(e *Editor) (verdict, string) {
		if len(e.seen.cancelled) >= n {
			return met, ""
		}
		return unmet, fmt.Sprintf("%d so far", len(e.seen.cancelled))
	}}
}

// ShownDocument is met once the server has asked the editor to show path
// (window/showDocument).
func ShownDocument(path string) Expectation {
	return Expectation{description: "the document " + path + " shown", check: func(e *Editor) (verdict, string) {
		if slices.ContainsFunc(e.seen.shown, func(u protocol.DocumentURI) bool { return e.rel(u) == path }) {
			return met, ""
		}
		return unmet, ""
	}}
}

// DocumentsShown is met once the server has asked the editor to show n
// documents (window/showDocument), wherever they are: a diff it wrote to
// a folder of its own. ShownDocuments says which.
func DocumentsShown(n int) Expectation {
	return Expectation{description: fmt.Sprintf("%d documents shown", n), check: func(e *Editor) (verdict, string) {
		if len(e.seen.shown) >= n {
			return met, ""
		}
		return unmet, fmt.Sprintf("%d so far", len(e.seen.shown))
	}}
}

// BufferContent is met once the open buffer of path holds want.
func BufferContent(path, want string) Expectation {
	return Expectation{description: fmt.Sprintf("the buffer %s holding %q", path, clip(want)), check: func(e *Editor) (verdict, string) {
		b, open := e.buffers[path]
		switch {
		case !open:
			return unmet, "not open"
		case b.text != want:
			return unmet, fmt.Sprintf("it holds %q", clip(b.text))
		}
		return met, ""
	}}
}

// BufferContaining is met once the open buffer of path contains every
// one of texts: the part of a document a test is about (a chat's last
// exchange), not all of it.
func BufferContaining(path string, texts ...string) Expectation {
	return bufferText(path, "containing "+quoteAll(texts), func(text string) bool { return containsAll(text, texts) })
}

// BufferNotContaining is met while the open buffer of path contains none
// of texts (a marker rewritten, a line removed). A buffer can change
// back, so unlike NoShownMessage it never fails at once.
func BufferNotContaining(path string, texts ...string) Expectation {
	return bufferText(path, "without "+quoteAll(texts), func(text string) bool {
		return !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(text, t) })
	})
}

// BufferEndingWith is met once the open buffer of path ends with suffix
// (a reply streamed to its end).
func BufferEndingWith(path, suffix string) Expectation {
	return bufferText(path, fmt.Sprintf("ending with %q", clip(suffix)), func(text string) bool { return strings.HasSuffix(text, suffix) })
}

func bufferText(path, what string, ok func(text string) bool) Expectation {
	return Expectation{description: fmt.Sprintf("the buffer %s %s", path, what), check: func(e *Editor) (verdict, string) {
		b, open := e.buffers[path]
		switch {
		case !open:
			return unmet, "not open"
		case !ok(b.text):
			return unmet, fmt.Sprintf("it holds %q", clipEnd(b.text))
		}
		return met, ""
	}}
}

// FileContaining is met once the file path on disk contains every one of
// texts (read as FileContent reads it: when an event comes).
func FileContaining(path string, texts ...string) Expectation {
	return Expectation{description: fmt.Sprintf("the file %s containing %s", path, quoteAll(texts)), check: func(e *Editor) (verdict, string) {
		data, err := os.ReadFile(filepath.Join(e.Root, filepath.FromSlash(path)))
		switch {
		case err != nil:
			return unmet, err.Error()
		case !containsAll(string(data), texts):
			return unmet, fmt.Sprintf("it holds %q", clipEnd(string(data)))
		}
		return met, ""
	}}
}

// FileContent is met once the file path on disk holds want. The disk is
// read when the editor sees an event: wait for it with the expectation
// of what follows the write (the message that says it is done).
func FileContent(path, want string) Expectation {
	return Expectation{description: fmt.Sprintf("the file %s holding %q", path, clip(want)), check: func(e *Editor) (verdict, string) {
		data, err := os.ReadFile(filepath.Join(e.Root, filepath.FromSlash(path)))
		switch {
		case err != nil:
			return unmet, err.Error()
		case string(data) != want:
			return unmet, fmt.Sprintf("it holds %q", clip(string(data)))
		}
		return met, ""
	}}
}

// NoFile is met while path does not exist on disk.
func NoFile(path string) Expectation {
	return Expectation{description: "no file " + path, check: func(e *Editor) (verdict, string) {
		if _, err := os.Lstat(filepath.Join(e.Root, filepath.FromSlash(path))); err == nil {
			return unmet, "it exists"
		}
		return met, ""
	}}
}

// AnyOf is met once one of exps is.
func AnyOf(exps ...Expectation) Expectation {
	var descs []string
	for _, x := range exps {
		descs = append(descs, x.description)
	}
	return Expectation{description: "any of: " + strings.Join(descs, "; "), check: func(e *Editor) (verdict, string) {
		hopeless := true
		for _, x := range exps {
			switch v, _ := x.check(e); v {
			case met:
				return met, ""
			case unmet:
				hopeless = false
			}
		}
		if hopeless && len(exps) > 0 {
			return unmeetable, ""
		}
		return unmet, ""
	}}
}

// AllOf is met once every one of exps is: a group inside AnyOf (Await's
// own arguments are all awaited together).
func AllOf(exps ...Expectation) Expectation {
	var descs []string
	for _, x := range exps {
		descs = append(descs, x.description)
	}
	return Expectation{description: "all of: " + strings.Join(descs, "; "), check: func(e *Editor) (verdict, string) {
		failures, hopeless := e.checkLocked(exps)
		for i, f := range failures {
			failures[i] = strings.TrimPrefix(f, "  - ")
		}
		switch {
		case hopeless:
			return unmeetable, strings.Join(failures, "; ")
		case len(failures) > 0:
			return unmet, "not met: " + strings.Join(failures, "; ")
		}
		return met, ""
	}}
}
