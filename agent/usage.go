package agent

import (
	"fmt"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/settings"
)

// Usage is what completions cost in tokens: counted by the server when it
// says (OpenAI, vLLM, OpenRouter with stream_options.include_usage), else
// estimated from the text sent and received (llama.cpp's server and older
// Ollama send no count while streaming).
type Usage struct {
	Prompt, Completion int
	// Estimated is set when any part of the count is an estimate: shown
	// with a "~".
	Estimated bool
}

// Total is prompt and completion tokens together.
func (u Usage) Total() int { return u.Prompt + u.Completion }

// Add returns u and v together; estimated if either was.
func (u Usage) Add(v Usage) Usage {
	return Usage{Prompt: u.Prompt + v.Prompt, Completion: u.Completion + v.Completion, Estimated: u.Estimated || v.Estimated}
}

// String is the count as people read it: "1,234 tokens", "~1,234 tokens".
func (u Usage) String() string {
	approx := ""
	if u.Estimated {
		approx = "~"
	}
	return fmt.Sprintf("%s%s tokens", approx, Thousands(u.Total()))
}

// Thousands writes n with commas between groups of three digits.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// charsPerToken is the estimate's ratio: about four characters a token
// for English and code with the tokenizers of GPT-4 and its peers.
const charsPerToken = 4

// estimateTokens estimates the tokens of text.
func estimateTokens(chars int) int {
	if chars <= 0 {
		return 0
	}
	return (chars + charsPerToken - 1) / charsPerToken
}

// promptChars counts the characters a request sends: every message's text
// and tool calls, and the native tools' schemas, plus a few per message
// for the roles and separators the chat template adds.
func promptChars(messages []openai.ChatCompletionMessage, tools []openai.Tool) int {
	const perMessage = 16
	n := 0
	for _, m := range messages {
		n += perMessage + utf8.RuneCountInString(m.Content)
		for _, p := range m.MultiContent {
			n += utf8.RuneCountInString(p.Text)
		}
		for _, c := range m.ToolCalls {
			n += utf8.RuneCountInString(c.Function.Name) + utf8.RuneCountInString(c.Function.Arguments)
		}
	}
	for _, t := range tools {
		if t.Function != nil {
			n += utf8.RuneCountInString(t.Function.Name) + utf8.RuneCountInString(t.Function.Description)
			n += len(fmt.Sprint(t.Function.Parameters))
		}
	}
	return n
}

// Cost is what u cost at p (the prices setting: per million tokens).
func Cost(p settings.Price, u Usage) float64 {
	return (float64(u.Prompt)*p.Input + float64(u.Completion)*p.Output) / 1e6
}

// Usage is the tokens the turn's model calls have cost so far: read it
// while the turn runs (from Observe, which runs on the turn's goroutine)
// or after Run.
func (t *Turn) Usage() Usage { return t.spent }

// CostLine is usage as a summary says it: "1,234 tokens", with its cost
// when the model has a price ("~1,234 tokens, ~$0.0123").
func CostLine(u Usage, price *settings.Price) string {
	if price == nil {
		return u.String()
	}
	approx := ""
	if u.Estimated {
		approx = "~"
	}
	return fmt.Sprintf("%s, %s$%.4f", u, approx, Cost(*price, u))
}
