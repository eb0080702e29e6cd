package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestACPOfficialClient runs `agentls acp` under the official ACP
// TypeScript client (editors/acp-test/client.mjs, @agentclientprotocol/sdk
// pinned there) against the fake model: streamed thinking and text, a
// two-file patch shown as diffs and written through fs/write_text_file, a
// command rejected (it does not run) then allowed (it runs) through
// session/request_permission, a cancel mid-reply, /undo putting the
// patched files back, session/load replaying it all in a new agentls,
// and a client with terminals in review mode (an image in the prompt,
// the model's plan as plan updates, its command in the client's
// terminal, its patch held until /review accept all); every message
// agentls sends is checked against the protocol's schema. Without node or
// the installed package it is skipped, unless AGENTLS_REQUIRE_ACP is set
// (CI: .ci/run installs the package).
func TestACPOfficialClient(t *testing.T) {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "editors", "acp-test"))
	node, err := exec.LookPath("node")
	_, missing := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json"))
	if err != nil || missing != nil {
		if os.Getenv("AGENTLS_REQUIRE_ACP") != "" {
			t.Fatalf("AGENTLS_REQUIRE_ACP is set but node (%v) or the npm package (%v) is missing: run npm ci in %s", err, missing, dir)
		}
		t.Skipf("no node or no @agentclientprotocol/sdk in %s (npm ci there): %v %v", dir, err, missing)
	}
	bin, err := exec.LookPath("agentls") // this test binary (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	patch := "```apply_patch\n*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** End Patch\n```\n"
	shell := "```shell\ntouch made && echo made it\n```\n"
	stalled := modeltest.Text("I will write a long essay about", 5)
	stalled.Stall = true
	srv := modeltest.New(
		modeltest.Reasoned("Thinking it over.", "Hello from agentls.", 5),
		modeltest.Text(patch, 9), modeltest.Text("Changed both.", 5),
		modeltest.Text(shell, 7), modeltest.Text("Not run.", 5),
		modeltest.Text(shell, 7), modeltest.Text("Ran.", 5),
		stalled,
		modeltest.Text("Plan:\n- [ ] run it\n- [ ] report\n\n```shell\necho from the terminal\n```\n", 7),
		modeltest.Text("- [x] run it\n- [x] report\n\nIt ran.", 5),
		modeltest.Text("```apply_patch\n*** Begin Patch\n*** Update File: c.txt\n@@\n-three\n+THREE\n*** End Patch\n```\n", 7),
		modeltest.Text("Held for review.", 5))
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("two\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.txt"), []byte("three\n"), 0o644)
	home := t.TempDir()
	cmd := exec.Command(node, "client.mjs", root)
	cmd.Dir = dir
	folders := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config")}
	cmd.Env = append(processEnv(func(k string) string { return folders[k] }),
		"AGENTLS_BIN="+bin, "AGENTLS_MODEL=m", "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=k")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("client.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var summary struct {
		Chunks    int      `json:"chunks"`
		Writes    []string `json:"writes"`
		Undone    []string `json:"undone"`
		Asked     int      `json:"asked"`
		Replayed  int      `json:"replayed"`
		CancelMs  int      `json:"cancelMs"`
		Validated int      `json:"validated"`
		Exit      int      `json:"exit"`
		Terminals int      `json:"terminals"`
		Plans     int      `json:"plans"`
		Reviewed  []string `json:"reviewed"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &summary); err != nil {
		t.Fatalf("client.mjs's summary %q: %v", stdout.String(), err)
	}
	t.Logf("official client: %+v in %s", summary, time.Since(start).Round(time.Millisecond))
	if summary.Chunks < 2 || strings.Join(summary.Writes, ",") != "a.txt,b.txt" || strings.Join(summary.Undone, ",") != "a.txt,b.txt" || summary.Asked != 2 || summary.Replayed == 0 || summary.Validated < 20 || summary.Exit != 0 ||
		summary.Terminals != 1 || summary.Plans == 0 || strings.Join(summary.Reviewed, ",") != "c.txt" {
		t.Errorf("summary %+v", summary)
	}
	// The patch went to the client's buffers, not to the disk.
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "one\n" {
		t.Errorf("a.txt on disk: %q", data)
	}
}
