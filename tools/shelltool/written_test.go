package shelltool

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// pwnTest is a test file whose TestMain runs before any test: what an
// agent that may run `go test` unasked would write to run anything.
const pwnTest = `package x

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	os.WriteFile("PWNED", []byte("ran"), 0o644)
	os.Exit(m.Run())
}
`

// TestRunnerAsksAfterAgentWrites is the attack of a model that may run
// `go test` unasked (the user clicked "Always run `go test`" once, kept in
// the always file): it saves x_test.go with a TestMain that touches PWNED,
// then runs `go test`. The run is put to the user again, saying why and
// offering no "Always"; with nobody to ask, or declined, nothing runs.
// Once approved it runs, and the next `go test` of the turn does not ask
// until the agent writes again; a file `go test` does not run asks nothing.
func TestRunnerAsksAfterAgentWrites(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	root := t.TempDir()
	always := filepath.Join(t.TempDir(), "always")
	os.WriteFile(always, []byte("go test\n"), 0o600)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(root, "x_test.go"), []byte(pwnTest), 0o644)
	h := newHost(t, Options{Root: root, AlwaysFile: always})
	pwned := filepath.Join(root, "PWNED")
	ctx := context.Background()
	run := func(c approval.Confirmer, writes *tools.TurnWrites) error {
		_, err := runsIn(func() (*Host, error) { return h, nil }, c, writes)["shell"](ctx, shellUse("go test -count=1 ./..."))
		return err
	}
	ran := func() bool {
		_, err := os.Stat(pwned)
		return err == nil
	}

	writes := &tools.TurnWrites{}
	writes.Add("x_test.go")
	if err := run(nil, writes); err == nil || !strings.Contains(err.Error(), "nobody can be asked") || !strings.Contains(err.Error(), "the agent changed x_test.go, which `go test` runs") {
		t.Errorf("with nobody to ask: %v", err)
	}
	declining := &answerer{ans: approval.Skip}
	if err := run(declining, writes); err == nil || !strings.Contains(err.Error(), "declined") {
		t.Errorf("declined: %v", err)
	}
	stopping := &answerer{ans: approval.StopTurn}
	if err := run(stopping, writes); !errors.Is(err, approval.ErrStopTurn) {
		t.Errorf("stopped: %v", err)
	}
	if ran() {
		t.Fatal("go test ran the agent's TestMain unasked")
	}
	if q := declining.asked; len(q) != 1 || q[0].Pattern != "" || !strings.Contains(q[0].Reason, "the agent changed x_test.go, which `go test` runs") || !strings.Contains(q[0].Action, "go test") {
		t.Errorf("asked %+v", q)
	}

	approving := &answerer{ans: approval.Run}
	if err := run(approving, writes); err != nil || !ran() || approving.questions() != 1 {
		t.Fatalf("approved: %v, ran %v, %d questions", err, ran(), approving.questions())
	}
	os.Remove(pwned)
	if err := run(approving, writes); err != nil || !ran() || approving.questions() != 1 {
		t.Errorf("approved files asked again: %v, %d questions", err, approving.questions())
	}
	writes.Add("x_test.go") // written again
	if err := run(nil, writes); err == nil {
		t.Error("a file written again after the approval ran unasked")
	}

	// The allowlist holds for what the turn did not write.
	os.Remove(pwned)
	other := &tools.TurnWrites{}
	other.Add("README.md")
	if err := run(nil, other); err != nil || !ran() {
		t.Errorf("go test after a README change: %v, ran %v", err, ran())
	}
}

// TestRunnerAlwaysSaysWhatItAllows: the first question for a runner says
// what "Always" for it allows.
func TestRunnerAlwaysSaysWhatItAllows(t *testing.T) {
	h := newHost(t, Options{})
	a := &answerer{ans: approval.Skip}
	runsIn(func() (*Host, error) { return h, nil }, a, &tools.TurnWrites{})["shell"](context.Background(), shellUse("make test"))
	if len(a.asked) != 1 || a.asked[0].Pattern != "make test" || !strings.Contains(a.asked[0].Reason, "“Always” lets `make test` run unasked from now on, on your code as it is; after the agent changes a file it runs, it asks again") {
		t.Errorf("asked %+v", a.asked)
	}
}
