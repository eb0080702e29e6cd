// Package agent runs agent turns: the conversation with a model reached
// through any OpenAI-compatible endpoint, the prompt, and the loop that
// parses the model's tool calls, runs them and feeds the results back.
// It never imports lsp: the editor reaches it through the Workspace the
// tools see.
package agent
