package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/policy"
	"github.com/agentls/agentls/tools/shell"
)

// settings are the server's options (section "agentls"), from
// initializationOptions, workspace/didChangeConfiguration and
// workspace/configuration, with environment fallbacks. A bad value is
// reported to the user and the previous value kept; nothing is dropped
// silently.
type settings struct {
	Model            string   `json:"model"`
	BaseURL          string   `json:"baseUrl"`
	APIKeyEnv        string   `json:"apiKeyEnv"` // the name of the variable holding the key, never the key
	ToolFormat       string   `json:"toolFormat"`
	Tools            []string `json:"tools"`
	ApplyMode        string   `json:"applyMode"`
	ShellTimeout     int      `json:"shellTimeout"`     // seconds
	CommandAllowlist []string `json:"commandAllowlist"` // command patterns that run without asking ("go test", "make")
	CommandDenylist  []string `json:"commandDenylist"`  // command patterns that never run
	// ApprovalPolicy says what happens to an agent's command that is
	// neither allowed nor denied: "ask" the user, "deny" it, or "allow" it.
	ApprovalPolicy  string   `json:"approvalPolicy"`
	ApprovalTimeout int      `json:"approvalTimeout"` // seconds an approval waits before it counts as a denial
	ErrorFormats    []string `json:"errorFormats"`    // extra errorformat lines for command output
	MaxSteps        int      `json:"maxSteps"`
	// OutputLimits are how many bytes of the head and tail of a command's
	// stdout and stderr the model reads (0: the default, -1: none).
	OutputLimits outputLimits `json:"outputLimits"`
	// SaveDocuments is set by editor plugins that implement the
	// agentls/saveDocuments request (save these buffers).
	SaveDocuments bool `json:"saveDocuments"`
}

type outputLimits struct {
	StdoutHead int `json:"stdoutHead"`
	StdoutTail int `json:"stdoutTail"`
	StderrHead int `json:"stderrHead"`
	StderrTail int `json:"stderrTail"`
}

func (l outputLimits) shell() shell.Limits {
	return shell.Limits{StdoutHead: l.StdoutHead, StdoutTail: l.StdoutTail, StderrHead: l.StderrHead, StderrTail: l.StderrTail}
}

// defaultSettings are the settings before the client says anything.
func defaultSettings() settings {
	return settings{
		Model:           os.Getenv("AGENTLS_MODEL"),
		BaseURL:         os.Getenv("OPENAI_BASE_URL"),
		APIKeyEnv:       "OPENAI_API_KEY",
		ToolFormat:      string(tools.FormatMarkdown),
		ApplyMode:       "apply",
		ShellTimeout:    1200,
		ApprovalPolicy:  "ask",
		ApprovalTimeout: 300,
		MaxSteps:        30,
	}
}

// apply reads raw settings onto cur, key by key. It returns the new
// settings and the problems found (each kept out of the result).
func (cur settings) apply(raw json.RawMessage) (settings, []string) {
	if len(raw) == 0 || string(raw) == "null" {
		return cur, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return cur, []string{"the settings are not a JSON object: " + err.Error()}
	}
	// Accept {"agentls": {...}} as well as the section itself.
	if inner, ok := fields["agentls"]; ok && len(fields) == 1 {
		fields = nil
		if err := json.Unmarshal(inner, &fields); err != nil {
			return cur, []string{"agentls: the settings are not a JSON object: " + err.Error()}
		}
	}
	next := cur
	var problems []string
	set := func(key string, dst any, check func() string) {
		v, ok := fields[key]
		if !ok {
			return
		}
		delete(fields, key)
		saved := next
		if err := json.Unmarshal(v, dst); err != nil {
			next = saved
			problems = append(problems, fmt.Sprintf("agentls.%s: %s is not a valid value (%v); keeping the previous one", key, v, err))
			return
		}
		if check != nil {
			if p := check(); p != "" {
				next = saved
				problems = append(problems, fmt.Sprintf("agentls.%s: %s; keeping the previous one", key, p))
			}
		}
	}
	oneOf := func(v *string, allowed ...string) func() string {
		return func() string {
			if !slices.Contains(allowed, *v) {
				return fmt.Sprintf("%q is not one of %s", *v, strings.Join(allowed, ", "))
			}
			return ""
		}
	}
	set("model", &next.Model, nil)
	set("baseUrl", &next.BaseURL, nil)
	set("apiKeyEnv", &next.APIKeyEnv, func() string {
		if strings.HasPrefix(next.APIKeyEnv, "sk-") || strings.ContainsAny(next.APIKeyEnv, " =") {
			next.APIKeyEnv = cur.APIKeyEnv // never keep or echo what looks like a key
			return "give the name of the environment variable that holds the key, not the key"
		}
		return ""
	})
	set("toolFormat", &next.ToolFormat, oneOf(&next.ToolFormat, "markdown", "xml", "tool"))
	set("tools", &next.Tools, func() string {
		if _, _, err := builtin.Registry().Select(next.Tools); err != nil {
			return err.Error()
		}
		return ""
	})
	set("applyMode", &next.ApplyMode, oneOf(&next.ApplyMode, "apply", "review"))
	set("shellTimeout", &next.ShellTimeout, func() string {
		if next.ShellTimeout <= 0 {
			return "it must be a positive number of seconds"
		}
		return ""
	})
	set("commandAllowlist", &next.CommandAllowlist, func() string {
		if _, err := policy.New(policy.Config{Allow: next.CommandAllowlist}); err != nil {
			return err.Error()
		}
		return ""
	})
	set("commandDenylist", &next.CommandDenylist, func() string {
		if _, err := policy.New(policy.Config{Deny: next.CommandDenylist}); err != nil {
			return err.Error()
		}
		return ""
	})
	set("approvalPolicy", &next.ApprovalPolicy, oneOf(&next.ApprovalPolicy, "ask", "deny", "allow"))
	set("approvalTimeout", &next.ApprovalTimeout, func() string {
		if next.ApprovalTimeout <= 0 {
			return "it must be a positive number of seconds"
		}
		return ""
	})
	set("errorFormats", &next.ErrorFormats, nil)
	set("saveDocuments", &next.SaveDocuments, nil)
	set("outputLimits", &next.OutputLimits, func() string {
		l := next.OutputLimits
		if min(l.StdoutHead, l.StdoutTail, l.StderrHead, l.StderrTail) < -1 {
			return "each limit is a number of bytes (0: the default, -1: none)"
		}
		return ""
	})
	set("maxSteps", &next.MaxSteps, func() string {
		if next.MaxSteps <= 0 {
			return "it must be positive"
		}
		return ""
	})
	var unknown []string
	for k := range fields {
		unknown = append(unknown, k)
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		problems = append(problems, fmt.Sprintf("agentls.%s: unknown setting (known: model, baseUrl, apiKeyEnv, toolFormat, tools, applyMode, shellTimeout, commandAllowlist, commandDenylist, approvalPolicy, approvalTimeout, errorFormats, outputLimits, maxSteps, saveDocuments)", k))
	}
	return next, problems
}

// configure applies raw settings at once and reports their problems to
// the user in the background.
func (s *Server) configure(raw json.RawMessage, from string) {
	s.mu.Lock()
	next, problems := s.settings.apply(raw)
	s.settings = next
	s.mu.Unlock()
	s.configureHost()
	if len(problems) > 0 {
		s.goBackground("report settings", func(ctx context.Context) {
			for _, p := range problems {
				s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s: %s", from, p)
			}
		})
	}
}

func (s *Server) currentSettings() settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

type didChangeConfigurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

// didChangeConfiguration takes the pushed settings, or pulls them with
// workspace/configuration when the client only signals a change.
func (s *Server) didChangeConfiguration(ctx context.Context, p *didChangeConfigurationParams) (any, error) {
	if len(p.Settings) > 0 && string(p.Settings) != "null" && string(p.Settings) != "{}" {
		s.configure(p.Settings, "settings")
		return nil, nil
	}
	s.goBackground("pull configuration", s.pullConfiguration)
	return nil, nil
}

// pullConfiguration asks a client that supports it for section "agentls".
func (s *Server) pullConfiguration(ctx context.Context) {
	s.mu.Lock()
	supported := s.caps.Workspace.Configuration
	s.mu.Unlock()
	if !supported {
		return
	}
	var res []json.RawMessage
	params := map[string]any{"items": []map[string]string{{"section": "agentls"}}}
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceConfiguration, params, &res); err != nil {
		s.log.Warn("workspace/configuration failed", "err", err)
		return
	}
	if len(res) > 0 {
		s.configure(res[0], "workspace configuration")
	}
}
