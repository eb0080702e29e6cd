package lsp

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInternalPackagesStayApart: the packages carved out of lsp import no
// part of the server, and a store imports no other store, so "a store
// calls no other store" is the compiler's rule, not a comment. Each may
// use only the leaves listed here.
func TestInternalPackagesStayApart(t *testing.T) {
	const lsp = "github.com/agentls/agentls/lsp"
	allowed := map[string][]string{ // lsp packages each may import
		lsp + "/internal/rpc":       nil,
		lsp + "/internal/position":  nil,
		lsp + "/internal/review":    {lsp + "/internal/position"},
		lsp + "/internal/documents": {lsp + "/internal/position"},
	}
	// go test caches results by the files a test opens or stats: stat
	// the carved packages' files, so an import added reruns this test.
	filepath.WalkDir("internal", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".go") {
			os.Stat(p)
		}
		return nil
	})
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg, imports := fields[0], fields[1:]
		may, known := allowed[pkg]
		if !known {
			t.Errorf("%s is not in this test's table: say which lsp packages it may import", pkg)
			continue
		}
		seen++
		for _, imp := range imports {
			if (imp == lsp || strings.HasPrefix(imp, lsp+"/")) && !slices.Contains(may, imp) {
				t.Errorf("%s imports %s: a carved package may not reach the server or another store", pkg, imp)
			}
		}
	}
	if seen != len(allowed) {
		t.Errorf("go list found %d of the %d carved packages", seen, len(allowed))
	}
}
