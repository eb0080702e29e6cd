package rag

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSizes are the generated trees' file counts. 100k files take a
// minute or two to write and index on a loaded 2-core machine; run them
// with -bench 'Rag.*/files=100000'.
var benchSizes = []int{1_000, 10_000, 100_000}

// generateTree writes n source-like files of about 40 lines each, their
// words drawn from a vocabulary of 5000 identifiers with a Zipf-like
// skew (a few very common, most rare), in folders of 100.
func generateTree(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	r := rand.New(rand.NewPCG(1, uint64(n)))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("ident%dName%d", i, i%17)
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(2, uint64(n))), 1.1, 1, uint64(len(vocab)-1))
	var sb strings.Builder
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		sb.Reset()
		for range 40 {
			for range 6 + r.IntN(6) {
				sb.WriteString(vocab[zipf.Uint64()])
				sb.WriteByte(' ')
			}
			sb.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%d.go", i)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// buildIndex builds a Searcher's index of root and waits for it.
func buildIndex(b *testing.B, root string) *Searcher {
	b.Helper()
	s := New(root, Options{Wait: testWait})
	j, err := s.refresh(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if j != nil {
		<-j.done
	}
	return s
}

// BenchmarkRagBuild is a first index of a generated tree: listing,
// reading and indexing every file (not saving it).
func BenchmarkRagBuild(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := generateTree(b, n)
			for b.Loop() {
				buildIndex(b, root)
			}
		})
	}
}

// BenchmarkRagQuery is a question on a built index: the BM25 scoring and
// the snippets of the 8 best files (read from disk), without the refresh
// that Search does first (BenchmarkRagSearch has it).
func BenchmarkRagQuery(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := generateTree(b, n)
			s := buildIndex(b, root)
			query := "ident12Name12 ident400Name9 ident3000Name8 name5"
			for b.Loop() {
				hits, weights := s.ix.search(query, DefaultResults)
				if len(hits) == 0 {
					b.Fatal("no hits")
				}
				render(query, passages(root, hits, weights, nil), s.ix.Len(), "BM25", "")
			}
		})
	}
}

// BenchmarkRagSearch is a whole call on an index that is up to date: the
// files listed and stat'ed to find the changed, then the query.
func BenchmarkRagSearch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := generateTree(b, n)
			s := buildIndex(b, root)
			for b.Loop() {
				if _, err := s.Search(context.Background(), "ident12Name12 ident400Name9"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRagLoad is a later turn's start: the saved index read and its
// postings rebuilt.
func BenchmarkRagLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := generateTree(b, n)
			s := buildIndex(b, root)
			dir := b.TempDir()
			if err := s.ix.save(dir); err != nil {
				b.Fatal(err)
			}
			info, _ := os.Stat(indexFile(dir))
			b.ReportMetric(float64(info.Size())/1e6, "MB-saved")
			for b.Loop() {
				if ix, err := loadIndex(dir); err != nil || ix == nil {
					b.Fatal(err)
				}
			}
		})
	}
}
