package morph_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/morph"
)

// diskWorkspace applies each proposed batch to the files under root, as
// agentls ask does.
type diskWorkspace struct{ root string }

func (w diskWorkspace) Root() string          { return w.root }
func (w diskWorkspace) PrivateDirs() []string { return nil }
func (w diskWorkspace) Read(ctx context.Context, p string) (string, int32, bool, error) {
	return edittool.DiskSource{Root: w.root}.Read(ctx, p)
}
func (w diskWorkspace) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Skip, approval.ErrNobodyToAsk
}
func (w diskWorkspace) Output(string, []byte) {}
func (w diskWorkspace) Propose(ctx context.Context, compute func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	cs, err := compute(ctx, edittool.DiskSource{Root: w.root})
	if err != nil {
		return "", err
	}
	if err := edits.ApplyToDisk(w.root, &cs); err != nil {
		return "", err
	}
	return "Written to disk", nil
}

const original = `package p

import "fmt"

func a() {
	fmt.Println("a")
}

func b() int {
	x := 1
	return x
}

func c() {
	fmt.Println("c")
}
`

const lazyEdit = `// ... existing code ...
func b() int {
	x := 1
	y := 2
	return x + y
}
// ... existing code ...`

var merged = strings.Replace(original, "\tx := 1\n\treturn x\n", "\tx := 1\n\ty := 2\n\treturn x + y\n", 1)

func setup(t *testing.T) (diskWorkspace, string) {
	t.Helper()
	root := t.TempDir()
	name := filepath.Join(root, "p.go")
	if err := os.WriteFile(name, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	return diskWorkspace{root: root}, name
}

func options(url string) morph.Options {
	cfg := agent.ModelConfig{BaseURL: url, Model: "morph-v3-fast", APIKeyEnv: "MORPH_KEY", Retries: -1, ChunkTimeout: 30 * time.Second}
	return morph.Options{Complete: agent.ApplyModel(cfg, func(k string) string {
		if k == "MORPH_KEY" {
			return "key-1"
		}
		return ""
	}), Model: cfg.Model}
}

func call(ctx context.Context, ws diskWorkspace, opts morph.Options, edit string) (string, error) {
	use := tools.ToolUse{Tool: "morph", Args: []string{"p.go"}, Content: edit}
	return morph.Tool(opts).Bind(tools.Env{Workspace: ws})(ctx, use)
}

func fileText(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestMorphMerges: the apply model's faithful merge lands, and the
// model was asked in Morph's <code>…</code><update>…</update> convention
// with the key of apiKeyEnv.
func TestMorphMerges(t *testing.T) {
	ws, name := setup(t)
	srv := modeltest.New(modeltest.Text("```go\n"+merged+"```", 40))
	defer srv.Close()
	out, err := call(context.Background(), ws, options(srv.URL), lazyEdit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Merged the edit into p.go (+2 -1 lines)") {
		t.Errorf("message: %q", out)
	}
	if got := fileText(t, name); got != merged {
		t.Errorf("file:\n%s\nwant:\n%s", got, merged)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	user := reqs[0].Body.Messages[len(reqs[0].Body.Messages)-1].Content
	if !strings.Contains(user, "<code>"+original+"</code>\n<update>"+lazyEdit+"</update>") || reqs[0].Authorization != "Bearer key-1" || reqs[0].Body.Model != "morph-v3-fast" {
		t.Errorf("request: %+v", reqs[0])
	}
}

// TestMorphRefusesHallucination: the apply model answers with the edit
// merged but something else changed too — a function dropped elsewhere,
// an unrelated line rewritten. Each is refused with its diff, and the
// file is left as it was.
func TestMorphRefusesHallucination(t *testing.T) {
	cases := []struct {
		name, answer, says, diff string
	}{
		{"drops a function elsewhere", strings.Replace(merged, "func c() {\n\tfmt.Println(\"c\")\n}\n", "", 1), "deletes the original's line 14", "-func c() {"},
		{"rewrites an unrelated line", strings.Replace(merged, `fmt.Println("a")`, `fmt.Println("A")`, 1), "changes a line the edit does not name", `+	fmt.Println("A")`},
		{"garbage instead of code", "Sure! I merged it for you.", "does not hold piece 1", "+Sure! I merged it for you."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, name := setup(t)
			srv := modeltest.New(modeltest.Text(c.answer, 64))
			defer srv.Close()
			_, err := call(context.Background(), ws, options(srv.URL), lazyEdit)
			if err == nil {
				t.Fatal("a hallucinated merge was taken")
			}
			for _, want := range []string{c.says, c.diff, "Nothing was changed", "--- a/p.go"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not say %q:\n%v", want, err)
				}
			}
			if got := fileText(t, name); got != original {
				t.Errorf("the file changed:\n%s", got)
			}
		})
	}
}

// TestMorphFileChangedMeanwhile: the file changes while the apply model
// merges (the user typed, another call edited it); the merge, made of the
// old text, is refused and the new text stays.
func TestMorphFileChangedMeanwhile(t *testing.T) {
	ws, name := setup(t)
	meanwhile := strings.Replace(original, `"c"`, `"typed meanwhile"`, 1)
	srv := modeltest.NewFunc(func(modeltest.Request) modeltest.Reply {
		if err := os.WriteFile(name, []byte(meanwhile), 0o644); err != nil {
			t.Error(err)
		}
		return modeltest.Text(merged, 64)
	})
	defer srv.Close()
	_, err := call(context.Background(), ws, options(srv.URL), lazyEdit)
	if err == nil || !strings.Contains(err.Error(), "changed while the apply model merged") {
		t.Fatalf("err = %v", err)
	}
	if got := fileText(t, name); got != meanwhile {
		t.Errorf("file:\n%s", got)
	}
}

// TestMorphModelFailures: the apply model unreachable, failing, or
// answering what is not a completion: each a clear tool error, the file
// untouched.
func TestMorphModelFailures(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/v1"
	down.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {not json\n\n"))
	}))
	defer garbage.Close()
	failing := modeltest.New(modeltest.Reply{Status: 401, Message: "bad key"})
	defer failing.Close()
	empty := modeltest.New(modeltest.Text("   ", 8))
	defer empty.Close()
	cases := []struct{ name, url, says string }{
		{"server down", downURL, "unreachable"},
		{"garbage stream", garbage.URL + "/v1", "the apply model morph-v3-fast failed"},
		{"key refused", failing.URL, "refused the API key"},
		{"empty answer", empty.URL, "answered no code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, name := setup(t)
			_, err := call(context.Background(), ws, options(c.url), lazyEdit)
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "nothing was changed") && !strings.Contains(err.Error(), "Nothing was changed") {
				t.Fatalf("err = %v, want it to say %q and that nothing changed", err, c.says)
			}
			if got := fileText(t, name); got != original {
				t.Errorf("the file changed")
			}
		})
	}
}

// TestMorphBadCalls: calls refused before the apply model is asked.
func TestMorphBadCalls(t *testing.T) {
	ws, _ := setup(t)
	asked := false
	opts := morph.Options{Complete: func(context.Context, morph.Request) (string, error) { asked = true; return merged, nil }}
	cases := []struct {
		opts       morph.Options
		path, edit string
		says       string
	}{
		{morph.Options{}, "p.go", lazyEdit, "no apply model is configured"},
		{opts, "", lazyEdit, "no path given"},
		{opts, "p.go", "func b() int {\n\treturn 2\n}", "has no \"// ... existing code ...\" marker"},
		{opts, "missing.go", lazyEdit, "no such file"},
		{opts, "../outside.go", lazyEdit, "outside"},
	}
	for _, c := range cases {
		_, err := morph.Tool(c.opts).Bind(tools.Env{Workspace: ws})(context.Background(), tools.ToolUse{Tool: "morph", Kwargs: map[string]any{"path": c.path, "edit": c.edit}})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %q: err = %v, want %q", c.path, c.edit, err, c.says)
		}
	}
	if asked {
		t.Error("the apply model was asked about a call refused beforehand")
	}
}
