// The layering rules of DESIGN.md §2, checked on the real import graph.
package agentls_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentls/agentls"

// layers lists the module's top-level packages from the bottom up: a
// package may depend only on packages of its own layer or lower ones.
// acp, the ACP front-end, is a front-end like lsp (both start turns
// through agent); it sits just below lsp so that it cannot reach the
// language server's internals.
var layers = []string{"internal", "settings", "edits", "anchored", "procs", "tools", "agent", "acp", "lsp", "cmd"}

// externalRules says which layers may reach an outside module.
var externalRules = []struct {
	prefix   string
	minLayer string // the lowest layer allowed to depend on it
	why      string
}{
	{"go.lsp.dev/", "lsp", "only lsp speaks LSP"},
	{"github.com/coder/acp-go-sdk", "acp", "ACP is spoken by the acp front-end, nothing below it"},
	{"github.com/sashabaranov/go-openai", "agent", "models are reached by agent only"},
	{"github.com/creack/pty", "procs", "pty sessions are the process runtime's"},
	{"mvdan.cc/sh/", "procs", "shell syntax is read by the process runtime and above"},
}

// pureLayers may use the standard library and these modules only: pure
// text and hashing libraries, never LSP, models or processes. (DESIGN.md
// §2 says "stdlib plus xxh3" for both, but §12 puts diffs and minimal
// edits, which live in edits, on go-udiff.)
var pureLayers = map[string][]string{
	"internal": {}, // small leaves every layer shares: the standard library only
	"edits":    {"github.com/aymanbagabas/go-udiff"},
	"anchored": {"github.com/zeebo/xxh3", "github.com/klauspost/cpuid/v2", "github.com/aymanbagabas/go-udiff"},
}

func layerOf(pkg string) (string, int) {
	rest, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return "", -1
	}
	top, _, _ := strings.Cut(rest, "/")
	return top, slices.Index(layers, top)
}

func isStandard(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

// checkLayering returns every violation of the rules in deps, which maps
// each module package to its transitive dependencies.
func checkLayering(deps map[string][]string) []string {
	var bad []string
	for pkg, ds := range deps {
		top, layer := layerOf(pkg)
		if layer < 0 {
			if top != "" {
				bad = append(bad, pkg+" is in no layer of DESIGN.md §2 (add it to layers)")
			}
			continue
		}
		for _, d := range ds {
			if dtop, dl := layerOf(d); dl > layer {
				bad = append(bad, pkg+" depends on "+d+": "+top+" may not reach "+dtop)
			}
			for _, r := range externalRules {
				if strings.HasPrefix(d, r.prefix) && layer < slices.Index(layers, r.minLayer) {
					bad = append(bad, pkg+" depends on "+d+": "+r.why)
				}
			}
			if allowed, pure := pureLayers[top]; pure && !isStandard(d) && !strings.HasPrefix(d, module+"/") {
				if !slices.ContainsFunc(allowed, func(a string) bool { return d == a || strings.HasPrefix(d, a+"/") }) {
					bad = append(bad, pkg+" depends on "+d+": "+top+" uses the standard library only")
				}
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func TestLayering(t *testing.T) {
	// go test caches results by the files a test opens or stats: stat every
	// Go file and go.mod, so an import added anywhere reruns this test.
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, ".go") || p == "go.mod") {
			os.Stat(p)
		}
		return nil
	})
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) > 0 {
			deps[fields[0]] = fields[1:]
		}
	}
	if len(deps) < 2 {
		t.Fatalf("go list found only %d packages", len(deps))
	}
	for _, v := range checkLayering(deps) {
		t.Error(v)
	}
}

// TestLayeringCatchesViolations keeps the checker honest.
func TestLayeringCatchesViolations(t *testing.T) {
	deps := map[string][]string{
		module + "/edits":       {"strings", module + "/tools", "github.com/google/uuid", "github.com/aymanbagabas/go-udiff"},
		module + "/agent":       {module + "/lsp", "go.lsp.dev/protocol"},
		module + "/tools":       {module + "/edits", "github.com/sashabaranov/go-openai"},
		module + "/anchored":    {"github.com/zeebo/xxh3", "github.com/klauspost/cpuid/v2/x"},
		module + "/lsp/lsptest": {module + "/lsp", "go.lsp.dev/jsonrpc2", module + "/agent"},
		module + "/stray":       {},
	}
	got := checkLayering(deps)
	want := []string{
		module + "/agent depends on " + module + "/lsp: agent may not reach lsp",
		module + "/agent depends on go.lsp.dev/protocol: only lsp speaks LSP",
		module + "/edits depends on " + module + "/tools: edits may not reach tools",
		module + "/edits depends on github.com/google/uuid: edits uses the standard library only",
		module + "/stray is in no layer of DESIGN.md §2 (add it to layers)",
		module + "/tools depends on github.com/sashabaranov/go-openai: models are reached by agent only",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
