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
	"github.com/agentls/agentls/tools/approval"
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
// folder of their own so that the read tool lists it; what its tools ask
// the user is recorded in asked.
func linksTurn(t *testing.T, srv *modeltest.Server, files map[string]string) (*memWorkspace, *Turn) {
	mem, turn, _ := askingLinksTurn(t, srv, files)
	return mem, turn
}

// askingWorkspace records the questions its tools ask, and says yes.
type askingWorkspace struct {
	dirWorkspace
	asked *[]approval.Question
}

func (w askingWorkspace) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	*w.asked = append(*w.asked, q)
	return approval.Run, nil
}

func askingLinksTurn(t *testing.T, srv *modeltest.Server, files map[string]string) (*memWorkspace, *Turn, *[]approval.Question) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mem := &memWorkspace{files: maps.Clone(files)}
	asked := &[]approval.Question{}
	ws := askingWorkspace{dirWorkspace: dirWorkspace{memWorkspace: mem, root: root}, asked: asked}
	reg, _, err := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws)).Select(edittool.TurnTools())
	if err != nil {
		t.Fatal(err)
	}
	return mem, &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: reg, Format: tools.FormatMarkdown, Runner: Runner{Registry: reg}, Compact: true}, asked
}

// TestBrokenLinksReadNoFile: the links a repository's Markdown holds
// decide nothing but the note (DESIGN §8a). Whether a link's file is there
// is told from its folders' listings, so a link to a secret file (.env)
// asks nobody to show it and is not called missing, a link to a binary
// file (an image, which read refuses) is not called missing, a link out of
// the workspace or to its root is not looked at, and a file this turn
// created counts as there; only the missing one is named.
func TestBrokenLinksReadNoFile(t *testing.T) {
	readme := "# lib\n"
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	links := "# lib\n\n[env](.env) ![logo](img/logo.png) [up](../../etc/passwd) [root](./) [docs](docs/) [guide](guide.md) [gone](img/gone.png) [none](nowhere/x.md)\n"
	srv := modeltest.New(
		modeltest.Text("```save guide.md\n# Guide\n```\n\n```save README.md\n"+links+"```", 50),
		modeltest.Text("Done.", 50))
	defer srv.Close()
	files := map[string]string{"README.md": readme, ".env": "TOKEN=hunter2\n", "img/logo.png": png, "docs/a.md": "# A\n"}
	_, turn, asked := askingLinksTurn(t, srv, files)
	if _, err := turn.Run(context.Background(), Request{Prompt: "Add links to README.md.", Root: "/ws", Files: []FileText{{Path: "README.md", Text: numbered(readme)}}}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Body.Messages
	var told string
	for _, m := range msgs[len(msgs)-2:] {
		told += m.Content + "\n"
	}
	for _, want := range []string{"README.md links to img/gone.png, which does not exist: the folder img/ holds logo.png.", "README.md links to nowhere/x.md, which does not exist. Read nowhere to see"} {
		if !strings.Contains(told, want) {
			t.Errorf("the model was not told %q: %q", want, told)
		}
	}
	for _, not := range []string{".env, which", "logo.png, which", "passwd", "guide.md, which", "links to ., which", "docs, which", "hunter2"} {
		if strings.Contains(told, not) {
			t.Errorf("the model was told %q: %q", not, told)
		}
	}
	if len(*asked) != 0 {
		t.Errorf("the user was asked %+v", *asked)
	}
}
