package settings

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Settings are the server's and the CLI's options (section "agentls").
type Settings struct {
	Model      string   `json:"model"`
	BaseURL    string   `json:"baseUrl"`
	APIKeyEnv  string   `json:"apiKeyEnv"` // the name of the variable holding the key, never the key
	ToolFormat string   `json:"toolFormat"`
	Tools      []string `json:"tools"`
	ApplyMode  string   `json:"applyMode"`
	// ShellTimeout is in seconds.
	ShellTimeout     int      `json:"shellTimeout"`
	CommandAllowlist []string `json:"commandAllowlist"` // command patterns that run without asking ("go test", "make")
	CommandDenylist  []string `json:"commandDenylist"`  // command patterns that never run
	// ApprovalPolicy says what happens to an agent's action that is
	// neither allowed nor denied: "ask" the user, "deny" it, or "allow" it.
	ApprovalPolicy string `json:"approvalPolicy"`
	// ApprovalTimeout is how many seconds an approval waits before it
	// counts as a denial.
	ApprovalTimeout int `json:"approvalTimeout"`
	// ApplyEditTimeout is how many seconds the server waits for the
	// editor to answer a workspace/applyEdit before it keeps the change
	// as pending review.
	ApplyEditTimeout int      `json:"applyEditTimeout"`
	ErrorFormats     []string `json:"errorFormats"` // extra errorformat lines for command output
	MaxSteps         int      `json:"maxSteps"`
	// OutputLimits are how many bytes of the head and tail of a command's
	// stdout and stderr the model reads (0: the default, -1: none).
	OutputLimits OutputLimits `json:"outputLimits"`
	// SaveDocuments is set by editor plugins that implement the
	// agentls/saveDocuments request (save these buffers).
	SaveDocuments bool `json:"saveDocuments"`
	// Thinking says how the model marks its thinking: "auto" (a reply may
	// begin inside thinking that only a closing </think> ends, as R1-style
	// templates do: a call is held until that cannot happen any more) or
	// "tagged" (every thinking section opens with its tag, or the server
	// sends reasoning apart: a call runs as soon as it is complete).
	Thinking string `json:"thinking"`
	// MCPServers are the user's MCP servers, by name: each a command run
	// over stdio or a streamable HTTP URL (tools/mcp).
	MCPServers map[string]MCPServer `json:"mcpServers"`
	// ToolAllowlist are globs on <server>.<tool>: MCP tools that run
	// without asking.
	ToolAllowlist []string `json:"toolAllowlist"`
	// MCPTimeout bounds each MCP call, in seconds.
	MCPTimeout int `json:"mcpTimeout"`
	// MCPReadOnly are servers whose tools annotated read-only run without
	// asking.
	MCPReadOnly []string `json:"mcpReadOnly"`
	// Vision says whether the model is sent images (view_image): "auto"
	// (yes; a server that refuses them is told to the user, with this
	// setting), "on" (the model takes images: a refusal ends the turn) or
	// "off" (view_image refuses).
	Vision string `json:"vision"`
	// ImageMaxSide bounds the longer side of an image sent, in pixels.
	ImageMaxSide int `json:"imageMaxSide"`
	// BrowserAllowlist are globs on hosts the browser tool reads without
	// asking ("docs.python.org", "*.go.dev").
	BrowserAllowlist []string `json:"browserAllowlist"`
	// SearchURL is the browser's search engine: a URL with {query} where
	// the words go; empty, search is off.
	SearchURL string `json:"searchUrl"`
	// BrowserTimeout is how many seconds a page fetch may take.
	BrowserTimeout int `json:"browserTimeout"`
	// ComputerAllowlist are globs on the computer tool's actions that run
	// without asking ("screenshot", "cursor_position").
	ComputerAllowlist []string `json:"computerAllowlist"`
	// ApplyModel is the fast apply model the morph tool merges lazy edits
	// with (nil: none, and morph is not offered).
	ApplyModel *ApplyModel `json:"applyModel"`
	// ApplyModelFallback hands a patch with "// ..." placeholders that
	// cannot be placed to the apply model (off by default).
	ApplyModelFallback bool `json:"applyModelFallback"`
	// Embeddings is the OpenAI-compatible embeddings model rag re-ranks
	// its passages with (nil: BM25 alone); it has applyModel's shape and
	// defaults.
	Embeddings *ApplyModel `json:"embeddings"`
	// Rules are more files of project rules, relative to the workspace,
	// sent to the model beside AGENTS.md (agent.LoadRules).
	Rules []string `json:"rules"`
	// Temperature is sent with every model request (nil: agentls's
	// default, agent.DefaultTemperature, left out for a server that
	// refuses it).
	Temperature *float64 `json:"temperature"`
	// Prompt is the system prompt's style: "full", "compact" (short, for
	// small local models) or "auto" (compact when the API is on this
	// machine).
	Prompt string `json:"prompt"`
	// Prices are what models cost per million tokens, by model name
	// ({"gpt-4.1": {"input": 2, "output": 8}}): with one for the model,
	// token counts show a cost too.
	Prices map[string]Price `json:"prices"`
}

// MCPServer is one entry of the mcpServers setting: a program run over
// stdio (Command, Args, Env) or a streamable HTTP server (URL, Headers).
// What makes an entry valid is tools/mcp's to say (Checks.MCPServers).
type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// A Price is what a model costs per million tokens, in the user's
// currency (the prices setting).
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// The defaults of the settings whose unit the tools own: the tools'
// own defaults are these (a test in agent keeps them equal).
const (
	DefaultMCPTimeout     = 60   // seconds an MCP call may take
	DefaultImageMaxSide   = 1568 // pixels of an image's longer side
	DefaultBrowserTimeout = 30   // seconds a page fetch may take
)

// ApplyModel is the applyModel setting: any OpenAI-compatible endpoint
// (Morph's, or a general model prompted the same way). BaseURL and
// APIKeyEnv default to the main model's.
type ApplyModel struct {
	Model     string `json:"model"`
	BaseURL   string `json:"baseUrl,omitempty"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

// checkEmbeddings checks an embeddings value as the user wrote it.
func checkEmbeddings(m *ApplyModel) error {
	if m != nil && strings.TrimSpace(m.Model) == "" {
		return fmt.Errorf(`give the embeddings model's name as "model" (e.g. {"model": "text-embedding-3-small"}, or with "baseUrl" and "apiKeyEnv" for another server)`)
	}
	return checkApplyModel(m)
}

// checkApplyModel checks an applyModel value as the user wrote it.
func checkApplyModel(m *ApplyModel) error {
	if m == nil {
		return nil // null: no apply model
	}
	if strings.TrimSpace(m.Model) == "" {
		return fmt.Errorf(`give the apply model's name as "model" (e.g. {"model": "morph-v3-fast", "baseUrl": "https://api.morphllm.com/v1", "apiKeyEnv": "MORPH_API_KEY"})`)
	}
	if m.BaseURL != "" && !strings.HasPrefix(m.BaseURL, "http://") && !strings.HasPrefix(m.BaseURL, "https://") {
		return fmt.Errorf("baseUrl %q is not an http or https URL", m.BaseURL)
	}
	if m.APIKeyEnv != "" && (strings.HasPrefix(m.APIKeyEnv, "sk-") || strings.ContainsAny(m.APIKeyEnv, " =")) {
		return fmt.Errorf("apiKeyEnv: give the name of the environment variable that holds the key, not the key")
	}
	return nil
}

// TaggedThinking reports whether calls may run as soon as they are
// complete (Thinking "tagged").
func (s Settings) TaggedThinking() bool { return s.Thinking == "tagged" }

// OutputLimits bound what the model reads of a command's output.
type OutputLimits struct {
	StdoutHead int `json:"stdoutHead"`
	StdoutTail int `json:"stdoutTail"`
	StderrHead int `json:"stderrHead"`
	StderrTail int `json:"stderrTail"`
}

// Defaults are the settings before any source says anything; getenv gives
// the environment fallbacks (AGENTLS_MODEL, OPENAI_BASE_URL,
// AGENTLS_PROMPT).
func Defaults(getenv func(string) string) Settings {
	return Settings{
		Model:            getenv("AGENTLS_MODEL"),
		BaseURL:          getenv("OPENAI_BASE_URL"),
		APIKeyEnv:        "OPENAI_API_KEY",
		ToolFormat:       "markdown",
		ApplyMode:        "apply",
		ShellTimeout:     1200,
		ApprovalPolicy:   "ask",
		ApprovalTimeout:  300,
		ApplyEditTimeout: 60,
		MaxSteps:         30,
		Thinking:         "auto",
		Prompt:           cmp.Or(getenv("AGENTLS_PROMPT"), "auto"),
		MCPTimeout:       DefaultMCPTimeout,
		Vision:           "auto",
		ImageMaxSide:     DefaultImageMaxSide,
		BrowserTimeout:   DefaultBrowserTimeout,
	}
}

// A key is one setting: its name, how it is read and checked, and, for a
// key that widens what runs or where data goes, why it needs trust.
type key struct {
	name string
	// risk says what the key can do that a repository must not decide
	// ("" for a harmless key, which any source may set).
	risk string
	// set decodes v into s and checks it, with the owners' checks where
	// its meaning is another package's; on error s may be changed and is
	// thrown away by the caller.
	set func(s *Settings, v []byte, c Checks) error
}

// keys are every setting, in the order they are documented.
var keys = []key{
	{name: "model", set: field(func(s *Settings) *string { return &s.Model }, nil)},
	{name: "baseUrl", risk: "it says where your code and your API key are sent",
		set: field(func(s *Settings) *string { return &s.BaseURL }, nil)},
	{name: "apiKeyEnv", risk: "it says which of your environment's secrets is sent as the API key",
		set: field(func(s *Settings) *string { return &s.APIKeyEnv }, func(v string) error {
			if strings.HasPrefix(v, "sk-") || strings.ContainsAny(v, " =") || v == "" {
				return fmt.Errorf("give the name of the environment variable that holds the key, not the key")
			}
			return nil
		})},
	{name: "toolFormat", set: field(func(s *Settings) *string { return &s.ToolFormat }, oneOf("markdown", "xml", "tool"))},
	{name: "tools", risk: "it says which tools the agent may use",
		set: owned(func(s *Settings) *[]string { return &s.Tools }, func(c Checks) func([]string) error { return c.Tools })},
	{name: "applyMode", set: field(func(s *Settings) *string { return &s.ApplyMode }, oneOf("apply", "review"))},
	{name: "shellTimeout", set: field(func(s *Settings) *int { return &s.ShellTimeout }, positive("seconds"))},
	{name: "commandAllowlist", risk: "it lets commands run without asking you",
		set: owned(func(s *Settings) *[]string { return &s.CommandAllowlist }, func(c Checks) func([]string) error { return c.CommandAllowlist })},
	// A denylist only narrows what runs: any source may add to it.
	{name: "commandDenylist", set: owned(func(s *Settings) *[]string { return &s.CommandDenylist }, func(c Checks) func([]string) error { return c.CommandDenylist })},
	{name: "approvalPolicy", risk: "it can let every command run without asking you",
		set: field(func(s *Settings) *string { return &s.ApprovalPolicy }, oneOf("ask", "deny", "allow"))},
	{name: "approvalTimeout", set: field(func(s *Settings) *int { return &s.ApprovalTimeout }, positive("seconds"))},
	{name: "applyEditTimeout", set: field(func(s *Settings) *int { return &s.ApplyEditTimeout }, positive("seconds"))},
	{name: "errorFormats", set: field(func(s *Settings) *[]string { return &s.ErrorFormats }, nil)},
	{name: "outputLimits", set: field(func(s *Settings) *OutputLimits { return &s.OutputLimits }, func(l OutputLimits) error {
		if min(l.StdoutHead, l.StdoutTail, l.StderrHead, l.StderrTail) < -1 {
			return fmt.Errorf("each limit is a number of bytes (0: the default, -1: none)")
		}
		return nil
	})},
	{name: "maxSteps", set: field(func(s *Settings) *int { return &s.MaxSteps }, positive(""))},
	{name: "saveDocuments", set: field(func(s *Settings) *bool { return &s.SaveDocuments }, nil)},
	{name: "thinking", risk: "it can let a call drafted inside the model's thinking run",
		set: field(func(s *Settings) *string { return &s.Thinking }, oneOf("auto", "tagged"))},
	{name: "mcpServers", risk: "it starts the programs it names, and connects to the servers it names, with their tools offered to the agent",
		set: owned(func(s *Settings) *map[string]MCPServer { return &s.MCPServers }, func(c Checks) func(map[string]MCPServer) error { return c.MCPServers })},
	{name: "toolAllowlist", risk: "it lets MCP tools run without asking you",
		set: owned(func(s *Settings) *[]string { return &s.ToolAllowlist }, func(c Checks) func([]string) error { return c.ToolAllowlist })},
	{name: "mcpTimeout", risk: "it says how long an MCP tool may run",
		set: field(func(s *Settings) *int { return &s.MCPTimeout }, positive("seconds"))},
	{name: "mcpReadOnly", risk: "it lets the MCP tools a server calls read-only run without asking you",
		set: owned(func(s *Settings) *[]string { return &s.MCPReadOnly }, func(c Checks) func([]string) error { return c.MCPReadOnly })},
	// Images go to the model, which reads the workspace anyway: vision
	// and its bound widen nothing.
	{name: "vision", set: field(func(s *Settings) *string { return &s.Vision }, oneOf("auto", "on", "off"))},
	{name: "imageMaxSide", set: field(func(s *Settings) *int { return &s.ImageMaxSide }, func(v int) error {
		if v < 64 || v > 8192 {
			return fmt.Errorf("it must be a number of pixels from 64 to 8192 (the default is %d)", DefaultImageMaxSide)
		}
		return nil
	})},
	{name: "browserAllowlist", risk: "it lets the agent send requests to these hosts without asking you",
		set: owned(func(s *Settings) *[]string { return &s.BrowserAllowlist }, func(c Checks) func([]string) error { return c.BrowserAllowlist })},
	{name: "searchUrl", risk: "it says where the agent's searches are sent",
		set: owned(func(s *Settings) *string { return &s.SearchURL }, func(c Checks) func(string) error { return c.SearchURL })},
	{name: "browserTimeout", set: field(func(s *Settings) *int { return &s.BrowserTimeout }, positive("seconds"))},
	{name: "computerAllowlist", risk: "it lets the agent press keys, type and click on your screen, or look at it, without asking you",
		set: owned(func(s *Settings) *[]string { return &s.ComputerAllowlist }, func(c Checks) func([]string) error { return c.ComputerAllowlist })},
	{name: "applyModel", risk: "it says where the morph tool sends your files and edits, and which of your environment's secrets goes with them",
		set: field(func(s *Settings) **ApplyModel { return &s.ApplyModel }, checkApplyModel)},
	{name: "applyModelFallback", risk: "it sends a file and a patch to the apply model whenever the patch cannot be placed",
		set: field(func(s *Settings) *bool { return &s.ApplyModelFallback }, nil)},
	{name: "embeddings", risk: "it says where the rag tool sends passages of your files and your questions, and which of your environment's secrets goes with them",
		set: field(func(s *Settings) **ApplyModel { return &s.Embeddings }, checkEmbeddings)},
	// Rules files are read like any file the model may read (inside the
	// workspace, past the secret rule) and grant nothing: a repository's
	// settings may name them.
	{name: "rules", set: field(func(s *Settings) *[]string { return &s.Rules }, func(v []string) error {
		for _, p := range v {
			if filepath.IsAbs(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
				return fmt.Errorf("%q is not a path inside the workspace", p)
			}
		}
		return nil
	})},
	{name: "temperature", set: field(func(s *Settings) **float64 { return &s.Temperature }, func(v *float64) error {
		if v != nil && (*v < 0 || *v > 2) {
			return fmt.Errorf("it must be a number from 0 to 2 (or null: the server's default)")
		}
		return nil
	})},
	{name: "prompt", set: field(func(s *Settings) *string { return &s.Prompt }, oneOf("full", "compact", "auto"))},
	{name: "prices", set: field(func(s *Settings) *map[string]Price { return &s.Prices }, func(v map[string]Price) error {
		for model, p := range v {
			if p.Input < 0 || p.Output < 0 {
				return fmt.Errorf("%s: a price is a number of your currency per million tokens, not negative", model)
			}
		}
		return nil
	})},
}

// Keys returns the names of every setting, in documented order.
func Keys() []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return names
}

// SecurityKeys returns the names of the settings that only a trusted
// source may set, with why.
func SecurityKeys() map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if k.risk != "" {
			out[k.name] = k.risk
		}
	}
	return out
}

// SecurityKeyNames are the settings only a trusted source may set, in
// documented order.
func SecurityKeyNames() []string {
	var out []string
	for _, k := range keys {
		if k.risk != "" {
			out = append(out, k.name)
		}
	}
	return out
}

// SecurityKeysIn returns the security-relevant keys raw sets, in
// documented order.
func SecurityKeysIn(raw []byte) []string {
	set := KeysIn(raw)
	var out []string
	for _, k := range SecurityKeyNames() {
		if slices.Contains(set, k) {
			out = append(out, k)
		}
	}
	return out
}

func lookup(name string) (key, bool) {
	i := slices.IndexFunc(keys, func(k key) bool { return k.name == name })
	if i < 0 {
		return key{}, false
	}
	return keys[i], true
}

func oneOf(allowed ...string) func(string) error {
	return func(v string) error {
		if !slices.Contains(allowed, v) {
			return fmt.Errorf("%q is not one of %s", v, strings.Join(allowed, ", "))
		}
		return nil
	}
}

func positive(unit string) func(int) error {
	return func(v int) error {
		if v <= 0 {
			if unit != "" {
				return fmt.Errorf("it must be a positive number of %s", unit)
			}
			return fmt.Errorf("it must be positive")
		}
		return nil
	}
}
