package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/shelltool"
)

// TestTurnShellFailsPartway: a shell block whose first commands ran
// (a.txt is written) before it failed. The model's next request carries
// what the block printed and is not told that nothing was changed. The
// second case fails with an error of the tool (its job cannot start
// after the first step ran): the old loop dropped the output and said
// "Nothing was changed by this call".
func TestTurnShellFailsPartway(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		prepare     func(*shelltool.Host)
		want        []string
	}{
		{name: "a command fails", block: "echo one > a.txt; echo printed; false_cmd_that_fails",
			want: []string{"printed", "false_cmd_that_fails: command not found", "127"}},
		{name: "the tool fails after a step ran", block: "echo one > a.txt; echo printed\nbg sleep 30",
			prepare: func(h *shelltool.Host) { h.Jobs().Close() },
			want:    []string{"Error from shell", "printed", "Part of this call ran before it failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			h, err := shelltool.New(shelltool.Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if tc.prepare != nil {
				tc.prepare(h)
			}
			srv := modeltest.New(modeltest.Text("```shell\n"+tc.block+"\n```\n", 100), modeltest.Text("done", 100))
			defer srv.Close()
			ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: root}
			bound := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, func() (*shelltool.Host, error) { return h, nil }, testToolOptions(ws))
			turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
			if _, err := turn.Run(context.Background(), Request{Prompt: "write a.txt"}); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(filepath.Join(root, "a.txt")); err != nil || string(data) != "one\n" {
				t.Fatalf("a.txt = %q, %v: the first command did not run", data, err)
			}
			msg := srv.Requests()[1].Body.Messages[3].Content
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("the model was told %q; want it to hold %q", msg, want)
				}
			}
			if strings.Contains(msg, "Nothing was changed") {
				t.Errorf("the model was told %q: that nothing was changed, after a.txt was written", msg)
			}
		})
	}
}

// TestTurnEditRefusedAtomically: a patch that does not apply is refused
// before anything is written: the model is told nothing was changed.
func TestTurnEditRefusedAtomically(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\nnot there\n=======\ny\n>>>>>>> UPDATED\n```\n", 100),
		modeltest.Text("done", 100),
	)
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"a.go": "package a\n"}}
	bound := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, func() (*shelltool.Host, error) { return nil, nil }, testToolOptions(ws))
	turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "x"}); err != nil {
		t.Fatal(err)
	}
	msg := srv.Requests()[1].Body.Messages[3].Content
	if !strings.Contains(msg, "Error from patch a.go") || !strings.Contains(msg, "Nothing was changed by this call") {
		t.Errorf("the model was told %q; want the error, and that nothing was changed", msg)
	}
	if ws.files["a.go"] != "package a\n" {
		t.Errorf("a.go = %q after a refused patch", ws.files["a.go"])
	}
}

// TestTurnFailedResult: what the model reads of a failed call follows
// what the tool says it left behind, and keeps what it printed.
func TestTurnFailedResult(t *testing.T) {
	boom := errors.New("boom")
	refusal := approval.Say(&approval.Refusal{Reason: approval.Declined, Question: approval.Question{Action: "x"}},
		func(*approval.Refusal) string { return "the user declined to run `x`" })
	for _, tc := range []struct {
		name    string
		output  string
		err     error
		want    []string
		notSaid []string
	}{
		{name: "unchanged", err: tools.Unchanged(boom),
			want: []string{"Error from shell: boom", "Nothing was changed by this call"}, notSaid: []string{"printed before"}},
		{name: "partly changed", output: "step 1 done", err: tools.PartlyChanged(boom),
			want: []string{"step 1 done", "Part of this call ran before it failed"}, notSaid: []string{"Nothing was changed"}},
		{name: "unknown, with output", output: "half", err: boom,
			want: []string{"half", "Some of it may have run"}, notSaid: []string{"Nothing was changed"}},
		{name: "unknown, no output", err: boom,
			want: []string{"Error from shell: boom", "Correct it and call again"}, notSaid: []string{"Nothing was changed", "may have run"}},
		{name: "an approval refused", err: refusal,
			want: []string{"the user declined to run `x`", "Nothing was changed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text("```shell\nx\n```\n", 100), modeltest.Text("done", 100))
			defer srv.Close()
			runner := &recordingRunner{answer: func(tools.ToolUse) (string, error) { return tc.output, tc.err }}
			if _, err := newTurn(t, srv, tools.FormatMarkdown, runner).Run(context.Background(), Request{Prompt: "x"}); err != nil {
				t.Fatal(err)
			}
			msg := srv.Requests()[1].Body.Messages[3].Content
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("the model was told %q; want it to hold %q", msg, want)
				}
			}
			for _, not := range tc.notSaid {
				if strings.Contains(msg, not) {
					t.Errorf("the model was told %q; want no %q", msg, not)
				}
			}
		})
	}
}
