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
