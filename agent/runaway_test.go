package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
)

func TestRunawayTail(t *testing.T) {
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	for _, tc := range []struct {
		name, text string
		keep       int // -1: the text up to the first repeat's end, given as keepText
		keepText   string
		what       string
	}{
		{name: "one line 16 times", text: "```save a.go\n" + rep("x := 1\n", 16), keepText: "```save a.go\nx := 1\n", what: `the line "x := 1" 16 times in a row`},
		{name: "one line 15 times", text: "```save a.go\n" + rep("x := 1\n", 15)},
		{name: "two lines 8 times", text: "intro\n" + rep("a\nb\n", 8), keepText: "intro\na\nb\n", what: `the same 2 lines (from "a") 8 times in a row`},
		{name: "three lines 8 times", text: rep("a\nb\nc\n", 8) + "partial", keepText: "a\nb\nc\n", what: `the same 3 lines (from "a") 8 times in a row`},
		{name: "three lines 7 times", text: rep("a\nb\nc\n", 7)},
		{name: "blank lines", text: "a\n" + rep("\n", 40)},
		{name: "blank unit, then a line repeated", text: rep("  \nx\n", 8), keepText: "  \nx\n", what: `the same 2 lines (from "x") 8 times in a row`},
		{name: "a varied file", text: "package a\n\nfunc f() {\n\treturn\n}\n\nfunc g() {\n\treturn\n}\n"},
		{name: "no newline", text: "abc"},
		{name: "empty", text: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep, what := runawayTail(tc.text)
			if tc.keepText == "" {
				if keep != 0 {
					t.Errorf("stopped at %d (%s): want no stop", keep, what)
				}
				return
			}
			if got := tc.text[:keep]; got != tc.keepText || what != tc.what {
				t.Errorf("kept %q, %q; want %q, %q", got, what, tc.keepText, tc.what)
			}
		})
	}
}

// TestRunawayReplyStopped: a reply that writes the same line on and on
// inside its save block (the real 1.5B model at temperature 0 wrote a
// line of a Python file until the turn's time ran out) is stopped after
// sixteen repeats (or a few more: the stream's chunks hold several lines); nothing is written, the model is told what it
// repeated, and its next reply is read as usual.
func TestRunawayReplyStopped(t *testing.T) {
	count := "def count_to(n):\n    return list(range(1, n))\n"
	fixed := "def count_to(n):\n    return list(range(1, n + 1))\n"
	runaway := "```save count.py\ndef count_to(n):\n" + strings.Repeat("    return list(range(1, n + 1))\n", 5000)
	srv := modeltest.New(modeltest.Text(runaway, 40), modeltest.Text("```save count.py\n"+fixed+"```", 40), modeltest.Text("Fixed.", 10))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"count.py": count}}
	turn := compactTurn(t, srv, ws)
	if _, err := turn.Run(context.Background(), Request{Prompt: "count_to(3) in count.py returns [1, 2] but it should return [1, 2, 3]. Fix the bug.", Root: "/ws",
		Files: []FileText{{Path: "count.py", Text: numbered(count)}}}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Body.Messages
	reply, told := msgs[len(msgs)-2].Content, msgs[len(msgs)-1].Content
	if strings.Count(reply, "return list") != 1 {
		t.Errorf("the reply kept in the conversation: %q", reply)
	}
	if !regexp.MustCompile(`could not be read, so nothing was run:\n- your reply repeated the line "return list\(range\(1, n \+ 1\)\)" 1[6-9] times in a row, so it was stopped after the first`).MatchString(told) {
		t.Errorf("the model was told %q", told)
	}
	if ws.files["count.py"] != fixed {
		t.Errorf("count.py = %q", ws.files["count.py"])
	}
}

func TestRunawayRun(t *testing.T) {
	unit := `\n\n## License\n\nThis project is under the MIT license.` // 52 bytes, as JSON escapes a file
	for _, tc := range []struct {
		name, text string
		keep       string // the text kept; "" for no stop
		times      int
	}{
		{"a JSON string going round", `{"path": "README.md", "content": "# tinytool` + strings.Repeat(unit, 12), `{"path": "README.md", "content": "# tinytool` + unit, 12},
		{"seven times", `{"content": "x` + strings.Repeat(unit, 7), "", 0},
		{"short runs", strings.Repeat("ab", 400), strings.Repeat("ab", 1), 400},
		{"spaces", "x" + strings.Repeat(" ", 2000), "", 0},
		{"varied", strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 1) + `{"a": 1, "b": 2}`, "", 0},
		{"short", "abc", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep, what := runawayRun(tc.text)
			if tc.keep == "" {
				if keep != 0 {
					t.Errorf("stopped at %d (%s)", keep, what)
				}
				return
			}
			if got := tc.text[:keep]; got != tc.keep || !strings.Contains(what, fmt.Sprintf(" %d times in a row", tc.times)) {
				t.Errorf("kept %q (%s); want %q, %d times", got, what, tc.keep, tc.times)
			}
		})
	}
}

// TestRunawayNativeCallStopped: a native call whose arguments go round
// (the 1.5B model in the tool format wrote the same section into a save's
// content for minutes) is stopped: nothing runs, the model is told what
// its arguments repeated, and its next call is read as usual.
func TestRunawayNativeCallStopped(t *testing.T) {
	readme := "# tinytool\n\nA tiny tool.\n"
	var chunks []modeltest.Chunk
	chunks = append(chunks, modeltest.Chunk{ToolCall: &modeltest.ToolCallDelta{ID: "call_1", Name: "save", Args: `{"path": "README.md", "content": "# tinytool\n\nA tiny tool.`}})
	for range 5000 {
		chunks = append(chunks, modeltest.Chunk{ToolCall: &modeltest.ToolCallDelta{Args: `\n\n## License\n\nMIT.`}})
	}
	fixed := "# tinytool\n\nA tiny tool.\n\n## License\n\nMIT.\n"
	srv := modeltest.New(modeltest.Reply{Chunks: chunks},
		modeltest.Reply{Chunks: []modeltest.Chunk{{ToolCall: &modeltest.ToolCallDelta{ID: "call_2", Name: "save", Args: `{"path": "README.md", "content": "# tinytool\n\nA tiny tool.\n\n## License\n\nMIT.\n"}`}}}},
		modeltest.Text("Added the License section.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"README.md": readme}}
	turn := boundTurn(t, srv, ws, tools.FormatTool)
	if _, err := turn.Run(context.Background(), Request{Prompt: "Add a License section saying MIT to README.md.", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Body.Messages
	if told := msgs[len(msgs)-1].Content; !strings.Contains(told, "your save call's arguments repeated the same") || !strings.Contains(told, "so the call was stopped and not run") {
		t.Errorf("the model was told %q", told)
	}
	if got := ws.files["README.md"]; got != fixed {
		t.Errorf("README.md = %q", got)
	}
}

// BenchmarkRunawayTail is the checks run on every chunk of a reply (by
// lines when it holds a newline; by bytes, runawayRun): their cost does
// not grow with the reply past the 160 lines, or 16 KB, they look at (a varied file of 1 KB, shorter than that; of 16 KB;
// of 256 KB, the most a reply may be).
func BenchmarkRunawayTail(b *testing.B) {
	for _, size := range []int{1 << 10, 16 << 10, 256 << 10} {
		var sb strings.Builder
		for i := 0; sb.Len() < size; i++ {
			fmt.Fprintf(&sb, "func f%d() int { return %d }\n", i, i)
		}
		text := sb.String()
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			for b.Loop() {
				if keep, _ := runawayTail(text); keep != 0 {
					b.Fatal("stopped a varied file")
				}
			}
		})
		b.Run(fmt.Sprintf("bytes/%dKB", size>>10), func(b *testing.B) {
			for b.Loop() {
				if keep, _ := runawayRun(text); keep != 0 {
					b.Fatal("stopped a varied file")
				}
			}
		})
	}
}
