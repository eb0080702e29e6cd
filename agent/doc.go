// Package agent runs agent turns: the conversation with a model reached
// through any OpenAI-compatible endpoint, the prompt, and the loop that
// parses the model's tool calls, runs them and feeds the results back.
// It never imports lsp: the editor reaches it through the Workspace the
// tools see (Read, Propose, Confirm, Output), which the language server
// implements over the editor's buffers and agentls ask over the disk.
// BindTools binds the built-in tools to a Workspace and a shell Host, and
// the Runner runs any call by its spec's Run, so a tool that brings its
// own Run needs nothing here.
package agent
