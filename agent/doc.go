// Package agent runs agent turns: the conversation with a model reached
// through any OpenAI-compatible endpoint, the prompt, and the loop that
// parses the model's tool calls, runs them and feeds the results back.
// It never imports lsp: the editor reaches it through the Workspace the
// tools see (tools.Workspace: Read, Propose, Confirm, Output), which the
// language server implements over the editor's buffers and agentls ask
// over the disk, and the rest of the turn's tools.Env (Setup's Buffers,
// Hashes, Progress: nil where a front-end has none). BindTools is a loop
// over builtin.Tools calling each Tool's Bind with that Env, and the
// Runner runs any call by its spec's Run, so a tool that brings its own
// Run needs nothing here.
//
// # The one core
//
// Every front-end starts a turn the same way (start.go): it fills a Setup
// (settings, Workspace, shell Host, MCP manager, observers) and calls
// Prepare, then Prepared.Run. Prepare reads the model, prompt style,
// format, tools, limits, log, rules, mentions and subagents from the one
// settings value, so the server, agentls ask and the demo cannot drift.
// OfferedTools is what a turn offers, for agentls tools. The conversions
// from settings to what each package takes (ToolOptionsOf, MCPConfigOf,
// ShellOptionsOf, PolicyOf, DiagnoseOptionsOf, ConfirmerOf) and the
// tools' checks of their keys (SettingChecks) live in settings.go, since
// settings is a leaf that knows no tool.
//
// # The loop (loop.go)
//
// A Turn streams each reply into the incremental parser (tools/parse). As
// soon as the first tool call is certainly complete — the finished reply
// would keep it, thinking included — generation stops and the reply is
// cut there: the model must see the result before it goes on. The call
// runs through the Runner; the result goes back as a user message (many
// local chat templates reject a second system message); this repeats
// until a reply calls no tool. In the tool format, native calls are read
// after the stream and answered by call id. Reasoning a server sends
// apart is never parsed and stays out of the history.
//
// A failing tool is a message the model reads, never the end of the
// turn; its output is kept, and tools.ChangedOf says whether the call
// changed anything. Limits (model calls, wall time, reply size, images)
// and model errors end the turn with an error that says so. A tool that
// returns approval.ErrStopTurn (the user chose "Stop turn") ends it too.
// Hooks run around every call (hooks.go: Before may refuse, After sees
// the ToolCall). Approvals are not hooks: what a command or an edit asks
// about is known only inside the tool.
//
// Each turn logs its conversation as JSON lines under the state folder,
// never the workspace (OpenLog). Request.History continues a chat
// document (chatdoc.go).
//
// # The model (model.go, retry.go, modelhelp.go)
//
// Model streams chat completions through go-openai. The key is named by
// an environment variable, read once and redacted from every error. A
// stream that ends without a finish reason is StreamCut, not a quiet end;
// a stalled stream is a Timeout. Every failure is an *Error with a kind
// and a message saying what to do. Retries live in the HTTP transport,
// below go-openai: 429, 5xx and refused connections are retried with
// backoff (Retry-After honoured) before any answer was read; a stream
// that broke after it began is not. No request goes to a hosted API
// without a key.
//
// # Images (images.go)
//
// A tool attaches an image with tools.AttachImage; it goes with the
// call's result. The turn bounds them (Limits.MaxImages, MaxImageBytes),
// since each is sent again with every later request. When a server says
// it takes no images, they are taken out of the conversation, the calls
// that sent them are reported again, and the step is asked again.
//
// # Small models (repeat.go, nudge.go, context.go, compact.go, salvage.go)
//
// Small local models skip read, repeat failing calls and answer with
// code in a block and no call. A repeated failure gets the file's current
// lines; sent a third time with nothing edited since, it is not run and
// the turn ends (ErrRepeated). The same save sent again that changed
// nothing ends the turn as done. Code shown without a call on a request
// for a change is nudged once (ErrNothingApplied the second time). In a
// compact turn a save that would drop much of the file is refused
// (salvage.go). The files a request names are read in up front
// (Request.Files).
// A Compact turn sends a short system prompt within PromptBudget, chosen by
// the prompt setting ("auto": when the API is on this machine).
//
// # Subagents (subagent.go)
//
// A subagent call runs a child Turn whose final text is the result. Its
// tools are a subset of the parent's bound registry (never subagent), so
// a child can do only what its parent may, and its edits are the parent
// turn's (undone with it). Its limits are bounded by the parent's, its
// context is the parent call's, and children take places in
// SubagentSlots; a call past the bound is refused, not queued.
//
// # Rules and mentions (rules.go, mentions.go, gitdiff.go)
//
// AGENTS.md, CLAUDE.md and the rules setting's files are repository
// content: they go into the system prompt under a heading that says they
// grant nothing. They and what a prompt's @path mentions attach are read
// inside the workspace only, past the secret rule, bounded. #git-diff
// runs git only where the policy would let `git diff HEAD` run unasked.
//
// agent/modeltest is the fake model every test uses.
package agent
