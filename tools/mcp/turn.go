package mcp

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"sync"

	"github.com/agentls/agentls/tools"
)

// SelectTurn returns a turn's registry: base's tools and the tools of
// the MCP servers the allowlist offers, selected by allow as
// tools.Registry.Select does, the MCP tools bound to run in turn; and
// warnings for the user.
//
// explicit says allow is the user's tools setting: then a server is
// offered when an entry names it (<server>.* or <server>.<tool>), and a
// configured server none names is warned about once. Otherwise (the
// default tools) every configured server is offered, all its tools.
// A server offered that does not start, or an entry that matches none of
// its tools, is a warning, not the turn's end: the turn goes on without.
// Servers start here, the first time a turn offers them.
func (m *Manager) SelectTurn(ctx context.Context, cfg Config, base *tools.Registry, allow []string, explicit bool, turn Turn) (*tools.Registry, []string, error) {
	if m == nil {
		return base.Select(allow)
	}
	m.configure(cfg)
	names := slices.Sorted(maps.Keys(cfg.Servers))
	allow = slices.Clone(allow)
	if len(allow) == 0 {
		// No allowlist is base's default tools, which the servers' globs
		// added below must not narrow.
		for _, s := range base.All() {
			if !s.DisabledByDefault && s.IsAvailable() {
				allow = append(allow, s.Name)
			}
		}
	}
	var warnings []string
	var offered []string
	for _, name := range names {
		switch {
		case !explicit:
			offered = append(offered, name)
			allow = append(allow, name+".*")
		case slices.ContainsFunc(allow, func(e string) bool { s, ok := EntryServer(e); return ok && s == name }):
			offered = append(offered, name)
		default:
			if m.warnOnce(name) {
				warnings = append(warnings, fmt.Sprintf("MCP server %s: the tools setting leaves all its tools out; add %q to it to offer them", name, name+".*"))
			}
		}
	}
	started := m.start(ctx, offered, turn)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	specs := base.All()
	for _, st := range started {
		name := st.name
		keep := func(e string) bool { s, ok := EntryServer(e); return !ok || s != name }
		if st.err != nil {
			warnings = append(warnings, fmt.Sprintf("%v; its tools are left out of this turn", st.err))
			allow = slices.DeleteFunc(allow, func(e string) bool { return !keep(e) })
			continue
		}
		var names []string
		for _, spec := range st.specs {
			specs = append(specs, spec)
			names = append(names, spec.Name)
		}
		allow = slices.DeleteFunc(allow, func(e string) bool {
			if keep(e) {
				return false
			}
			if slices.ContainsFunc(names, func(n string) bool { ok, _ := path.Match(e, n); return ok }) {
				return false
			}
			if explicit {
				warnings = append(warnings, fmt.Sprintf("tool allowlist: %q matches no tool of MCP server %s (it has %d); left out", e, name, len(names)))
			}
			return true
		})
	}
	reg, err := tools.NewRegistry(specs...)
	if err != nil {
		return nil, warnings, err
	}
	if explicit && len(allow) == 0 {
		// Every entry named a tool that is not here: none, not the
		// defaults an empty allowlist means.
		empty, err := tools.NewRegistry()
		return empty, warnings, err
	}
	sel, more, err := reg.Select(allow)
	return sel, append(warnings, more...), err
}

// warnOnce reports whether the left-out warning for a server is still to
// be given.
func (m *Manager) warnOnce(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.warned[name] {
		return false
	}
	m.warned[name] = true
	return true
}

// AllTools starts every configured server and returns all their tools,
// bound to run in turn (the zero Turn: nobody to ask), and a warning for each server
// that did not start: for a listing (agentls tools, agentls mcp list).
func (m *Manager) AllTools(ctx context.Context, cfg Config, turn Turn) ([]*tools.ToolSpec, []string) {
	if m == nil {
		return nil, nil
	}
	m.configure(cfg)
	var specs []*tools.ToolSpec
	var warnings []string
	for _, st := range m.start(ctx, slices.Sorted(maps.Keys(cfg.Servers)), turn) {
		if st.err != nil {
			warnings = append(warnings, st.err.Error())
		}
		specs = append(specs, st.specs...)
	}
	return specs, warnings
}

// started is one server's outcome in start: its tools bound to a turn,
// or why it did not start.
type started struct {
	name  string
	specs []*tools.ToolSpec
	err   error
}

// start starts the named servers at once, each within the timeout, and
// binds their tools to turn. Native names that fold together across
// servers (my-fs, my_fs) are kept apart by a number.
func (m *Manager) start(ctx context.Context, names []string, turn Turn) []started {
	out := make([]started, len(names))
	conns := make([]*conn, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		out[i].name = name
		s, ok := m.server(name)
		if !ok {
			out[i].err = fmt.Errorf("no MCP server is named %s", name)
			continue
		}
		wg.Go(func() { conns[i], out[i].err = s.ensure(ctx) })
	}
	wg.Wait()
	natives := map[string]bool{}
	for i, name := range names {
		if out[i].err != nil {
			continue
		}
		s, _ := m.server(name)
		ts := conns[i].toolset.Load()
		for j, spec := range ts.specs {
			bound := *spec
			bound.BlockTypes = slices.Clone(spec.BlockTypes)
			for k := 2; natives[bound.NativeName]; k++ {
				bound.NativeName = nativeName(name, ts.kept[j].Name, fmt.Sprintf("_%d", k))
				bound.BlockTypes[1] = bound.NativeName
			}
			natives[bound.NativeName] = true
			bound.Run = m.runFunc(s, ts.kept[j], &bound, turn)
			out[i].specs = append(out[i].specs, &bound)
		}
	}
	return out
}
