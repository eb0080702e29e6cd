package mcp

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools/vision"
)

// A ServerConfig is one entry of the mcpServers setting, in the shape
// other MCP hosts use: Command (with Args and Env) for a server spoken to
// over its stdin and stdout, or URL (with Headers) for a streamable HTTP
// server. Settings holds it; what makes it valid is said here
// (checkServer, CheckServers).
type ServerConfig = settings.MCPServer

// checkServer reports what is wrong with the entry, and how to write it.
func checkServer(c ServerConfig) error {
	switch {
	case c.Command == "" && c.URL == "":
		return fmt.Errorf(`give "command" (a program run over stdio) or "url" (a streamable HTTP server)`)
	case c.Command != "" && c.URL != "":
		return fmt.Errorf(`give "command" or "url", not both`)
	case c.Command != "" && len(c.Headers) > 0:
		return fmt.Errorf(`"headers" are for a "url" server; a command's server takes "env"`)
	case c.URL != "" && (len(c.Args) > 0 || len(c.Env) > 0):
		return fmt.Errorf(`"args" and "env" are for a "command" server; a "url" server takes "headers"`)
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q is not an http or https URL", c.URL)
		}
	}
	return nil
}

// equal reports whether two entries start the same server.
func sameServer(c, o ServerConfig) bool {
	return c.Command == o.Command && c.URL == o.URL && slices.Equal(c.Args, o.Args) && maps.Equal(c.Env, o.Env) && maps.Equal(c.Headers, o.Headers)
}

// serverName is what a server may be called: its tools are named
// <server>.<tool>, and the native name <server>__<tool> must fit the
// model APIs' ^[a-zA-Z0-9_-]{1,64}$.
var serverName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// CheckServerName reports whether name can name a server.
func CheckServerName(name string) error {
	if !serverName.MatchString(name) {
		return fmt.Errorf("server name %q: use 1 to 32 letters, digits, '_' or '-' (its tools are called %s.<tool>)", name, name)
	}
	return nil
}

// CheckServers checks every entry of an mcpServers value.
func CheckServers(servers map[string]ServerConfig) error {
	for name, c := range servers {
		if err := CheckServerName(name); err != nil {
			return err
		}
		if err := checkServer(c); err != nil {
			return fmt.Errorf("server %s: %w", name, err)
		}
	}
	return nil
}

// CheckAllowlist checks the globs of the toolAllowlist setting: each
// names tools as <server>.<tool>, with * ? [ ] as in path.Match.
func CheckAllowlist(globs []string) error {
	for _, g := range globs {
		if _, ok := EntryServer(g); !ok {
			return fmt.Errorf("%q: write <server>.<tool>, e.g. fs.read_file or fs.*", g)
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("%q is not a valid pattern: %w", g, err)
		}
	}
	return nil
}

// EntryServer returns the server an allowlist entry names when it is an
// MCP tool's entry (<server>.<tool glob>): built-in tools have no dot in
// their names.
func EntryServer(entry string) (string, bool) {
	server, tool, ok := strings.Cut(entry, ".")
	if !ok || tool == "" || !serverName.MatchString(server) {
		return "", false
	}
	return server, true
}

// DefaultTimeout bounds a call when the mcpTimeout setting is not given.
const DefaultTimeout = 60 * time.Second

// A Config is what the settings say about MCP.
type Config struct {
	// Servers are the mcpServers setting, by name.
	Servers map[string]ServerConfig
	// Allowlist are the toolAllowlist globs: tools that run without
	// asking.
	Allowlist []string
	// ReadOnly are the servers (mcpReadOnly) whose tools annotated
	// read-only run without asking.
	ReadOnly []string
	// Timeout bounds each call (and a server's start); 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Images are how images a tool returns reach the model, as for
	// view_image (the vision and imageMaxSide settings).
	Images vision.Options
	// Dir, when set, is where stdio servers start (the turn's workspace
	// folder), instead of Options.Dir.
	Dir string
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// BuiltinEntries returns the entries of an allowlist that name built-in
// tools: those left once the MCP tools' entries (EntryServer) are taken
// out, for checking an allowlist before the servers run.
func BuiltinEntries(allow []string) []string {
	return slices.DeleteFunc(slices.Clone(allow), func(e string) bool { _, ok := EntryServer(e); return ok })
}
