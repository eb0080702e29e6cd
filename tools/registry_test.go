package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := NewRegistry(
		&ToolSpec{Name: "shell", BlockTypes: []string{"shell"}, Description: "d"},
		&ToolSpec{Name: "ipython", BlockTypes: []string{"ipython", "py"}, Description: "d", LoadPriority: 10},
		&ToolSpec{Name: "save", BlockTypes: []string{"save"}, PathArg: true, Description: "d"},
		&ToolSpec{Name: "patch", BlockTypes: []string{"patch"}, PathArg: true, Description: "d"},
		&ToolSpec{Name: "patch_many", BlockTypes: []string{"patch_many"}, Description: "d"},
		&ToolSpec{Name: "read", BlockTypes: []string{"read"}, Description: "d", Hints: []string{"read-only"}, DisabledByDefault: true},
		&ToolSpec{Name: "view_anchored", Description: "d", Hints: []string{"read-only"}, DisabledByDefault: true},
		&ToolSpec{Name: "tmux", Description: "d", Available: func() bool { return false }},
	)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func names(r *Registry) []string {
	out := []string{}
	for _, s := range r.All() {
		out = append(out, s.Name)
	}
	return out
}

func TestSelect(t *testing.T) {
	r := testRegistry(t)
	for _, tc := range []struct {
		name      string
		allowlist []string
		want      []string
		warning   string
		err       string
	}{
		{"default: available, not disabled, by priority then name", nil, []string{"patch", "patch_many", "save", "shell", "ipython"}, "", ""},
		{"exact names enable disabled tools", []string{"read", "save"}, []string{"read", "save"}, "", ""},
		{"block type names its tool", []string{"py"}, []string{"ipython"}, "", ""},
		{"glob", []string{"patch*"}, []string{"patch", "patch_many"}, "", ""},
		{"hint", []string{"hint:read-only"}, []string{"read", "view_anchored"}, "", ""},
		{"read-only preset", []string{"read-only"}, []string{"read", "view_anchored"}, "", ""},
		{"preset alone only", []string{"read-only", "shell"}, nil, "", "cannot be combined"},
		{"unknown name is an error", []string{"shel"}, nil, "", `"shel" matches no tool`},
		{"glob matching nothing is an error", []string{"browser.*"}, nil, "", "matches no tool"},
		{"bad glob", []string{"[a"}, nil, "", "bad pattern"},
		{"unavailable tool warns", []string{"tmux", "shell"}, []string{"shell"}, `"tmux" matches tmux, not available here`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel, warnings, err := r.Select(tc.allowlist)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(sel)); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
			if tc.warning == "" && len(warnings) > 0 || tc.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.warning)) {
				t.Errorf("warnings = %q, want %q", warnings, tc.warning)
			}
		})
	}
}

func TestRegistryRejectsDuplicates(t *testing.T) {
	if _, err := NewRegistry(&ToolSpec{Name: "a", Description: "d"}, &ToolSpec{Name: "a", Description: "d"}); err == nil {
		t.Error("two tools named a were accepted")
	}
	if _, err := NewRegistry(&ToolSpec{Name: "a", BlockTypes: []string{"x"}, Description: "d"}, &ToolSpec{Name: "b", BlockTypes: []string{"x"}, Description: "d"}); err == nil {
		t.Error("a block type of two tools was accepted")
	}
	if _, err := NewRegistry(&ToolSpec{Name: "a"}); err == nil {
		t.Error("a tool without a description was accepted")
	}
}

func TestLookupAndGet(t *testing.T) {
	r := testRegistry(t)
	if ref, ok := r.Lookup("py"); !ok || ref.Name != "ipython" {
		t.Errorf("Lookup(py) = %v, %v", ref, ok)
	}
	if ref, ok := r.Lookup("save"); !ok || !ref.PathArg {
		t.Errorf("Lookup(save) = %v, %v", ref, ok)
	}
	if _, ok := r.Lookup("python"); ok {
		t.Error("python is not a block type")
	}
	if s, ok := r.Get("py"); !ok || s.Name != "ipython" {
		t.Errorf("Get(py) = %v, %v", s, ok)
	}
}

func TestNamedArgs(t *testing.T) {
	s := &ToolSpec{Name: "read", Description: "d", Parameters: []Parameter{
		{Name: "path", Required: true}, {Name: "start_line"}, {Name: "end_line"},
	}}
	// Content fills the next parameter only when that one is required.
	got := s.NamedArgs(ToolUse{Args: []string{"a.go"}, Content: "body"})
	if diff := cmp.Diff(map[string]any{"path": "a.go"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = s.NamedArgs(ToolUse{Content: "a.go"})
	if diff := cmp.Diff(map[string]any{"path": "a.go"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = s.NamedArgs(ToolUse{Kwargs: map[string]any{"path": "b.go", "start_line": 3}})
	if diff := cmp.Diff(map[string]any{"path": "b.go", "start_line": 3}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRenderMarkdownFenceOutgrowsContent(t *testing.T) {
	s := &ToolSpec{Name: "save", BlockTypes: []string{"save"}, PathArg: true, Description: "d"}
	content := "# Title\n```sh\nmake\n```\n````\nx\n````"
	text := s.RenderCall(ToolUse{Tool: "save", Args: []string{"README.md"}, Content: content}, FormatMarkdown, "")
	if !strings.HasPrefix(text, "`````save README.md\n") {
		t.Errorf("fence not longer than the content's: %q", text)
	}
}

// TestBind: a bound registry runs its own functions, and binding never
// reaches the registry it came from: two turns bound from one registry
// (Select's parent shares its specs) each run in their own workspace, or
// one turn's edits would be journalled and approved as the other's.
func TestBind(t *testing.T) {
	ctx := context.Background()
	base := testRegistry(t)
	runIn := func(where string) RunFunc {
		return func(context.Context, ToolUse) (string, error) { return where, nil }
	}
	first := base.bind(map[string]RunFunc{"save": runIn("first"), "not-here": runIn("nowhere")})
	second := base.bind(map[string]RunFunc{"save": runIn("second")})
	for _, tc := range []struct {
		name string
		reg  *Registry
		want string // "" for no Run
	}{
		{"first", first, "first"},
		{"second", second, "second"},
		{"the base keeps no Run", base, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, ok := tc.reg.Get("save")
			if !ok {
				t.Fatal("save is gone")
			}
			if !spec.Runnable() {
				if tc.want != "" {
					t.Fatalf("save has no Run, want one running in %s", tc.want)
				}
				return
			}
			if tc.want == "" {
				t.Fatal("binding another registry gave this one a Run")
			}
			if got, _ := spec.Run(ctx, ToolUse{Tool: "save"}); got != tc.want {
				t.Errorf("save runs in %q, want %q", got, tc.want)
			}
			// The block type names the same bound spec.
			if byBlock, _ := tc.reg.Get("save"); byBlock != spec {
				t.Error("the block type and the name give different specs")
			}
		})
	}
	if diff := cmp.Diff(names(base), names(first)); diff != "" {
		t.Errorf("Bind changed the tools (-base +bound):\n%s", diff)
	}
	if _, ok := first.Get("not-here"); ok {
		t.Error("Bind added a tool the registry does not hold")
	}
	// A selected registry keeps the Run it was bound with.
	sel, _, err := first.Select([]string{"save"})
	if err != nil {
		t.Fatal(err)
	}
	if spec, _ := sel.Get("save"); !spec.Runnable() {
		t.Error("Select dropped the Run")
	}
	if ref, ok := first.Lookup("ipython"); !ok || ref.Name != "ipython" {
		t.Errorf("a bound registry does not resolve block types: %+v %v", ref, ok)
	}
	if ref, ok := first.Lookup("py"); !ok || ref.Name != "ipython" {
		t.Errorf("py: %+v %v", ref, ok)
	}
}
