package lsp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// BenchmarkDidChangeServer measures the server's handling of one typed
// character in documents of growing size (the handler alone).
func BenchmarkDidChangeServer(b *testing.B) {
	for _, lines := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("%dlines", lines), func(b *testing.B) {
			s := newServer(Options{})
			text := strings.Repeat("func f() int { return 42 }\n", lines)
			u := protocol.DocumentURI("file:///w/big.go")
			s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
			pos := protocol.Position{Line: uint32(lines / 2)}
			v := int32(1)
			for b.Loop() {
				v++
				s.didChange(context.Background(), &didChangeParams{
					TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
					ContentChanges: []contentChange{{Range: &protocol.Range{Start: pos, End: pos}, Text: "x"}},
				})
			}
		})
	}
}
