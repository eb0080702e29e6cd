package rag

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// conceptEmbed is a fake embeddings model: a text about cars points one
// way, one about buses half-way, anything else the other way, and the
// query the way of cars. It counts the texts it is sent.
type conceptEmbed struct {
	sent []string
	fail error
}

func (c *conceptEmbed) embed(_ context.Context, texts []string) ([][]float32, error) {
	if c.fail != nil {
		return nil, c.fail
	}
	c.sent = append(c.sent, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		switch {
		case strings.Contains(t, "car") || !strings.Contains(t, "\n"): // the query has no newline
			out[i] = []float32{1, 0}
		case strings.Contains(t, "bus"):
			out[i] = []float32{0.7, 0.7}
		default:
			out[i] = []float32{0, 1}
		}
	}
	return out, nil
}

// TestEmbeddingsRerank: BM25 ranks the file saying "engine" most first;
// the embeddings rank the car's passage first, and fused the car passes
// it. The second call sends nothing new (vectors cached by content), and
// a failing endpoint leaves BM25's order, saying why.
func TestEmbeddingsRerank(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a.txt": "search engine engine engine index",
		"b.txt": "the car engine engine roars",
		"c.txt": "the bus has an engine, and a long route through town with many stops",
	})
	emb := &conceptEmbed{}
	dir := t.TempDir()
	s := New(root, Options{Dir: dir, Wait: testWait, Embed: emb.embed, EmbedModel: "fake"})
	ctx := context.Background()
	got, err := s.Search(ctx, "engine")
	if err != nil {
		t.Fatal(err)
	}
	if paths := listedPaths(got); !slices.Equal(paths, []string{"b.txt", "a.txt", "c.txt"}) || !strings.Contains(got, "BM25 and embeddings") {
		t.Errorf("ranked %v, want b.txt first (fused), then a.txt:\n%s", paths, got)
	}
	if len(emb.sent) != 4 {
		t.Errorf("sent %d texts, want the query and 3 passages: %q", len(emb.sent), emb.sent)
	}
	emb.sent = nil
	if _, err := New(root, Options{Dir: dir, Wait: testWait, Embed: emb.embed, EmbedModel: "fake"}).Search(ctx, "engine"); err != nil {
		t.Fatal(err)
	}
	if len(emb.sent) != 0 {
		t.Errorf("the next turn sent %q again: the vectors are cached by content", emb.sent)
	}

	emb.fail = errors.New("502 bad gateway")
	got, err = New(root, Options{Wait: testWait, Embed: emb.embed, EmbedModel: "fake"}).Search(ctx, "engine")
	if err != nil {
		t.Fatal(err)
	}
	if paths := listedPaths(got); paths[0] != "a.txt" || !strings.Contains(got, "embeddings failed, so ranked by BM25 alone: 502 bad gateway") {
		t.Errorf("with the endpoint failing: %v\n%s", paths, got)
	}
}
