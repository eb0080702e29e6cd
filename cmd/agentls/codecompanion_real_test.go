//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// codecompanionResult is what testdata/codecompanion/driver.lua writes.
type codecompanionResult struct {
	Error         string         `json:"error"`
	Steps         []string       `json:"steps"`
	Seen          map[string]int `json:"seen"`
	Chat          string         `json:"chat"`
	Greet         []string       `json:"greet"`
	GreetModified bool           `json:"greet_modified"`
	RPCLog        string         `json:"rpc_log"`
	Messages      string         `json:"messages"`
}

// TestCodecompanionReal: real Neovim with codecompanion.nvim
// (github.com/olimorris/codecompanion.nvim and its plenary.nvim), the
// README's block as it is (see nvim_real_test.go). In codecompanion's
// chat, with greet.txt open, the README's adapter starts `agentls acp`
// (initialize, session/new); "patch greet.txt" streams the model's reply
// into the chat and writes its two-file patch through codecompanion's
// fs/write_text_file: into the open greet.txt buffer (which codecompanion
// saves) and into notes.txt on disk; "run it" asks for a command that is
// not on the allowlist through session/request_permission in the chat's
// approval prompt: Reject runs nothing; asked again, Accept runs it.
// Nothing else in the workspace changes. \undo (agentls's /undo) then puts
// the patched files back, or, where codecompanion's buffer write added a
// line to greet.txt, says so and leaves both as they are. It runs where
// AGENTLS_NVIM and AGENTLS_CODECOMPANION (the folders of codecompanion.nvim
// and plenary.nvim) are set; AGENTLS_REQUIRE_CODECOMPANION makes their
// absence a failure.
func TestCodecompanionReal(t *testing.T) {
	nvim, plugins := requireNvimPlugin(t, "AGENTLS_CODECOMPANION", "AGENTLS_REQUIRE_CODECOMPANION", "codecompanion.nvim:plenary.nvim folders")
	var res codecompanionResult
	root, out := runNvimPlugin(t, nvim, plugins, "**Neovim**, [codecompanion.nvim]", `"agentls", "acp"`, "codecompanion", &res)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("steps done: %q; events: %v", res.Steps, res.Seen)
			t.Logf("the chat buffer:\n%s", res.Chat)
			t.Logf(":messages:\n%s", res.Messages)
			t.Logf("nvim's output:\n%s", out)
			t.Logf("codecompanion's RPC log:\n%s", res.RPCLog[max(0, len(res.RPCLog)-30000):])
		}
	})
	if res.Error != "" {
		t.Fatalf("the driver: %s", res.Error)
	}

	// The streamed text, the calls and their outcome reached the chat.
	for _, want := range []string{"I will patch it.", "Edit: greet.txt", "Patched.", "I will run it.", "You selected: Reject", "Not run.", "You selected: Accept", "Ran."} {
		if !strings.Contains(res.Chat, want) {
			t.Errorf("the chat buffer has no %q", want)
		}
	}
	// What went over the wire, as codecompanion logged it: both files
	// written through the client, two questions and their answers.
	var writes, answers []string
	asked := 0
	for _, line := range strings.Split(res.RPCLog, "\n") {
		var msg struct {
			Method string
			Params struct{ Path, Content string }
			Result struct{ Outcome struct{ OptionID string } }
		}
		if json.Unmarshal([]byte(line), &msg) != nil {
			continue
		}
		switch {
		case msg.Method == "fs/write_text_file":
			writes = append(writes, fmt.Sprintf("%s=%q", filepath.Base(msg.Params.Path), msg.Params.Content))
		case msg.Method == "session/request_permission":
			asked++
		case msg.Result.Outcome.OptionID != "":
			answers = append(answers, msg.Result.Outcome.OptionID)
		}
	}
	if got := strings.Join(writes, " "); got != `greet.txt="hello from agentls\n" notes.txt="two\n"` {
		t.Errorf("fs/write_text_file calls: %s", got)
	}
	if got := strings.Join(answers, " "); asked != 2 || got != "reject_once allow_once" {
		t.Errorf("%d permission requests, answered %s; want 2, reject_once allow_once", asked, got)
	}

	// The patch landed: notes.txt as written; greet.txt in its buffer,
	// which codecompanion saved. codecompanion (f1afd025) sets the buffer's
	// lines to the content split at "\n", so the content's final newline
	// becomes an empty last line, and the saved file one newline more.
	extraLine := strings.Join(res.Greet, "\n") == "hello from agentls\n"
	wantGreet := "hello from agentls\n"
	if extraLine {
		wantGreet += "\n"
		t.Log("codecompanion's buffer write added an empty last line to greet.txt")
	} else if strings.Join(res.Greet, "\n") != "hello from agentls" {
		t.Errorf("greet.txt's buffer: %q", res.Greet)
	}
	if res.GreetModified {
		t.Error("greet.txt's buffer was left modified")
	}
	// \undo: agentls puts the files back only if they are as it left
	// them.
	want := map[string]string{"greet.txt": wantGreet, "notes.txt": "two\n", "other.txt": "untouched\n", "made": ""}
	if extraLine {
		if !strings.Contains(res.Chat, "Nothing was undone: greet.txt changed since turn 1 left it") {
			t.Error("the chat does not say why nothing was undone")
		}
	} else {
		if !strings.Contains(res.Chat, "Undid turn 1's edits") {
			t.Error("the chat does not say the edits were undone")
		}
		want["greet.txt"], want["notes.txt"] = nvimWorkspace["greet.txt"], nvimWorkspace["notes.txt"]
	}
	// Nothing else changed: the accepted command made "made", and the
	// rest is as it was.
	if got := workspaceFiles(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the workspace holds %q, want %q", got, want)
	}
	t.Logf("the chat buffer:\n%s", res.Chat)
}
