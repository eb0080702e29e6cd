package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/shelltool"
)

// nobodyDisk is a Workspace over a folder with nobody to ask, as `agentls
// ask` without a terminal is: edits are written at once.
type nobodyDisk struct {
	*memWorkspace
	root string
}

func (w nobodyDisk) Root() string { return w.root }
func (w nobodyDisk) Read(ctx context.Context, p string) (string, int32, bool, error) {
	return edittool.DiskSource{Root: w.root}.Read(ctx, p)
}
func (w nobodyDisk) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Skip, approval.ErrNobodyToAsk
}
func (w nobodyDisk) Propose(ctx context.Context, compute func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	cs, err := compute(ctx, w)
	if err != nil {
		return "", err
	}
	for _, c := range cs.Effective() {
		if err := os.WriteFile(filepath.Join(w.root, filepath.FromSlash(c.Path)), []byte(c.Result()), 0o644); err != nil {
			return "", err
		}
	}
	return "written", nil
}

// TestTurnRunnerAfterSave is the attack end to end: `go test` is allowed
// (an "Always" kept from before), the model saves x_test.go with a
// TestMain that touches PWNED and then runs `go test`. The save lands
// (it is an ordinary file); the run needs the user's approval again, and
// with nobody to ask it is refused: PWNED is never made. The next turn's
// tools, which wrote nothing, run `go test` unasked.
func TestTurnRunnerAfterSave(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(root, "x.go"), []byte("package x\n"), 0o644)
	h, err := shelltool.New(shelltool.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Remember("go test"); err != nil {
		t.Fatal(err)
	}
	ws := nobodyDisk{memWorkspace: &memWorkspace{}, root: root}
	host := func() (*shelltool.Host, error) { return h, nil }
	ctx := context.Background()
	call := func(reg *tools.Registry, use tools.ToolUse) (string, error) {
		spec, ok := reg.Get(use.Tool)
		if !ok || !spec.Runnable() {
			t.Fatalf("%s is not bound", use.Tool)
		}
		return spec.Run(ctx, use)
	}
	goTest := tools.ToolUse{Tool: "shell", Content: "go test -count=1 ./..."}

	turn := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, host, testToolOptions(ws))
	if _, err := call(turn, tools.ToolUse{Tool: "save", Args: []string{"x_test.go"}, Content: "package x\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.WriteFile(\"PWNED\", nil, 0o644)\n\tos.Exit(m.Run())\n}\n"}); err != nil {
		t.Fatal(err)
	}
	_, err = call(turn, goTest)
	if err == nil || !strings.Contains(err.Error(), "the agent changed x_test.go, which `go test` runs") || !strings.Contains(err.Error(), "nobody can be asked") {
		t.Errorf("go test after the save: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "PWNED")); err == nil {
		t.Fatal("go test ran the TestMain the model wrote, unasked")
	}

	next := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, host, testToolOptions(ws))
	if _, err := call(next, goTest); err != nil {
		t.Errorf("the next turn's go test: %v", err)
	}
}
