//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
)

// What the real Neovim agent plugins' tests share (TestCodecompanionReal,
// TestAvanteReal): Neovim runs headless with an init file that only puts
// the plugins on 'runtimepath', then holds the README's block for the
// plugin verbatim, then sources the plugin's driver
// (testdata/PLUGIN/driver.lua), which types into the plugin's chat as a
// person would and writes what it saw as JSON; this test binary is
// agentls on PATH, the fake model behind OPENAI_BASE_URL. The plugins
// need Neovim 0.11 or newer, which CI does not have: each test runs where
// AGENTLS_NVIM names such an nvim and its own variable the plugin's
// folders, and is skipped otherwise, unless its AGENTLS_REQUIRE_ variable
// is set.

// nvimDeadline bounds each wait of a driver, and a whole run four times
// over: generous, the machine may be loaded; a pass never waits for it.
const nvimDeadline = 60 * time.Second

// requireNvimPlugin returns the nvim to run and the folders that
// pluginsVar names, and skips the test where they are not given (fails
// it where requireVar is set).
func requireNvimPlugin(t *testing.T, pluginsVar, requireVar, folders string) (string, []string) {
	t.Helper()
	skip := func(why string) {
		t.Helper()
		if os.Getenv(requireVar) != "" {
			t.Fatalf("%s but %s is set", why, requireVar)
		}
		t.Skip(why)
	}
	nvim, dirs := os.Getenv("AGENTLS_NVIM"), os.Getenv(pluginsVar)
	if nvim == "" || dirs == "" {
		skip(fmt.Sprintf("AGENTLS_NVIM=/path/to/nvim (0.11 or newer) and %s=%s run this test", pluginsVar, folders))
	}
	if _, err := os.Stat(nvim); err != nil {
		skip(fmt.Sprintf("AGENTLS_NVIM: %v", err))
	}
	plugins := filepath.SplitList(dirs)
	for _, dir := range plugins {
		if _, err := os.Stat(dir); err != nil {
			skip(fmt.Sprintf("%s: %v", pluginsVar, err))
		}
	}
	return nvim, plugins
}

// nvimPluginModel patches greet.txt and notes.txt when asked to patch,
// runs `touch made && echo made it` when asked to run, and says
// "Patched.", "Ran." or "Not run." when given the call's result.
func nvimPluginModel(req modeltest.Request) modeltest.Reply {
	last := req.Body.Messages[len(req.Body.Messages)-1].Content
	switch {
	case strings.HasPrefix(last, "Result of apply_patch"):
		return modeltest.Text("Patched.", 3)
	case strings.HasPrefix(last, "Result of shell") && strings.Contains(last, "made it"):
		return modeltest.Text("Ran.", 3)
	case strings.HasPrefix(last, "Result of") || strings.HasPrefix(last, "Error from"):
		return modeltest.Text("Not run.", 3)
	case strings.Contains(last, "run it"):
		return modeltest.Text("I will run it.\n\n```shell\ntouch made && echo made it\n```\n", 6)
	}
	return modeltest.Text("I will patch it.\n\n```apply_patch\n*** Begin Patch\n*** Update File: greet.txt\n@@\n-hello\n+hello from agentls\n"+
		"*** Update File: notes.txt\n@@\n-one\n+two\n*** End Patch\n```\n", 6)
}

// nvimWorkspace is the files a test starts with.
var nvimWorkspace = map[string]string{"greet.txt": "hello\n", "notes.txt": "one\n", "other.txt": "untouched\n"}

// runNvimPlugin writes the workspace and the init file (the plugins, the
// README's lua block after heading, which must hold want, the driver),
// runs nvim headless in the workspace against the fake model, and
// decodes the driver's result into result. It returns the workspace and
// nvim's output.
func runNvimPlugin(t *testing.T, nvim string, plugins []string, heading, want, driver string, result any) (string, []byte) {
	t.Helper()
	bin, err := exec.LookPath("agentls") // this test binary (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewFunc(nvimPluginModel)
	t.Cleanup(srv.Close)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for name, text := range nvimWorkspace {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), heading)
	_, block, ok := strings.Cut(section, "```lua\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(block, want) {
		t.Fatalf("no lua block with %s in the README's set-up after %q", want, heading)
	}
	driverPath, err := filepath.Abs(filepath.Join("testdata", driver, "driver.lua"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, dir := range plugins {
		fmt.Fprintf(&b, "vim.opt.runtimepath:prepend(%q)\n", dir)
	}
	b.WriteString(block)
	fmt.Fprintf(&b, "dofile(%q)\n", driverPath)
	dir := t.TempDir()
	init := filepath.Join(dir, "init.lua")
	if err := os.WriteFile(init, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	home := t.TempDir()
	resultPath := filepath.Join(dir, "result.json")
	ctx, cancel := context.WithTimeout(context.Background(), 4*nvimDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", init)
	cmd.Dir = root
	folders := map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config")}
	cmd.Env = append(processEnv(func(k string) string { return folders[k] }),
		"HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test-key", "AGENTLS_MODEL=nvim-test-model",
		"AGENTLS_TEST_RESULT="+resultPath, fmt.Sprintf("AGENTLS_TEST_TIMEOUT_MS=%d", nvimDeadline.Milliseconds()))
	out, runErr := cmd.CombinedOutput()
	data, err := os.ReadFile(resultPath)
	if err != nil {
		t.Fatalf("nvim: %v, and no result (%v); its output:\n%s", runErr, err, out)
	}
	if err := json.Unmarshal(data, result); err != nil {
		t.Fatalf("the driver's result %q: %v", data, err)
	}
	if runErr != nil {
		t.Errorf("nvim: %v", runErr)
	}
	return root, out
}

// workspaceFiles is every file in root with its content.
func workspaceFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(root, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}
