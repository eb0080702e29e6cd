package tools

// A Tool is one tool as the package that runs it declares it, beside its
// run function (as a staticcheck Analyzer carries its Run): what the model
// is told (Spec) and how it runs in a turn (Bind). tools/builtin lists the
// built-in ones; agent.BindTools binds each to the turn's Env.
type Tool struct {
	Spec *ToolSpec
	// Bind returns the tool's run function in env, once per turn; what
	// the tool keeps for the turn (a browser's "Always" hosts, a lazily
	// built index) lives in what Bind makes. Nil: the tool is described
	// only, and bound by whoever can run it (subagent: a turn, which only
	// agent can start).
	Bind func(env Env) RunFunc
}

// Specs returns the specs of ts, in order.
func Specs(ts []Tool) []*ToolSpec {
	out := make([]*ToolSpec, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Spec)
	}
	return out
}

// BindTools returns a registry of the same tools as r in which each tool of
// ts that r holds runs with what its Bind returns in env. Tools of ts that
// r does not hold are not bound (a selected registry holds only some), and
// tools of r that ts does not name keep their own Run (an MCP server's).
func (r *Registry) BindTools(env Env, ts []Tool) *Registry {
	runs := map[string]RunFunc{}
	for _, t := range ts {
		if t.Bind == nil {
			continue
		}
		if _, ok := r.byName[t.Spec.Name]; ok {
			runs[t.Spec.Name] = t.Bind(env)
		}
	}
	return r.bind(runs)
}
