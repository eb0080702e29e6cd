package agent

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestRealModelReplies replays the replies a real small model (Qwen2.5-
// Coder-1.5B-Instruct on llama.cpp) gave to agentls ask on issue 30's
// everyday tasks, recorded in testdata/realmodel/*.txtar, through the fake
// model server, so that CI keeps the loop honest about the replies real
// models write without running one. Each fixture holds the prompt, the
// task's files, the replies in order (reply/N), what the turn must come
// to (expect: solved, done — ended without an error but the task not
// solved —, repeated, nothing-applied) and, when solved or done, the
// files as they must end (want/PATH).
//
// When the loop asks for more replies than were recorded, the model
// answers with its last reply again: what the real model did when told the
// same thing (issue 30: 30 identical replies), and the case the loop must
// end.
func TestRealModelReplies(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "realmodel", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fx := readFixture(t, ar)
			var mu sync.Mutex
			calls := 0
			served := map[string]int{} // how many times each reply was sent
			srv := modeltest.NewFunc(func(modeltest.Request) modeltest.Reply {
				mu.Lock()
				defer mu.Unlock()
				calls++
				reply := fx.replies[min(calls, len(fx.replies))-1]
				served[reply]++
				return modeltest.Text(reply, 16)
			})
			defer srv.Close()
			ws := &memWorkspace{files: fx.files}
			turn := compactTurn(t, srv, ws)
			turn.Limits.MaxSteps = 10
			sum, err := turn.Run(context.Background(), Request{Prompt: fx.prompt, Root: "/ws"})
			t.Logf("%d steps, %d tool calls, err %v", sum.Steps, sum.ToolUses, err)
			if testing.Verbose() {
				for _, m := range sum.Messages[2:] {
					t.Logf("--- %s:\n%s", m.Role, m.Content)
				}
			}
			switch fx.expect {
			case "solved", "done": // done: the turn ended as recorded, the task not solved
				if err != nil {
					t.Fatalf("the turn failed: %v", err)
				}
				for p, want := range fx.want {
					if got := ws.files[p]; got != want {
						t.Errorf("%s = %q, want %q", p, got, want)
					}
				}
			case "repeated":
				if !errors.Is(err, ErrRepeated) {
					t.Fatalf("err = %v, want ErrRepeated", err)
				}
				for reply, n := range served {
					if n > 3 {
						t.Errorf("the same reply was asked for %d times: %q", n, reply)
					}
				}
			case "nothing-applied":
				if !errors.Is(err, ErrNothingApplied) {
					t.Fatalf("err = %v, want ErrNothingApplied", err)
				}
				told := 0
				for _, m := range sum.Messages {
					if m.Role == "user" && strings.HasPrefix(m.Content, "Nothing was changed:") {
						told++
					}
				}
				if told != 1 {
					t.Errorf("the model was told %d times that nothing was applied; once is the rule", told)
				}
			default:
				t.Fatalf("expect: %q", fx.expect)
			}
			if fx.expect != "solved" && fx.expect != "done" {
				for p, c := range fx.original {
					if ws.files[p] != c {
						t.Errorf("%s changed by a turn that applied nothing: %q", p, ws.files[p])
					}
				}
			}
		})
	}
}

type fixture struct {
	prompt, expect string
	files          map[string]string // the workspace, changed by the turn
	original       map[string]string
	replies        []string
	want           map[string]string
}

var expectRe = regexp.MustCompile(`(?m)^expect: (\S+)$`)

func readFixture(t *testing.T, ar *txtar.Archive) fixture {
	t.Helper()
	fx := fixture{files: map[string]string{}, original: map[string]string{}, want: map[string]string{}}
	if m := expectRe.FindSubmatch(ar.Comment); m != nil {
		fx.expect = string(m[1])
	}
	for _, f := range ar.Files {
		switch name, data := f.Name, string(f.Data); {
		case name == "prompt":
			fx.prompt = strings.TrimSpace(data)
		case strings.HasPrefix(name, "files/"):
			fx.files[strings.TrimPrefix(name, "files/")] = data
			fx.original[strings.TrimPrefix(name, "files/")] = data
		case strings.HasPrefix(name, "reply/"):
			fx.replies = append(fx.replies, data)
		case strings.HasPrefix(name, "want/"):
			fx.want[strings.TrimPrefix(name, "want/")] = data
		}
	}
	if fx.prompt == "" || len(fx.replies) == 0 {
		t.Fatal("a fixture needs a prompt and at least one reply")
	}
	return fx
}
