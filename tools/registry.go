package tools

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

// A Registry is a set of tools, by name and by block type.
type Registry struct {
	specs   []*ToolSpec // by (LoadPriority, Name)
	byName  map[string]*ToolSpec
	byBlock map[string]*ToolSpec
}

// NewRegistry returns a registry of the given tools. Names and block types
// must be unique.
func NewRegistry(specs ...*ToolSpec) (*Registry, error) {
	r := &Registry{byName: map[string]*ToolSpec{}, byBlock: map[string]*ToolSpec{}}
	for _, s := range specs {
		if err := s.validate(); err != nil {
			return nil, err
		}
		if _, dup := r.byName[s.Name]; dup {
			return nil, fmt.Errorf("two tools are named %s", s.Name)
		}
		r.byName[s.Name] = s
		for _, bt := range s.BlockTypes {
			if other, dup := r.byBlock[bt]; dup {
				return nil, fmt.Errorf("block type %s belongs to both %s and %s", bt, other.Name, s.Name)
			}
			r.byBlock[bt] = s
		}
		r.specs = append(r.specs, s)
	}
	slices.SortFunc(r.specs, func(a, b *ToolSpec) int {
		return cmp.Or(cmp.Compare(a.LoadPriority, b.LoadPriority), cmp.Compare(a.Name, b.Name))
	})
	return r, nil
}

// bind returns a registry of the same tools in which each tool named in
// runs runs with that function: the tools are bound where what runs them
// exists (a Batch's workspace, a shell Host). The specs are copied, so a
// registry that shares them (Select's parent) keeps its own Run. Names in
// runs that are not in the registry are left out: a selected registry holds
// only some of the tools a package runs.
func (r *Registry) bind(runs map[string]RunFunc) *Registry {
	out := &Registry{
		specs:   make([]*ToolSpec, 0, len(r.specs)),
		byName:  make(map[string]*ToolSpec, len(r.byName)),
		byBlock: make(map[string]*ToolSpec, len(r.byBlock)),
	}
	for _, s := range r.specs {
		if run, ok := runs[s.Name]; ok {
			bound := *s
			bound.Run = run
			s = &bound
		}
		out.specs = append(out.specs, s)
		out.byName[s.Name] = s
		for _, bt := range s.BlockTypes {
			out.byBlock[bt] = s
		}
	}
	return out
}

// All returns the tools in prompt order: by load priority, then name.
func (r *Registry) All() []*ToolSpec { return slices.Clone(r.specs) }

// Get returns the tool with the given name or block type (<py> in xml
// means ipython, as ```py does in markdown).
func (r *Registry) Get(name string) (*ToolSpec, bool) {
	if s, ok := r.byName[name]; ok {
		return s, true
	}
	s, ok := r.byBlock[name]
	return s, ok
}

// Lookup resolves a fenced block's type to its tool; it is the parser's
// ParseOptions.Lookup.
func (r *Registry) Lookup(blockType string) (ToolRef, bool) {
	s, ok := r.byBlock[blockType]
	if !ok {
		return ToolRef{}, false
	}
	return ToolRef{Name: s.Name, PathArg: s.PathArg}, true
}

// ReadOnlyPreset is the allowlist entry that selects only the tools that
// cannot change anything; it cannot be combined with other entries.
const ReadOnlyPreset = "read-only"

// Select returns the registry of the tools an allowlist enables, and
// warnings about entries that matched only tools unavailable here.
//
// With an empty allowlist every available tool is enabled except those
// disabled by default. Otherwise each entry is an exact tool name (or block
// type), a glob over names (browser.*, patch*), hint:TAG for every tool
// tagged TAG, or the read-only preset alone. A tool matched by any entry is
// enabled even if disabled by default. An entry that matches no tool is an
// error: a typo must not silently disable a tool.
func (r *Registry) Select(allowlist []string) (*Registry, []string, error) {
	var chosen []*ToolSpec
	var warnings []string
	if len(allowlist) == 0 {
		for _, s := range r.specs {
			if !s.DisabledByDefault && s.IsAvailable() {
				chosen = append(chosen, s)
			}
		}
		sel, err := NewRegistry(chosen...)
		return sel, nil, err
	}
	if slices.Contains(allowlist, ReadOnlyPreset) {
		if len(allowlist) > 1 {
			return nil, nil, fmt.Errorf("tool allowlist: %q selects the read-only tools and cannot be combined with other entries", ReadOnlyPreset)
		}
		allowlist = []string{"hint:read-only"}
	}
	enabled := map[*ToolSpec]bool{}
	for _, entry := range allowlist {
		matched, err := r.match(entry)
		if err != nil {
			return nil, nil, err
		}
		if len(matched) == 0 {
			return nil, nil, fmt.Errorf("tool allowlist: %q matches no tool (known tools: %s)", entry, strings.Join(r.names(), ", "))
		}
		var unavailable []string
		for _, s := range matched {
			if s.IsAvailable() {
				enabled[s] = true
			} else {
				unavailable = append(unavailable, s.Name)
			}
		}
		if len(unavailable) > 0 {
			warnings = append(warnings, fmt.Sprintf("tool allowlist: %q matches %s, not available here", entry, strings.Join(unavailable, ", ")))
		}
	}
	for _, s := range r.specs {
		if enabled[s] {
			chosen = append(chosen, s)
		}
	}
	sel, err := NewRegistry(chosen...)
	return sel, warnings, err
}

// match returns the tools an allowlist entry names.
func (r *Registry) match(entry string) ([]*ToolSpec, error) {
	if hint, ok := strings.CutPrefix(entry, "hint:"); ok {
		var out []*ToolSpec
		for _, s := range r.specs {
			if s.HasHint(hint) {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if strings.ContainsAny(entry, "*?[") {
		if _, err := path.Match(entry, ""); err != nil {
			return nil, fmt.Errorf("tool allowlist: bad pattern %q: %w", entry, err)
		}
		var out []*ToolSpec
		for _, s := range r.specs {
			if ok, _ := path.Match(entry, s.Name); ok {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if s, ok := r.Get(entry); ok {
		return []*ToolSpec{s}, nil
	}
	return nil, nil
}

func (r *Registry) names() []string {
	var out []string
	for _, s := range r.specs {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}
