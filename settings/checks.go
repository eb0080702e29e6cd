package settings

// Checks are the checks of the settings whose meaning another package
// owns: a command pattern's syntax is the shell policy's, an MCP server
// entry's is tools/mcp's, a browser allowlist's is the browser's. The
// owners' checks are gathered where the tools are (agent.SettingChecks)
// and passed to Load and Apply, so this package imports none of them and
// every layer may read settings. A nil check accepts any value of the
// key's type.
type Checks struct {
	Tools             func([]string) error             // tool names and <server>.<tool> globs
	CommandAllowlist  func([]string) error             // command patterns
	CommandDenylist   func([]string) error             // command patterns
	MCPServers        func(map[string]MCPServer) error // server entries
	ToolAllowlist     func([]string) error             // <server>.<tool> globs
	MCPReadOnly       func([]string) error             // server names
	BrowserAllowlist  func([]string) error             // host globs
	SearchURL         func(string) error               // a URL with {query}
	ComputerAllowlist func([]string) error             // action globs
}
