package agent

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/procs/diagnose"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/procs/shell"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/computer"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/shelltool"
	"github.com/agentls/agentls/tools/vision"
)

// The settings as the core reads them: settings is a leaf that knows no
// tool, so what a key means for a tool is said here, once, for every
// front-end (the language server, agentls ask, the demo).

// SettingChecks are the tools' checks of the settings they own, to pass
// to settings.Load and Settings.Apply: a command pattern is checked by the
// shell policy, an MCP entry by tools/mcp, a host glob by the browser.
func SettingChecks() settings.Checks {
	return settings.Checks{
		Tools: func(v []string) error {
			// <server>.<tool> entries name MCP tools, known once their
			// server runs (mcp.Manager.SelectTurn checks them).
			builtins := slices.DeleteFunc(slices.Clone(v), func(e string) bool { _, ok := mcp.EntryServer(e); return ok })
			if len(builtins) == 0 {
				return nil
			}
			_, _, err := builtin.Registry().Select(builtins)
			return err
		},
		CommandAllowlist: func(v []string) error {
			_, err := policy.New(policy.Config{Allow: v})
			return err
		},
		CommandDenylist: func(v []string) error {
			_, err := policy.New(policy.Config{Deny: v})
			return err
		},
		MCPServers:    mcp.CheckServers,
		ToolAllowlist: mcp.CheckAllowlist,
		MCPReadOnly: func(v []string) error {
			for _, name := range v {
				if err := mcp.CheckServerName(name); err != nil {
					return err
				}
			}
			return nil
		},
		BrowserAllowlist:  browser.CheckAllowlist,
		SearchURL:         browser.CheckSearchURL,
		ComputerAllowlist: computer.CheckAllowlist,
	}
}

// LoadSettings reads the user's and the workspace's settings files over
// the defaults (settings.Load), each key checked by its owner.
func LoadSettings(getenv func(string) string, root string) settings.Loaded {
	return settings.Load(getenv, root, SettingChecks())
}

// ToolOptionsOf are the settings of the tools a turn binds (BindTools).
func ToolOptionsOf(s settings.Settings) ToolOptions {
	return ToolOptions{
		Vision: VisionOptionsOf(s),
		Browser: browser.Options{Allowlist: s.BrowserAllowlist, SearchURL: s.SearchURL,
			Timeout: time.Duration(s.BrowserTimeout) * time.Second},
		ApplyModel:         ApplyModelOf(s),
		ApplyModelFallback: s.ApplyModelFallback,
		Embeddings:         EmbeddingsOf(s),
		ComputerAllowlist:  s.ComputerAllowlist,
	}
}

// VisionOptionsOf are view_image's and MCP images' bounds.
func VisionOptionsOf(s settings.Settings) vision.Options {
	return vision.Options{Mode: vision.Mode(s.Vision), MaxSide: s.ImageMaxSide}
}

// ModelOf is the turn's model as the settings name it; without a
// temperature setting, DefaultTemperature.
func ModelOf(s settings.Settings) ModelConfig {
	cfg := ModelConfig{Model: s.Model, BaseURL: s.BaseURL, APIKeyEnv: s.APIKeyEnv, TaggedThinking: s.TaggedThinking(), Temperature: s.Temperature}
	if cfg.Temperature == nil {
		t := DefaultTemperature
		cfg.Temperature, cfg.TemperatureIsDefault = &t, true
	}
	return cfg
}

// ApplyModelOf is the apply model morph merges with, nil when none is
// configured.
func ApplyModelOf(s settings.Settings) *ModelConfig { return secondModel(s, s.ApplyModel) }

// EmbeddingsOf is the model rag re-ranks with, nil when none is
// configured.
func EmbeddingsOf(s settings.Settings) *ModelConfig { return secondModel(s, s.Embeddings) }

// secondModel is a second model (apply, embeddings), nil when m is: its
// baseUrl and apiKeyEnv default to the main model's.
func secondModel(s settings.Settings, m *settings.ApplyModel) *ModelConfig {
	if m == nil {
		return nil
	}
	return &ModelConfig{Model: m.Model, BaseURL: cmp.Or(m.BaseURL, s.BaseURL), APIKeyEnv: cmp.Or(m.APIKeyEnv, s.APIKeyEnv)}
}

// MCPConfigOf is what the settings say about MCP servers, as tools/mcp
// takes it.
func MCPConfigOf(s settings.Settings) mcp.Config {
	return mcp.Config{Servers: s.MCPServers, Allowlist: s.ToolAllowlist, ReadOnly: s.MCPReadOnly,
		Timeout: time.Duration(s.MCPTimeout) * time.Second, Images: VisionOptionsOf(s)}
}

// TurnToolsOf is the allowlist an agent turn selects its tools with: the
// tools setting, or, without one, the edit tools (read included), the
// shell's, and morph when an apply model is configured.
func TurnToolsOf(s settings.Settings) []string {
	if len(s.Tools) > 0 {
		return s.Tools
	}
	out := append(edittool.TurnTools(), shelltool.TurnTools()...)
	if s.ApplyModel != nil {
		out = append(out, tools.NameMorph) // configured, so offered
	}
	return out
}

// PolicyOf is the command patterns as the shell policy takes them.
func PolicyOf(s settings.Settings) policy.Config {
	return policy.Config{Allow: s.CommandAllowlist, Deny: s.CommandDenylist}
}

// ShellLimitsOf bound what the model reads of a command's output.
func ShellLimitsOf(s settings.Settings) shell.Limits {
	l := s.OutputLimits
	return shell.Limits{StdoutHead: l.StdoutHead, StdoutTail: l.StdoutTail, StderrHead: l.StderrHead, StderrTail: l.StderrTail}
}

// ShellOptionsOf are the shell host's options the settings decide, for
// a workspace at root: its timeout, command policy, output limits, and
// where "Always" answers are kept. The front-end adds where output goes
// (Output, Finished, JobStarted, BeforeRun) and LogDir.
func ShellOptionsOf(s settings.Settings, getenv func(string) string, root string) shelltool.Options {
	return shelltool.Options{
		Root:       root,
		Timeout:    time.Duration(s.ShellTimeout) * time.Second,
		Policy:     PolicyOf(s),
		Limits:     ShellLimitsOf(s),
		AlwaysFile: statedir.KeptApprovals(getenv, root),
	}
}

// DiagnoseOptionsOf are how a finished command's output is read into
// diagnostics: the errorFormats setting's lines beside the presets, paths
// relative to where it ran (dir) inside root.
func DiagnoseOptionsOf(s settings.Settings, dir, root string) diagnose.Options {
	return diagnose.Options{Dir: dir, Formats: s.ErrorFormats, Root: root}
}

// ConfirmerOf is who answers a turn's questions under the approvalPolicy
// setting: ask under "ask" (nil: nobody can be asked here), everything
// allowed unasked under "allow", everything refused under "deny" — as the
// policy's refusal (approval.ErrPolicyDenies), so the model is told the
// policy denies it, not that the user declined or was away.
func ConfirmerOf(s settings.Settings, ask approval.Confirmer) approval.Confirmer {
	switch s.ApprovalPolicy {
	case "allow":
		return allowAll{}
	case "deny":
		return approval.DenyAll{}
	}
	return ask
}

// allowAll answers every question "run": approvalPolicy "allow".
type allowAll struct{}

func (allowAll) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Run, nil
}
