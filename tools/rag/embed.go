package rag

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An Embed returns one vector for each text, in order: an
// OpenAI-compatible /v1/embeddings endpoint (agent.Embedder), which the
// embeddings setting names. Every text it is given leaves the machine.
type Embed func(ctx context.Context, texts []string) ([][]float32, error)

const (
	// rerankDepth is how many of BM25's best files embeddings re-rank.
	rerankDepth = 40
	// rrfK is reciprocal rank fusion's constant (Cormack et al. 2009):
	// it damps the weight of the very first ranks.
	rrfK = 60
	// maxCachedVectors bounds the vector cache; past it, it starts over.
	maxCachedVectors = 50_000
)

// A vectorCache keeps the vectors of texts by the SHA-256 of the model and
// the text, so a passage is sent to the endpoint once whatever file holds
// it, and a changed passage is sent again. It is saved beside the index.
type vectorCache struct {
	Model   string
	Vectors map[[32]byte][]float32
	dirty   bool
}

func vectorKey(model, text string) [32]byte {
	return sha256.Sum256([]byte(model + "\x00" + text))
}

func cacheFile(dir string) string { return filepath.Join(dir, "vectors.gob") }

// loadVectors reads the cache saved in dir for model; an empty cache when
// there is none, or it is another model's (its vectors mean nothing to
// this one).
func loadVectors(dir, model string) *vectorCache {
	c := &vectorCache{Model: model, Vectors: map[[32]byte][]float32{}}
	if dir == "" {
		return c
	}
	data, err := os.ReadFile(cacheFile(dir))
	if err != nil {
		return c
	}
	var saved vectorCache
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&saved) != nil || saved.Model != model || saved.Vectors == nil {
		return c
	}
	return &saved
}

func (c *vectorCache) save(dir string) error {
	if dir == "" || !c.dirty {
		return nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(c); err != nil {
		return fmt.Errorf("encode the vector cache: %w", err)
	}
	tmp := cacheFile(dir) + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("save the vector cache: %w", err)
	}
	if err := os.Rename(tmp, cacheFile(dir)); err != nil {
		return fmt.Errorf("save the vector cache: %w", err)
	}
	c.dirty = false
	return nil
}

// vectors returns the vectors of texts, asking embed for those not cached.
func (c *vectorCache) vectors(ctx context.Context, embed Embed, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, t := range texts {
		if v, ok := c.Vectors[vectorKey(c.Model, t)]; ok {
			out[i] = v
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(got) != len(missing) {
		return nil, fmt.Errorf("the embeddings endpoint returned %d vectors for %d texts", len(got), len(missing))
	}
	if len(c.Vectors)+len(got) > maxCachedVectors {
		c.Vectors = map[[32]byte][]float32{}
	}
	for j, v := range got {
		out[at[j]] = v
		c.Vectors[vectorKey(c.Model, missing[j])] = v
	}
	c.dirty = true
	return out, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// rerank orders BM25's passages by reciprocal rank fusion of their BM25
// rank and the rank of their passage's cosine to the query: the two
// scores are on scales that do not add (BM25 grows with the words'
// rarity, a cosine lies in [-1, 1]), while ranks do, and RRF needs no
// tuning. The passages are embedded as shown (path and lines), so what is
// sent is what the model would read.
func rerank(ctx context.Context, c *vectorCache, embed Embed, query string, ps []passage) ([]passage, error) {
	texts := []string{query}
	for _, p := range ps {
		texts = append(texts, p.Path+"\n"+strings.Join(p.lines[p.first:p.last], "\n"))
	}
	vecs, err := c.vectors(ctx, embed, texts)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		p      passage
		cos    float64
		bmRank int
	}
	rs := make([]ranked, len(ps))
	for i, p := range ps {
		rs[i] = ranked{p: p, cos: cosine(vecs[0], vecs[i+1]), bmRank: i}
	}
	byCos := slices.Clone(rs)
	slices.SortStableFunc(byCos, func(a, b ranked) int {
		switch {
		case a.cos > b.cos:
			return -1
		case a.cos < b.cos:
			return 1
		}
		return 0
	})
	fused := make([]float64, len(rs))
	for cosRank, r := range byCos {
		fused[r.bmRank] = 1/float64(rrfK+r.bmRank+1) + 1/float64(rrfK+cosRank+1)
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case fused[a] > fused[b]:
			return -1
		case fused[a] < fused[b]:
			return 1
		}
		return 0
	})
	out := make([]passage, len(order))
	for i, o := range order {
		out[i] = rs[o].p
	}
	return out, nil
}
