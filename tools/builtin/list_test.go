package builtin

import (
	"context"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/toolstest"
)

// TestEveryToolBinds: each built-in tool comes with its Bind, declared
// where it runs, and binds to a workspace alone (every other part of the
// Env nil); subagent, the one a turn runs, binds through Config.Subagent.
func TestEveryToolBinds(t *testing.T) {
	env := toolstest.Env(t.TempDir(), nil)
	for _, tool := range Tools(Config{}) {
		switch {
		case tool.Spec.Name == tools.NameSubagent:
			if tool.Bind != nil {
				t.Errorf("subagent binds without Config.Subagent")
			}
		case tool.Bind == nil:
			t.Errorf("%s has no Bind", tool.Spec.Name)
		case tool.Bind(env) == nil:
			t.Errorf("%s binds to no run function", tool.Spec.Name)
		}
	}
	ran := false
	c := Config{Subagent: func(tools.Env) tools.RunFunc {
		ran = true
		return func(ctx context.Context, use tools.ToolUse) (string, error) { return "", nil }
	}}
	reg := Registry().BindTools(env, Tools(c))
	if s, ok := reg.Get(tools.NameSubagent); !ok || !s.Runnable() || !ran {
		t.Errorf("subagent not bound through Config.Subagent")
	}
}

// TestMorphFallbackKeepsPatch: the morph fallback wraps patch's Bind and
// keeps its spec, so the prompt is the same with it and without.
func TestMorphFallbackKeepsPatch(t *testing.T) {
	specs := func(c Config) map[string]*tools.ToolSpec {
		out := map[string]*tools.ToolSpec{}
		for _, tool := range Tools(c) {
			out[tool.Spec.Name] = tool.Spec
		}
		return out
	}
	plain, fallback := specs(Config{}), specs(Config{MorphFallback: true})
	if len(plain) != len(fallback) || plain[tools.NamePatch].Instructions != fallback[tools.NamePatch].Instructions {
		t.Errorf("the fallback changed the tools: %d and %d", len(plain), len(fallback))
	}
}
