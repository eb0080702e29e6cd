package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Helpers for the tests that drive real editors (Neovim, Emacs).

// buildAgentls builds the agentls command into a temporary folder and
// returns the binary's path.
func buildAgentls(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/agentls").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// pathWith is a PATH environment entry with dir first.
func pathWith(dir string) string {
	return "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// pathWithout is a PATH environment entry with the folders of PATH that
// hold an executable named one of programs left out.
func pathWithout(t *testing.T, programs ...string) string {
	t.Helper()
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !slices.ContainsFunc(programs, func(program string) bool {
			info, err := os.Stat(filepath.Join(dir, program))
			return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
		}) {
			keep = append(keep, dir)
		}
	}
	return "PATH=" + strings.Join(keep, string(os.PathListSeparator))
}

// readmeBlocks returns the code blocks of language lang in the README
// between the lines starting from and to (to "" for the end).
func readmeBlocks(t *testing.T, from, to, lang string) []string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), from)
	if !ok {
		t.Fatalf("no %s in the README", from)
	}
	if to != "" {
		section, _, _ = strings.Cut(section, to)
	}
	var blocks []string
	for rest := section; ; {
		_, after, found := strings.Cut(rest, "```"+lang+"\n")
		if !found {
			return blocks
		}
		block, tail, _ := strings.Cut(after, "```")
		blocks, rest = append(blocks, block), tail
	}
}
