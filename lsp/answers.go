package lsp

import (
	"context"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/position"
)

// Answers to AI? questions: an agent turn that may only read answers the
// question in an AI? comment, and the answer is shown as an Information
// diagnostic on the comment's line while that line still asks.

// addAnswer shows a question's answer as an Information diagnostic on the
// AI? comment's line; it stays while that line still asks.
func (s *Server) addAnswer(ctx context.Context, path string, line int, answer string) {
	s.answers.add(path, protocol.Diagnostic{
		Range:    position.LineRange(line, line+1),
		Severity: protocol.DiagnosticSeverityInformation, Source: "agentls", Code: "answer", Message: answer,
	})
	s.publishDiagnostics(ctx, path)
}

// answers are the answers to AI? questions, as diagnostics by file. Its
// methods take its lock and call no other store.
type answers struct {
	mu     sync.Mutex
	byPath map[string][]protocol.Diagnostic
}

func (a *answers) add(path string, d protocol.Diagnostic) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byPath == nil {
		a.byPath = map[string][]protocol.Diagnostic{}
	}
	a.byPath[path] = append(a.byPath[path], d)
}

// live returns a file's answers whose AI? line is still there in text,
// and forgets the others.
func (a *answers) live(path, text string) []protocol.Diagnostic {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.byPath[path]) == 0 {
		return nil
	}
	lines := strings.Split(text, "\n")
	kept := a.byPath[path][:0]
	for _, d := range a.byPath[path] {
		if l := int(d.Range.Start.Line); l < len(lines) && strings.Contains(lines[l], "AI?") {
			kept = append(kept, d)
		}
	}
	a.byPath[path] = kept
	return append([]protocol.Diagnostic(nil), kept...)
}

func (a *answers) has(path string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.byPath[path]) > 0
}
