package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/tools/morph"
)

// ApplyModel returns the morph tool's way to the apply model cfg names
// (the applyModel setting): one streamed completion per merge, its text
// read to the end or to the request's bound. The key is read with getenv
// at each call, and the model's connection closed after it, so a turn
// that never merges holds nothing.
func ApplyModel(cfg ModelConfig, getenv func(string) string) morph.Complete {
	return func(ctx context.Context, req morph.Request) (string, error) {
		m, err := NewModel(cfg, getenv)
		if err != nil {
			return "", err
		}
		defer m.CloseIdleConnections()
		st, err := m.Stream(ctx, []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: req.System},
			{Role: openai.ChatMessageRoleUser, Content: req.User},
		}, nil)
		if err != nil {
			return "", err
		}
		defer st.Close()
		var text strings.Builder
		for {
			d, err := st.Recv()
			text.WriteString(d.Text)
			if errors.Is(err, io.EOF) {
				return text.String(), nil
			}
			if err != nil {
				return "", err
			}
			if req.MaxBytes > 0 && text.Len() > req.MaxBytes {
				return "", fmt.Errorf("its answer passed %d bytes, more than the file and the edit could make", req.MaxBytes)
			}
		}
	}
}
