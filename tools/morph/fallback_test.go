package morph_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/morph"
)

const placeholderPatch = `<<<<<<< ORIGINAL
func b() int {
// ...
	return x
}
=======
func b() int {
// ...
	y := 2
	return x + y
}
>>>>>>> UPDATED`

// failingPatch stands for the patch tool when the hunk cannot be placed.
func failingPatch(context.Context, tools.ToolUse) (string, error) {
	return "", errors.New("patch p.go: hunk 1/1: no match for the piece after \"// ...\"")
}

// TestPatchFallback: a patch whose placeholder hunk cannot be placed
// goes to the apply model as a lazy edit; its faithful merge lands and
// the model reads both what failed and what the merge did. A merge that
// changes more (a function dropped) is refused, and the patch's own
// error comes back with the merge's reason; a patch with no placeholder
// never reaches the apply model.
func TestPatchFallback(t *testing.T) {
	use := tools.ToolUse{Tool: "patch", Args: []string{"p.go"}, Content: placeholderPatch}
	t.Run("placed by the apply model", func(t *testing.T) {
		ws, name := setup(t)
		srv := modeltest.New(modeltest.Text(merged, 64))
		defer srv.Close()
		out, err := morph.PatchFallback(failingPatch, ws, options(srv.URL))(context.Background(), use)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "could not be placed as written (patch p.go: hunk 1/1") || !strings.Contains(out, "Merged the edit into p.go") {
			t.Errorf("message %q", out)
		}
		if got := fileText(t, name); got != merged {
			t.Errorf("file:\n%s", got)
		}
		user := srv.Requests()[0].Body.Messages[1].Content
		if !strings.Contains(user, "<update>// ... existing code ...\nfunc b() int {\n// ...\n\ty := 2\n\treturn x + y\n}\n// ... existing code ...\n</update>") {
			t.Errorf("the lazy edit sent: %q", user)
		}
	})
	t.Run("a hallucinated merge refused", func(t *testing.T) {
		ws, name := setup(t)
		srv := modeltest.New(modeltest.Text(strings.Replace(merged, "func a() {\n\tfmt.Println(\"a\")\n}\n", "", 1), 64))
		defer srv.Close()
		_, err := morph.PatchFallback(failingPatch, ws, options(srv.URL))(context.Background(), use)
		if err == nil || !strings.Contains(err.Error(), "hunk 1/1: no match") || !strings.Contains(err.Error(), "could not: morph p.go: the apply model's merge was refused") {
			t.Fatalf("err = %v", err)
		}
		if got := fileText(t, name); got != original {
			t.Errorf("file changed:\n%s", got)
		}
	})
	t.Run("no placeholder: the patch's error alone", func(t *testing.T) {
		ws, _ := setup(t)
		asked := false
		opts := morph.Options{Complete: func(context.Context, morph.Request) (string, error) { asked = true; return merged, nil }}
		plain := tools.ToolUse{Tool: "patch", Args: []string{"p.go"}, Content: "<<<<<<< ORIGINAL\n\treturn y\n=======\n\treturn z\n>>>>>>> UPDATED"}
		_, err := morph.PatchFallback(failingPatch, ws, opts)(context.Background(), plain)
		if err == nil || asked {
			t.Errorf("err %v, apply model asked %v", err, asked)
		}
	})
}
