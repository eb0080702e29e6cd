package agent

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/tools/rag"
)

// Embedder returns rag's Embed over cfg's OpenAI-compatible
// /v1/embeddings endpoint (the embeddings setting), its key read from
// getenv as the main model's is. Every text it is given is sent there.
func Embedder(cfg ModelConfig, getenv func(string) string) rag.Embed {
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		m, err := NewModel(cfg, getenv)
		if err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
		defer m.CloseIdleConnections()
		resp, err := m.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(cfg.Model)})
		if err != nil {
			return nil, fmt.Errorf("the embeddings model %s at %s: %w", cfg.Model, m.cfg.BaseURL, err)
		}
		out := make([][]float32, len(texts))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
				return nil, fmt.Errorf("the embeddings model %s answered with vector %d for %d texts", cfg.Model, d.Index, len(texts))
			}
			out[d.Index] = d.Embedding
		}
		for i, v := range out {
			if v == nil {
				return nil, fmt.Errorf("the embeddings model %s gave no vector for text %d of %d", cfg.Model, i, len(texts))
			}
		}
		return out, nil
	}
}
