package diagnose

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseGoVet parses 10,000 lines of go vet output spread over 100
// files of one workspace.
func BenchmarkParseGoVet(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{}
	for i := range 100 {
		files[fmt.Sprintf("pkg%d/f%d.go", i%10, i)] = "package p\n"
	}
	writeFiles(b, root, files)
	var out strings.Builder
	for i := range 10000 {
		if i%50 == 0 {
			fmt.Fprintf(&out, "# example.com/m/pkg%d\n", i%10)
			continue
		}
		n := i % 100
		fmt.Fprintf(&out, "pkg%d/f%d.go:%d:%d: fmt.Printf format %%d has arg x of wrong type string\n", n%10, n, i, 1+i%80)
	}
	text := out.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		diags, err := Parse("go vet ./...", text, Options{Dir: root, Root: root})
		if err != nil || len(diags) != 9800 {
			b.Fatalf("%d diagnostics, %v", len(diags), err)
		}
	}
}

// BenchmarkParseGoTest parses the output of a large failing go test run.
func BenchmarkParseGoTest(b *testing.B) {
	root := b.TempDir()
	writeFiles(b, root, map[string]string{"go.mod": "module example.com/m\n", "p/a_test.go": "package p\n"})
	var out strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&out, "=== RUN   Test%d\n    a_test.go:%d: got %d, want %d\n        detail\n--- FAIL: Test%d (0.00s)\n", i, i+1, i, i+1, i)
	}
	out.WriteString("FAIL\nFAIL\texample.com/m/p\t0.5s\nFAIL\n")
	text := out.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		diags, err := Parse("go test ./...", text, Options{Dir: root, Root: root})
		if err != nil || len(diags) != 2000 {
			b.Fatalf("%d diagnostics, %v", len(diags), err)
		}
	}
}
