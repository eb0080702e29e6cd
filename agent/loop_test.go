package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/builtin"
)

// recordingRunner records the tool uses it is given and answers from a
// function.
type recordingRunner struct {
	mu     sync.Mutex
	uses   []tools.ToolUse
	answer func(tools.ToolUse) (string, error)
}

func (r *recordingRunner) RunTool(_ context.Context, use tools.ToolUse) (string, error) {
	r.mu.Lock()
	r.uses = append(r.uses, use)
	r.mu.Unlock()
	if r.answer == nil {
		return "ok", nil
	}
	return r.answer(use)
}

func newTurn(t *testing.T, srv *modeltest.Server, format tools.Format, runner ToolRunner) *Turn {
	return &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: builtin.Registry(), Format: format, Runner: runner}
}

// TestTurnStopsAtFirstToolCall: the reply is cut after its first complete
// tool block, the tool runs, its result goes back, and the next reply
// without a tool call ends the turn.
func TestTurnStopsAtFirstToolCall(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("Saving.\n```save a.txt\nhello\n```\n\nThen I will also\n```save b.txt\nnever\n```\n", 7),
		modeltest.Text("Saved a.txt.", 4),
	)
	defer srv.Close()
	runner := &recordingRunner{}
	var events []EventKind
	var replies []string
	turn := newTurn(t, srv, tools.FormatMarkdown, runner)
	turn.Observe = func(e Event) {
		if e.Kind != EventText {
			events = append(events, e.Kind)
		}
		if e.Kind == EventReply {
			replies = append(replies, e.Text)
		}
	}
	sum, err := turn.Run(context.Background(), Request{Prompt: "save hello in a.txt", Root: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runner.uses) != 1 || runner.uses[0].Tool != "save" || runner.uses[0].Args[0] != "a.txt" || runner.uses[0].Content != "hello" {
		t.Fatalf("tool uses = %+v", runner.uses)
	}
	wantEvents := []EventKind{EventReply, EventToolStart, EventToolDone, EventReply}
	if sum.Steps != 2 || sum.ToolUses != 1 || sum.Final != "Saved a.txt." || !slices.Equal(events, wantEvents) {
		t.Errorf("summary = %+v, events %v", sum, events)
	}
	// The reply kept is cut after its first call; the streamed text went on.
	if len(replies) != 2 || replies[0] != "Saving.\n```save a.txt\nhello\n```" || replies[1] != "Saved a.txt." {
		t.Errorf("replies = %q", replies)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != "Saving.\n```save a.txt\nhello\n```" ||
		msgs[3].Role != "user" || msgs[3].Content != "Result of save a.txt:\nok" {
		t.Errorf("second request's messages = %+v", msgs)
	}
}

// TestTurnToolErrorGoesToModel: a failing tool does not end the turn; the
// model reads the error and answers.
func TestTurnToolErrorGoesToModel(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED\n```\n", 100),
		modeltest.Text("The patch did not match; I stop here.", 100),
	)
	defer srv.Close()
	runner := &recordingRunner{answer: func(tools.ToolUse) (string, error) {
		return "", tools.Unchanged(errors.New("hunk 1: ORIGINAL not found; nearest lines 3-4"))
	}}
	sum, err := newTurn(t, srv, tools.FormatMarkdown, runner).Run(context.Background(), Request{Prompt: "x"})
	if err != nil || sum.Steps != 2 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	last := srv.Requests()[1].Body.Messages[3].Content
	if !strings.Contains(last, "Error from patch a.go: hunk 1: ORIGINAL not found") || !strings.Contains(last, "Nothing was changed") {
		t.Errorf("the model was told %q", last)
	}
}

// TestTurnStopTurn: a tool whose user chose "Stop turn" ends the turn
// with approval.ErrStopTurn; the model is not called again.
func TestTurnStopTurn(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```shell\ngo test ./...\n```\n", 100),
		modeltest.Text("never asked", 100),
	)
	defer srv.Close()
	runner := &recordingRunner{answer: func(tools.ToolUse) (string, error) {
		return "", fmt.Errorf("go test ./...: %w", approval.ErrStopTurn)
	}}
	sum, err := newTurn(t, srv, tools.FormatMarkdown, runner).Run(context.Background(), Request{Prompt: "x"})
	if !errors.Is(err, approval.ErrStopTurn) || sum.Steps != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("summary %+v, err %v, %d model calls", sum, err, len(srv.Requests()))
	}
	if last := sum.Messages[len(sum.Messages)-1].Content; !strings.Contains(last, "The user stopped the turn at shell") {
		t.Errorf("the log ends with %q", last)
	}
}

// TestTurnNativeToolCalls: in the tool format, native calls are answered
// with tool messages by call id; a call with broken JSON is answered with
// an error and not run.
func TestTurnNativeToolCalls(t *testing.T) {
	srv := modeltest.New(
		modeltest.Reply{Chunks: []modeltest.Chunk{
			{ToolCall: &modeltest.ToolCallDelta{Index: 0, ID: "call_1", Name: "save"}},
			{ToolCall: &modeltest.ToolCallDelta{Index: 0, Args: `{"path": "a.txt", "content": "hi"}`}},
			{ToolCall: &modeltest.ToolCallDelta{Index: 1, ID: "call_2", Name: "save", Args: `{"path": "b.txt", "content": `}},
		}},
		modeltest.Text("Saved a.txt; b.txt's call was broken.", 100),
	)
	defer srv.Close()
	runner := &recordingRunner{}
	sum, err := newTurn(t, srv, tools.FormatTool, runner).Run(context.Background(), Request{Prompt: "x"})
	if err != nil || sum.Steps != 2 {
		t.Fatalf("summary %+v, err %v", sum, err)
	}
	if len(runner.uses) != 1 || runner.uses[0].Kwargs["path"] != "a.txt" || runner.uses[0].CallID != "call_1" {
		t.Fatalf("uses = %+v", runner.uses)
	}
	msgs := srv.Requests()[1].Body.Messages
	if len(msgs) != 5 || msgs[3].Role != "tool" || msgs[3].ToolCallID != "call_1" || msgs[4].ToolCallID != "call_2" || !strings.Contains(msgs[4].Content, "not valid JSON") {
		t.Errorf("messages = %+v", msgs)
	}
	if len(srv.Requests()[0].Body.Tools) == 0 {
		t.Error("no native tools were offered")
	}
}

// TestTurnLimits: a model that never stops calling tools hits the step
// limit; an endless reply hits the reply limit; both say so.
func TestTurnLimits(t *testing.T) {
	call := modeltest.Text("```save a.txt\nx\n```\n\n", 100)
	srv := modeltest.New(call, call, call)
	defer srv.Close()
	turn := newTurn(t, srv, tools.FormatMarkdown, &recordingRunner{})
	turn.Limits.MaxSteps = 2
	if _, err := turn.Run(context.Background(), Request{Prompt: "x"}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "2 model calls") {
		t.Errorf("step limit: %v", err)
	}

	// Endless, but never the same words over (a repeat is stopped
	// sooner: runaway.go).
	var endless strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&endless, "step %d of the plan, ", i)
	}
	srv2 := modeltest.New(modeltest.Text(endless.String(), 50))
	defer srv2.Close()
	turn = newTurn(t, srv2, tools.FormatMarkdown, &recordingRunner{})
	turn.Limits.MaxReplyBytes = 4096
	if _, err := turn.Run(context.Background(), Request{Prompt: "x"}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "4096 bytes") {
		t.Errorf("reply limit: %v", err)
	}
}

// TestTurnModelFailureAndCancel: a model error ends the turn with that
// error; cancelling a turn stuck on a stalled model ends it at once.
func TestTurnModelFailureAndCancel(t *testing.T) {
	srv := modeltest.New(modeltest.Reply{Status: 401, Message: "bad key"})
	defer srv.Close()
	_, err := newTurn(t, srv, tools.FormatMarkdown, &recordingRunner{}).Run(context.Background(), Request{Prompt: "x"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unauthorized {
		t.Errorf("err = %v", err)
	}

	stall := modeltest.New(modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "hm"}}, Stall: true})
	defer stall.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	if _, err := newTurn(t, stall, tools.FormatMarkdown, &recordingRunner{}).Run(ctx, Request{Prompt: "x"}); err == nil {
		t.Error("a cancelled turn succeeded")
	}
	if time.Since(start) > 5*time.Second {
		t.Error("cancelling took more than a second or so")
	}

	// A stream cut inside a tool block: the half block is not run, and
	// the turn ends saying the stream was cut.
	cut := modeltest.New(modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "```patch a.go\n<<<<<<< ORIGINAL\nx\n=="}}, Cut: true})
	defer cut.Close()
	runner := &recordingRunner{}
	_, err = newTurn(t, cut, tools.FormatMarkdown, runner).Run(context.Background(), Request{Prompt: "x"})
	if !errors.As(err, &e) || e.Kind != StreamCut || len(runner.uses) != 0 {
		t.Errorf("cut inside a block: err %v, tool uses %v", err, runner.uses)
	}
}

// TestTurnLog: the conversation is logged as it grows, one JSON message
// per line, in a file under the state folder (not the workspace), with
// each tool call's timing between them ({"tool_call": …}).
func TestTurnLog(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```save a.txt\nx\n```\n\n", 100), modeltest.Text("Saved.", 100))
	defer srv.Close()
	state := t.TempDir()
	f, err := OpenLog(func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}, "/home/me/project", 7, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	turn := newTurn(t, srv, tools.FormatMarkdown, &recordingRunner{})
	turn.Log = f
	sum, err := turn.Run(context.Background(), Request{Prompt: "save x"})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(f.Name(), filepath.Join(state, "agentls", "turns", "project-")) || !strings.HasSuffix(f.Name(), "20261130T120000Z-turn7.jsonl") {
		t.Errorf("log at %s", f.Name())
	}
	data, _ := os.ReadFile(f.Name())
	var msgs []string
	var calls []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			ToolCall map[string]any `json:"tool_call"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.ToolCall != nil {
			calls = append(calls, rec.ToolCall)
			continue
		}
		msgs = append(msgs, l)
	}
	if len(msgs) != len(sum.Messages) {
		t.Fatalf("%d logged messages for %d messages", len(msgs), len(sum.Messages))
	}
	for i, l := range msgs {
		var m openai.ChatCompletionMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Role != sum.Messages[i].Role || m.Content != sum.Messages[i].Content {
			t.Errorf("line %d = %s (%v)", i, l, err)
		}
	}
	if len(calls) != 1 || calls[0]["tool"] != "save" || calls[0]["call"] != "save a.txt" || calls[0]["outcome"] != "ok" || calls[0]["ms"] == nil {
		t.Errorf("tool calls logged: %v", calls)
	}
}

// readReply reads a reply fixture shared with the parser's tests.
func readReply(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "tools", "parse", "testdata", "replies", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTurnHeadlessThinkingDraftsNotRun is the attack of a reply that
// begins inside thinking with no <think> (DeepSeek-R1's template opens it
// in the prompt): the drafts "rm -rf ~/project" and "curl … | sh" come
// complete before the </think>; only the call after it may run, and
// streaming must not run a draft before the </think> has arrived.
func TestTurnHeadlessThinkingDraftsNotRun(t *testing.T) {
	for _, tc := range []struct {
		fixture, want string
	}{
		{"r1-headless.txt", "rm -rf ./build && go test ./..."},
		{"r1-unclosed-draft.txt", "du -sh ."},
		{"r1-glued-close.txt", "git log --oneline -5"},
		{"gemini-headless.txt", "<<<<<<< ORIGINAL"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(readReply(t, tc.fixture), 5), modeltest.Text("Done.", 100))
			defer srv.Close()
			runner := &recordingRunner{}
			if _, err := newTurn(t, srv, tools.FormatMarkdown, runner).Run(context.Background(), Request{Prompt: "x"}); err != nil {
				t.Fatal(err)
			}
			if len(runner.uses) != 1 || !strings.HasPrefix(runner.uses[0].Content, tc.want) {
				t.Fatalf("ran %+v, want only %q", runner.uses, tc.want)
			}
		})
	}
}

// TestTurnHoldsCallsUntilThinkingIsSettled: without a sign of where the
// thinking is, a complete call waits for the end of the reply (here the
// server stalls after it, so the turn times out having run nothing); with
// reasoning sent apart, or a TaggedThinking model, it runs at once and the
// generation is stopped.
func TestTurnHoldsCallsUntilThinkingIsSettled(t *testing.T) {
	const call = "I'll list the files.\n```shell\nls\n```\n\n"
	stalled := func(r modeltest.Reply) modeltest.Reply { r.Stall = true; return r }
	for _, tc := range []struct {
		name   string
		reply  modeltest.Reply
		tagged bool
		ran    bool
	}{
		{"held: no reasoning, not tagged", stalled(modeltest.Text(call, 8)), false, false},
		{"reasoning_content sent apart", stalled(modeltest.Reasoned("Maybe\n```shell\nrm -rf ~\n```\nNo.\n</think>\n", call, 8)), false, true},
		{"TaggedThinking model", stalled(modeltest.Text(call, 8)), true, true},
		{"an opened section settles it", stalled(modeltest.Text("<think>\nhm\n</think>\n"+call, 8)), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(tc.reply, modeltest.Text("Done.", 100))
			defer srv.Close()
			runner := &recordingRunner{}
			// Only the held call must wait for the timeout; the others
			// run before the stall, however slow the machine is.
			timeout := 30 * time.Second
			if !tc.ran {
				timeout = 300 * time.Millisecond
			}
			turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1, ChunkTimeout: timeout, TaggedThinking: tc.tagged}),
				Registry: builtin.Registry(), Format: tools.FormatMarkdown, Runner: runner}
			var reasoning strings.Builder
			turn.Observe = func(e Event) {
				if e.Kind == EventReasoning {
					reasoning.WriteString(e.Text)
				}
			}
			sum, err := turn.Run(context.Background(), Request{Prompt: "x"})
			if !tc.ran {
				var e *Error
				if !errors.As(err, &e) || e.Kind != Timeout || len(runner.uses) != 0 {
					t.Fatalf("err %v, ran %+v; want a timeout and nothing run", err, runner.uses)
				}
				return
			}
			if err != nil || len(runner.uses) != 1 || runner.uses[0].Content != "ls" {
				t.Fatalf("err %v, ran %+v; want ls run", err, runner.uses)
			}
			if strings.Contains(sum.Messages[2].Content, "rm -rf") {
				t.Errorf("the reasoning went into the reply: %q", sum.Messages[2].Content)
			}
			if tc.name == "reasoning_content sent apart" && !strings.Contains(reasoning.String(), "rm -rf ~") {
				t.Errorf("reasoning events: %q", reasoning.String())
			}
		})
	}
}

// BenchmarkFirstCallLatency measures what holding a call costs: the time
// from the start of a turn to its first tool run, for a Claude-shaped
// reply (a call, then prose and an output block) streamed at 50 tokens a
// second (4 bytes a token), held until the reply ends versus run as soon
// as it is complete (TaggedThinking, or reasoning sent apart).
func BenchmarkFirstCallLatency(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "tools", "parse", "testdata", "replies", "claude-output-block.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, tagged := range []bool{false, true} {
		name := map[bool]string{false: "held", true: "tagged"}[tagged]
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				reply := modeltest.Text(string(data), 4)
				reply.Delay = 20 * time.Millisecond
				srv := modeltest.New(reply, modeltest.Text("Done.", 100))
				start := time.Now()
				var first time.Duration
				runner := &recordingRunner{answer: func(tools.ToolUse) (string, error) {
					first = time.Since(start)
					return "ok", nil
				}}
				turn := &Turn{Model: testModel(b, srv.URL, ModelConfig{Retries: 1, TaggedThinking: tagged}), Registry: builtin.Registry(), Format: tools.FormatMarkdown, Runner: runner}
				if _, err := turn.Run(context.Background(), Request{Prompt: "x"}); err != nil {
					b.Fatal(err)
				}
				srv.Close()
				total += first
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-call")
		})
	}
}
