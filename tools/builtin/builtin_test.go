package builtin

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/parse"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestSpecsAreValid(t *testing.T) {
	r, err := tools.NewRegistry(Specs()...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"append", "apply_patch", "browser", "delete", "move", "ipython", "patch", "patch_anchored", "patch_many", "read", "save", "shell", "tmux", "view_anchored", "view_image", "morph", "subagent", "rag", "screenshot", "computer"}
	var got []string
	for _, s := range r.All() {
		got = append(got, s.Name)
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("built-in tools (-want +got):\n%s", diff)
	}
	for _, s := range r.All() {
		var schema map[string]any
		if err := json.Unmarshal(s.Schema().Parameters, &schema); err != nil {
			t.Errorf("%s: schema is not JSON: %v", s.Name, err)
		}
	}
}

// TestExamplesRoundTrip renders every example call in every format and
// parses it back: what the model is shown must be what the parser reads.
func TestExamplesRoundTrip(t *testing.T) {
	reg := Registry()
	for _, format := range tools.AllFormats() {
		for _, s := range reg.All() {
			for _, ex := range s.Examples {
				for _, st := range ex.Steps {
					if st.Call == nil {
						continue
					}
					text := s.RenderCall(*st.Call, format, "call_1")
					if st.Call.Tool != s.Name {
						other, _ := reg.Get(st.Call.Tool)
						text = other.RenderCall(*st.Call, format, "call_1")
					}
					uses := parse.ToolUses(text, parse.Options{Format: format, Lookup: reg.Lookup})
					if len(uses) != 1 {
						t.Errorf("%s/%s: %d tool uses parsed from\n%s", format, s.Name, len(uses), text)
						continue
					}
					spec, _ := reg.Get(uses[0].Tool)
					if spec == nil {
						t.Errorf("%s/%s: parsed tool %q is not registered", format, s.Name, uses[0].Tool)
						continue
					}
					want := spec.NamedArgs(*st.Call)
					if diff := cmp.Diff(want, spec.NamedArgs(uses[0])); diff != "" {
						t.Errorf("%s/%s: arguments changed in the round trip (-want +got):\n%s\n%s", format, s.Name, diff, text)
					}
				}
			}
		}
	}
}

// TestPromptGolden keeps the rendered tools section of the system prompt
// in each format under review: go test ./tools/builtin -update rewrites it.
func TestPromptGolden(t *testing.T) {
	reg := Registry()
	for _, format := range tools.AllFormats() {
		t.Run(string(format), func(t *testing.T) {
			got := tools.RenderPrompt(reg, format)
			golden := filepath.Join("testdata", "prompt-"+string(format)+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("prompt differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}
