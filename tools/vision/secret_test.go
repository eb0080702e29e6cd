package vision

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/toolstest"
)

// asking is a Workspace whose user answers answer, or nobody.
type asking struct {
	root   string
	answer approval.Answer
	nobody bool
	asked  []approval.Question
}

func (w *asking) Root() string { return w.root }
func (w *asking) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	if w.nobody {
		return approval.Skip, approval.ErrNobodyToAsk
	}
	w.asked = append(w.asked, q)
	return w.answer, nil
}

// TestViewImageSecretAsks is the attack of a model that views what `cat`
// would ask about: an image in .ssh or .aws, one named like a key, a link
// to one. It is put to the user (the image is sent only when approved);
// with nobody to ask, and from an ipython cell's view_image, it is refused
// with a note and nothing is sent.
func TestViewImageSecretAsks(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	img := pngBytes(t, gradient(8, 8))
	write(t, root, ".ssh/qr.png", img)
	write(t, root, ".aws/creds.png", img)
	write(t, root, "deploy/id_rsa", img)
	write(t, root, "docs/a.png", img)
	os.Symlink(filepath.Join("..", ".ssh", "qr.png"), filepath.Join(root, "docs", "qr.png"))
	for _, tc := range []struct {
		name, path string
		answer     approval.Answer
		nobody     bool
		wantErr    string
		sent       bool
		asked      int
	}{
		{name: "ssh, nobody", path: ".ssh/qr.png", nobody: true, wantErr: "may hold secrets"},
		{name: "aws, nobody", path: ".aws/creds.png", nobody: true, wantErr: "nobody can be asked"},
		{name: "key name, nobody", path: "deploy/id_rsa", nobody: true, wantErr: "may hold secrets"},
		{name: "link, nobody", path: "docs/qr.png", nobody: true, wantErr: "may hold secrets"},
		{name: "declined", path: ".ssh/qr.png", answer: approval.Skip, wantErr: "declined", asked: 1},
		{name: "stopped", path: ".ssh/qr.png", answer: approval.StopTurn, wantErr: "stopped the turn", asked: 1},
		{name: "approved", path: ".ssh/qr.png", answer: approval.Run, sent: true, asked: 1},
		{name: "ordinary", path: "docs/a.png", nobody: true, sent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := &asking{root: root, answer: tc.answer, nobody: tc.nobody}
			var got collect
			ctx := tools.WithImageAttacher(context.Background(), &got)
			_, err := Tool(Options{}).Bind(toolstest.Env(root, ws))(ctx, tools.ToolUse{Tool: "view_image", Args: []string{tc.path}})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if (len(got.images) > 0) != tc.sent {
				t.Errorf("%d images sent, want sent %v", len(got.images), tc.sent)
			}
			if len(ws.asked) != tc.asked {
				t.Errorf("asked %d times, want %d", len(ws.asked), tc.asked)
			}
			if tc.answer == approval.StopTurn && !errors.Is(err, approval.ErrStopTurn) {
				t.Errorf("a stop is not ErrStopTurn: %v", err)
			}
		})
	}
	// An ipython cell's view_image(path) has nobody to ask.
	var got collect
	if _, err := ViewImage(tools.WithImageAttacher(context.Background(), &got), root, ".ssh/qr.png", Options{}); err == nil || len(got.images) > 0 {
		t.Errorf("ViewImage of a secret: %v, %d images", err, len(got.images))
	}
}
