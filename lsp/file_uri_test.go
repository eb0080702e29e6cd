package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

// TestFileOfURI: only a file URI with an absolute path on this host names
// a file; the others are errors, not panics.
func TestFileOfURI(t *testing.T) {
	tests := []struct {
		uri  string
		want string // "" for an error
	}{
		{"file:///home/u/a.go", "/home/u/a.go"},
		{"file:///home/u/a%20b.go", "/home/u/a b.go"},
		{"FILE:///a.go", "/a.go"},
		{"file://localhost/a.go", "/a.go"},
		{"untitled:Untitled-1", ""},
		{"fugitive:///repo/.git//0/a.go", ""},
		{"http://example.com/a.go", ""},
		{"file://otherhost/a.go", ""},
		{"file:a.go", ""},
		{"file://", ""},
		{"", ""},
		{"file:///a%00b", ""},
		{"%zz", ""},
	}
	for _, tt := range tests {
		got, err := fileOfURI(protocol.DocumentURI(tt.uri))
		if tt.want == "" && err == nil || tt.want != "" && (err != nil || got != tt.want) {
			t.Errorf("fileOfURI(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
	}
}
