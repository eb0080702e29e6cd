package agent

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/shelltool"
)

// TestTurnIPython: the model runs a cell using a magic and view_image;
// its next request carries the cell's output, which says IPython ran it,
// and the image, as view_image's own would.
func TestTurnIPython(t *testing.T) {
	if err := exec.Command("python3", "-c", "import IPython").Run(); err != nil {
		t.Skip("IPython is not installed for python3 (pip install ipython, or Debian's ipython3)")
	}
	root := t.TempDir()
	data := writePNG(t, root, "a.png", 8, 6)
	h, err := shelltool.New(shelltool.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := modeltest.New(modeltest.Text("```ipython\nn = %time 6 * 7\nprint('n is', n)\nview_image('a.png')\n```\n", 100), modeltest.Text("done", 100))
	defer srv.Close()
	ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: root}
	bound := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, func() (*shelltool.Host, error) { return h, nil }, testToolOptions(ws))
	turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "compute and look"}); err != nil {
		t.Fatal(err)
	}
	msg := srv.Requests()[1].Body.Messages[3]
	for _, want := range []string{"Executed code block in IPython ", "Wall time:", "n is 42", "(image a.png, 8×6, sent)"} {
		if !strings.Contains(msg.Content, want) {
			t.Errorf("the model was told %q, want it to hold %q", msg.Content, want)
		}
	}
	if len(msg.Images) != 1 || string(imageBytes(t, msg.Images[0])) != string(data) {
		t.Errorf("the result carries %d images, want a.png", len(msg.Images))
	}
}
