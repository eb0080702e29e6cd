package policy

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkCheck(b *testing.B) {
	p := mustNew(b, Config{Allow: []string{"go test", "make"}})
	var script strings.Builder
	for i := range 100 {
		line := [...]string{
			"grep -rn 'func TestN' --include='*.go' . | head -20\n",
			"cd pkgN && ls -la && cd ..\n",
			"FOO=N go test -run 'TestX' ./... 2>&1 | tail -5\n",
			"if [ -f fileN ]; then cat fileN; fi\n",
			"echo \"step N: $(date)\" >> /dev/null\n",
		}[i%5]
		script.WriteString(strings.ReplaceAll(line, "N", fmt.Sprint(i)))
	}
	if _, err := parse(script.String()); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, line string }{
		{"1-line", "grep -rn 'TODO' --include='*.go' . | sort | uniq -c | head -20"},
		{"100-line", script.String()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			b.ReportAllocs()
			for b.Loop() {
				p.Check(c.line)
			}
		})
	}
}

// BenchmarkCheckWorkspace measures what reads the disk: paths judged with
// their symlinks resolved (growing with their number), a glob expanded,
// and git commands whose repository config is checked (parsed once, then
// only stat'ed: the cost per check is the discovery and a few stats).
func BenchmarkCheckWorkspace(b *testing.B) {
	root, home := testWorkspace(b)
	writeFiles(b, map[string]string{
		root + "/.git/config": "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n" +
			"[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
			"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
	})
	p := mustNew(b, Config{Root: root, Home: home})
	paths := func(n int) string { return "cat" + strings.Repeat(" sub/a.go", n) }
	for _, c := range []struct{ name, line string }{
		{"paths-1", paths(1)},
		{"paths-10", paths(10)},
		{"paths-100", paths(100)},
		{"glob", "wc -l sub/*.go"},
		{"git-status", "git status --short"},
		{"git-C-log", "git -C sub log --oneline -5 -- a.go"},
		{"cd-read-git", "cd sub && cat a.go && git diff"},
	} {
		if v := p.Check(c.line); v.Decision != Allow {
			b.Fatalf("%s: %+v", c.name, v)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			b.ReportAllocs()
			for b.Loop() {
				p.Check(c.line)
			}
		})
	}
}
