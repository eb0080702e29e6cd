package agent

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
)

func TestLocalTargets(t *testing.T) {
	text := "See [the changes](CHANGES.md), [docs](../docs/a.md#top), [site](https://x.org/a.md), [mail](mailto:a@b.c), [here](#usage), ![logo](img/logo.png \"Logo\"), [abs](/etc/passwd), [again](CHANGES.md#v1), [up](../../out.md)."
	got := localTargets(text, "sub")
	want := []string{"sub/CHANGES.md", "docs/a.md", "sub/img/logo.png"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("localTargets = %q, want %q", got, want)
	}
}

// TestBrokenLinkPointedOut replays the real model's reply to "The link to
// the changelog in README.md points to a file that does not exist. Make
// it point to the real file.": CHANGES.txt made CHANGES.md, a name it made
// up. The save is written, and its result says that CHANGES.md does not
// exist, with the folder's files; the model's next save points at
// HISTORY.md. A link that was there before an edit that changed the file
// is not pointed out; one in a file sent back unchanged is.
func TestBrokenLinkPointedOut(t *testing.T) {
	readme := "# lib\n\nSee [the changes](CHANGES.txt).\n"
	srv := modeltest.New(
		modeltest.Text("```save README.md\n# lib\n\nSee [the changes](CHANGES.md).\n```", 50),
		modeltest.Text("```save README.md\n# lib\n\nSee [the changes](HISTORY.md).\n```", 50),
		modeltest.Text("The link now points to HISTORY.md.", 50))
	defer srv.Close()
	ws, turn := linksTurn(t, srv, map[string]string{"README.md": readme, "HISTORY.md": "# History\n"})
	if _, err := turn.Run(context.Background(), Request{Prompt: "The link to the changelog in README.md points to a file that does not exist. Make it point to the real file.", Root: "/ws",
		Files: []FileText{{Path: "README.md", Text: numbered(readme)}}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first := reqs[1].Body.Messages
	if told := first[len(first)-1].Content; !strings.Contains(told, "README.md links to CHANGES.md, which does not exist: the folder holds HISTORY.md and README.md. Send README.md again with that link fixed.") {
		t.Errorf("the model was told %q", told)
	}
	second := reqs[2].Body.Messages
	if told := second[len(second)-1].Content; strings.Contains(told, "does not exist") {
		t.Errorf("a link that exists was pointed out: %q", told)
	}
	if got := ws.files["README.md"]; got != "# lib\n\nSee [the changes](HISTORY.md).\n" {
		t.Errorf("README.md = %q", got)
	}

	// Sent back unchanged (the real model at temperature 0), the file's
	// broken link is the model's too.
	srv3 := modeltest.New(modeltest.Text("```save README.md\n"+readme+"```", 50), modeltest.Text("```save README.md\n# lib\n\nSee [the changes](HISTORY.md).\n```", 50), modeltest.Text("Fixed.", 50))
	defer srv3.Close()
	ws3, turn3 := linksTurn(t, srv3, map[string]string{"README.md": readme, "HISTORY.md": "# History\n"})
	if _, err := turn3.Run(context.Background(), Request{Prompt: "The link to the changelog in README.md points to a file that does not exist. Make it point to the real file.", Root: "/ws",
		Files: []FileText{{Path: "README.md", Text: numbered(readme)}}}); err != nil {
		t.Fatal(err)
	}
	msgs3 := srv3.Requests()[1].Body.Messages
	if told := msgs3[len(msgs3)-1].Content; !strings.Contains(told, "unchanged") || !strings.Contains(told, "README.md links to CHANGES.txt, which does not exist: the folder holds HISTORY.md and README.md. Send README.md again with that link fixed.") {
		t.Errorf("the unchanged save: the model was told %q", told)
	}
	if got := ws3.files["README.md"]; got != "# lib\n\nSee [the changes](HISTORY.md).\n" {
		t.Errorf("README.md = %q", got)
	}

	// A broken link the file had before is not the edit's.
	srv2 := modeltest.New(modeltest.Text("```save README.md\n# lib!\n\nSee [the changes](CHANGES.txt).\n```", 50), modeltest.Text("Done.", 50))
	defer srv2.Close()
	_, turn2 := linksTurn(t, srv2, map[string]string{"README.md": readme})
	if _, err := turn2.Run(context.Background(), Request{Prompt: "Add ! to the title of README.md.", Root: "/ws", Files: []FileText{{Path: "README.md", Text: numbered(readme)}}}); err != nil {
		t.Fatal(err)
	}
	msgs := srv2.Requests()[1].Body.Messages
	if told := msgs[len(msgs)-1].Content; strings.Contains(told, "does not exist") {
		t.Errorf("a link there before the edit was pointed out: %q", told)
	}
}

// linksTurn is a compact turn over files, which are also on disk in a
// folder of their own so that the read tool lists it.
func linksTurn(t *testing.T, srv *modeltest.Server, files map[string]string) (*memWorkspace, *Turn) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mem := &memWorkspace{files: maps.Clone(files)}
	ws := dirWorkspace{memWorkspace: mem, root: root}
	reg, _, err := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws)).Select(edittool.TurnTools())
	if err != nil {
		t.Fatal(err)
	}
	return mem, &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: reg, Format: tools.FormatMarkdown, Runner: Runner{Registry: reg}, Compact: true}
}
