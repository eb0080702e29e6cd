package main

import "time"

// A Result is what one tool did with one task in one run. The agentls
// driver fills it from `agentls ask`'s output and turn log; a driver for
// another tool (aider, gptme) fills the same fields from its own output,
// leaving at zero what it cannot know, so every tool lands in one table.
type Result struct {
	Tool   string `json:"tool"` // "agentls", or the peer's name
	Task   string `json:"task"`
	Format string `json:"format"` // the tool-call syntax asked for
	Run    int    `json:"run"`    // 1-based

	Solved  bool `json:"solved"`  // check.sh exited 0
	Changed bool `json:"changed"` // the workspace differs from files/ afterwards
	// Rejected: the workspace changed but the checker says unsolved.
	Rejected bool `json:"rejected"`

	Replies     int `json:"replies"`      // the model's replies
	CallReplies int `json:"call_replies"` // replies that tried to call a tool
	WellFormed  int `json:"well_formed"`  // of those, replies whose calls all parsed
	Calls       int `json:"calls"`        // tool calls run
	FailedCalls int `json:"failed_calls"` // calls that ran and failed
	Edits       int `json:"edits"`        // edit calls applied
	// MaxRepeat is the longest run of consecutive identical replies that
	// called tools (the failure: 30 identical failing calls).
	MaxRepeat int `json:"max_repeat"`
	// MaxFailedRepeat is the longest run of consecutive identical replies
	// whose calls all ran and failed: how often one failing call was run
	// (agentls's third is refused unrun, so its replies may repeat three
	// times while its failing calls run twice at most).
	MaxFailedRepeat int `json:"max_failed_repeat"`

	// Steps and the tokens are counted by the adapter, the same way for
	// every tool: model calls, and the tokens of each as the server's
	// reply gives them (TokensEstimated: some replies gave none, see
	// Usage).
	Steps            int  `json:"steps"`
	Tokens           int  `json:"tokens"` // sent and received
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	TokensEstimated  bool `json:"tokens_estimated,omitempty"`
	// HTTPErrors are model calls the endpoint answered with an error;
	// Flattened the calls whose list contents the adapter flattened.
	HTTPErrors int `json:"http_errors,omitempty"`
	Flattened  int `json:"flattened,omitempty"`
	// Sampling is what the tool's requests asked for (see Usage).
	Sampling string `json:"sampling,omitempty"`
	// Wall is from the tool's process start to its exit, for every tool.
	Wall time.Duration `json:"wall_ns"`
	Exit int           `json:"exit"` // the tool's exit code (-1: killed at the timeout)

	// Error is why the run could not be measured (a runner failure, not
	// the model's): the result counts as unsolved.
	Error string `json:"error,omitempty"`
	Log   string `json:"log,omitempty"` // the turn log, when kept
}
