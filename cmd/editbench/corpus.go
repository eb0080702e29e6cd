package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// rng is splitmix64: a tiny PRNG whose stream stays the same across Go
// releases, so a seed names the same cases everywhere.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// A corpusFile is one Go source file of the corpus.
type corpusFile struct {
	path string // relative to the corpus root
	size int64
}

// corpus is the Go distribution's own source: on every machine with Go,
// the same files for the same Go version.
type corpus struct {
	root  string
	files []corpusFile // sorted by path
}

func loadCorpus(root string) (*corpus, error) {
	c := &corpus{root: root}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		c.files = append(c.files, corpusFile{path: filepath.ToSlash(rel), size: info.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", root, err)
	}
	if len(c.files) == 0 {
		return nil, fmt.Errorf("corpus %s: no .go files", root)
	}
	slices.SortFunc(c.files, func(a, b corpusFile) int { return strings.Compare(a.path, b.path) })
	return c, nil
}

// pick returns a random file whose size is in [lo, hi).
func (c *corpus) pick(r *rng, lo, hi int64) (corpusFile, string, error) {
	for range 1000 {
		f := c.files[r.intn(len(c.files))]
		if f.size < lo || f.size >= hi {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(f.path)))
		if err != nil {
			return corpusFile{}, "", err
		}
		if strings.ContainsRune(string(data), '\r') || strings.HasPrefix(string(data), "\ufeff") {
			continue // the perturbations add these themselves
		}
		return f, string(data), nil
	}
	return corpusFile{}, "", fmt.Errorf("no corpus file of %d-%d bytes", lo, hi)
}

// manifest returns a SHA-256 over the corpus's paths and sizes, to record
// which corpus a run used.
func (c *corpus) manifest() string {
	h := sha256.New()
	for _, f := range c.files {
		fmt.Fprintf(h, "%s %d\n", f.path, f.size)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}
