//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// avanteResult is what testdata/avante/driver.lua writes.
type avanteResult struct {
	Error         string   `json:"error"`
	Steps         []string `json:"steps"`
	Result        string   `json:"result"`
	Input         string   `json:"input"`
	Generating    bool     `json:"generating"`
	Greet         []string `json:"greet"`
	GreetModified bool     `json:"greet_modified"`
	Messages      string   `json:"messages"`
	Wire          []struct {
		Received string
		Params   json.RawMessage
		Sent     json.RawMessage
	} `json:"wire"`
}

// TestAvanteReal: real Neovim with avante.nvim (github.com/yetone/avante.nvim,
// with nui.nvim and plenary.nvim, and its avante_templates library built
// from source), the README's block as it is (see nvim_real_test.go). With
// greet.txt open, ":AvanteAsk patch greet.txt" starts `agentls acp`
// through the README's ACP provider; the model's two-file patch is
// written through avante's fs/write_text_file (greet.txt, whose buffer
// avante reloads, and notes.txt) and shown as a succeeded apply_patch
// call, then the model's last words; "run it", typed into the sidebar's
// input, asks for a command that is not on the allowlist through
// session/request_permission in avante's question popup: n (reject) runs
// nothing; asked again, y (allow once) runs it, and its output is shown.
// Nothing else in the workspace changes. It runs where AGENTLS_NVIM and
// AGENTLS_AVANTE (the folders of avante.nvim, nui.nvim and plenary.nvim)
// are set; AGENTLS_REQUIRE_AVANTE makes their absence a failure.
func TestAvanteReal(t *testing.T) {
	nvim, plugins := requireNvimPlugin(t, "AGENTLS_AVANTE", "AGENTLS_REQUIRE_AVANTE", "avante.nvim:nui.nvim:plenary.nvim folders")
	var res avanteResult
	root, out := runNvimPlugin(t, nvim, plugins, "**Neovim**, [avante.nvim]", `command = "agentls"`, "avante", &res)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("steps done: %q", res.Steps)
			t.Logf("the sidebar:\n%s", res.Result)
			t.Logf(":messages:\n%s", res.Messages)
			t.Logf("nvim's output:\n%s", out)
			for _, w := range res.Wire {
				t.Logf("avante got %s %.300s, answered %s", w.Received, w.Params, w.Sent)
			}
		}
	})
	if res.Error != "" {
		t.Fatalf("the driver: %s", res.Error)
	}

	// The calls, their outcome and the model's words reached the sidebar.
	for _, want := range []string{`apply_patch("greet.txt")  succeeded`, "Patched.", "I will run it.",
		"the user declined to run `touch made && echo made it`", "Not run.", "stdout: `made it`", "Ran."} {
		if !strings.Contains(res.Result, want) {
			t.Errorf("the sidebar has no %q", want)
		}
	}

	// What avante got and answered: the files read and written through
	// it, two questions and their answers.
	var greetRead *string
	var writes, answers []string
	asked := 0
	for i, w := range res.Wire {
		var params struct{ Path, Content string }
		var sent struct {
			Content *string
			Outcome struct{ OptionID string }
		}
		json.Unmarshal(w.Params, &params)
		json.Unmarshal(w.Sent, &sent)
		switch {
		case w.Received == "fs/read_text_file" && filepath.Base(params.Path) == "greet.txt" && greetRead == nil && i+1 < len(res.Wire):
			var answer struct{ Content *string }
			json.Unmarshal(res.Wire[i+1].Sent, &answer)
			greetRead = answer.Content
		case w.Received == "fs/write_text_file":
			writes = append(writes, fmt.Sprintf("%s=%q", filepath.Base(params.Path), params.Content))
		case w.Received == "session/request_permission":
			asked++
		case sent.Outcome.OptionID != "":
			answers = append(answers, sent.Outcome.OptionID)
		}
	}
	// avante (a9334315) reads an open file's buffer as its lines joined by
	// "\n", without the final newline: the patch, made on that, writes
	// greet.txt without one.
	if greetRead == nil {
		t.Fatal("avante was not asked for greet.txt")
	}
	wantGreet := "hello from agentls\n"
	if *greetRead == "hello" {
		wantGreet = "hello from agentls"
		t.Log("avante read the open greet.txt without its final newline")
	} else if *greetRead != nvimWorkspace["greet.txt"] {
		t.Errorf("avante read greet.txt as %q", *greetRead)
	}
	if got, want := strings.Join(writes, " "), fmt.Sprintf("greet.txt=%q notes.txt=%q", wantGreet, "two\n"); got != want {
		t.Errorf("fs/write_text_file calls: %s, want %s", got, want)
	}
	if got := strings.Join(answers, " "); asked != 2 || got != "reject_once allow_once" {
		t.Errorf("%d permission requests, answered %s; want 2, reject_once allow_once", asked, got)
	}

	// The patch landed, the open buffer shows it, the accepted command
	// made "made", and nothing else changed.
	if got := strings.Join(res.Greet, "\n"); got != "hello from agentls" || res.GreetModified {
		t.Errorf("greet.txt's buffer: %q, modified %v", res.Greet, res.GreetModified)
	}
	want := map[string]string{"greet.txt": wantGreet, "notes.txt": "two\n", "other.txt": "untouched\n", "made": ""}
	if got := workspaceFiles(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the workspace holds %q, want %q", got, want)
	}
	t.Logf("the sidebar:\n%s", res.Result)
}
