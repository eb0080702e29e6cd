package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/vision"
)

// dirWorkspace is a memWorkspace whose root is a real folder (view_image
// reads the disk), configured with opts.
type dirWorkspace struct {
	*memWorkspace
	root string
	opts ToolOptions
}

func (w dirWorkspace) Root() string             { return w.root }
func (w dirWorkspace) ToolOptions() ToolOptions { return w.opts }

// testToolOptions are the options a test's workspace carries (a
// dirWorkspace's), else none: what the test binds its tools with.
func testToolOptions(ws Workspace) ToolOptions {
	if w, ok := ws.(interface{ ToolOptions() ToolOptions }); ok {
		return w.ToolOptions()
	}
	return ToolOptions{}
}

// writePNG writes a w×h PNG at root/name and returns its bytes.
func writePNG(t *testing.T, root, name string, w, h int) []byte {
	t.Helper()
	im := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range im.Pix {
		im.Pix[i] = uint8(i)
	}
	im.Set(0, 0, color.White)
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imageTurn is a turn whose tools are the built-ins bound to a folder
// holding a.png (8×6) and b.png, configured with opts.
func imageTurn(t *testing.T, srv *modeltest.Server, format tools.Format, opts ToolOptions) (*Turn, []byte) {
	root := t.TempDir()
	data := writePNG(t, root, "a.png", 8, 6)
	writePNG(t, root, "b.png", 4, 4)
	ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: root, opts: opts}
	reg := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
	return &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: reg, Format: format, Runner: Runner{Registry: reg}}, data
}

// pngOf is the PNG writePNG writes.
func pngOf(t *testing.T, w, h int) []byte {
	return writePNG(t, t.TempDir(), "x.png", w, h)
}

// imageBytes decodes a data: URL's payload.
func imageBytes(t *testing.T, url string) []byte {
	t.Helper()
	payload, ok := strings.CutPrefix(url, "data:image/png;base64,")
	if !ok {
		t.Fatalf("image URL %.40q is not a PNG data: URL", url)
	}
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTurnSendsImage: the model calls view_image; its next request carries
// the image as an image_url part with the result's text, in a user message
// for text formats, and after the tool message for a native call (whose
// tool message takes text only).
func TestTurnSendsImage(t *testing.T) {
	for _, tc := range []struct {
		format   tools.Format
		call     modeltest.Reply
		textMsg  int // the message holding the result's text
		imageMsg int // the message holding the image
		text     string
	}{
		{format: tools.FormatMarkdown, call: modeltest.Text("Looking.\n```view_image a.png\n```\n", 10), textMsg: 3, imageMsg: 3,
			text: "Result of view_image a.png:\n(image a.png, 8×6, sent)"},
		{format: tools.FormatXML, call: modeltest.Text("<tool-use>\n<view_image path=\"a.png\">\n</view_image>\n</tool-use>\n", 10), textMsg: 3, imageMsg: 3,
			text: "Result of view_image a.png:\n(image a.png, 8×6, sent)"},
		{format: tools.FormatTool, call: modeltest.Reply{Chunks: []modeltest.Chunk{{ToolCall: &modeltest.ToolCallDelta{ID: "call_1", Name: "view_image", Args: `{"path": "a.png"}`}}}},
			textMsg: 3, imageMsg: 4, text: "Result of view_image a.png:\n(image a.png, 8×6, sent)\n(the image is in the next message)"},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			srv := modeltest.New(tc.call, modeltest.Text("A small picture.", 100))
			defer srv.Close()
			turn, data := imageTurn(t, srv, tc.format, ToolOptions{})
			var shown []string
			turn.Observe = func(e Event) {
				if e.Kind == EventToolDone {
					shown = append(shown, e.Text)
				}
			}
			if _, err := turn.Run(context.Background(), Request{Prompt: "what is in a.png?", Root: "/w"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			if len(reqs[0].Body.Messages[1].Images) != 0 {
				t.Error("the first request carries an image")
			}
			msgs := reqs[1].Body.Messages
			if len(msgs) != tc.imageMsg+1 {
				t.Fatalf("%d messages: %+v", len(msgs), msgs)
			}
			if got := msgs[tc.textMsg].Content; got != tc.text {
				t.Errorf("the result's text is %q, want %q", got, tc.text)
			}
			img := msgs[tc.imageMsg]
			if img.Role != "user" || len(img.Images) != 1 || !bytes.Equal(imageBytes(t, img.Images[0]), data) {
				t.Fatalf("message %d is %s with %d images, want the user's with a.png", tc.imageMsg, img.Role, len(img.Images))
			}
			// What the user sees (chat document, agentls ask) says it was sent.
			if len(shown) != 1 || shown[0] != "(image a.png, 8×6, sent)" {
				t.Errorf("shown %q", shown)
			}
		})
	}
}

// TestTurnImageRefused: a model server that takes no images refuses the
// request; under vision auto the image is taken out, the call's result
// says why and how to stop it, the turn goes on, and a later view_image is
// refused without asking the server again. Under vision on the turn ends
// with the server's error and the setting named.
func TestTurnImageRefused(t *testing.T) {
	refusal := modeltest.Reply{Status: 400, Type: "invalid_request_error", Message: "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"}
	t.Run("auto", func(t *testing.T) {
		srv := modeltest.New(
			modeltest.Text("```view_image a.png\n```\n", 100),
			refusal,
			modeltest.Text("```view_image b.png\n```\n", 100),
			modeltest.Text("I cannot see images.", 100),
		)
		defer srv.Close()
		turn, _ := imageTurn(t, srv, tools.FormatMarkdown, ToolOptions{})
		var failed []string
		turn.Observe = func(e Event) {
			if e.Kind == EventToolDone && e.Err != nil {
				failed = append(failed, e.Err.Error())
			}
		}
		sum, err := turn.Run(context.Background(), Request{Prompt: "look at a.png"})
		if err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if len(reqs) != 4 || sum.Final != "I cannot see images." {
			t.Fatalf("%d model calls, final %q", len(reqs), sum.Final)
		}
		retried := reqs[2].Body.Messages[3]
		// Only the truth: not "(…, sent)" beside "[the image was not sent…]".
		if len(retried.Images) != 0 || !strings.Contains(retried.Content, "(image a.png, 8×6, not sent)") || strings.Contains(retried.Content, ", sent)") ||
			!strings.Contains(retried.Content, "the image was not sent: the model's server refused it") || !strings.Contains(retried.Content, "agentls.vision to off") {
			t.Errorf("after the refusal the model is told %q (%d images)", retried.Content, len(retried.Images))
		}
		second := reqs[3].Body.Messages
		last := second[len(second)-1]
		if len(last.Images) != 0 || !strings.Contains(last.Content, "Error from view_image b.png") || !strings.Contains(last.Content, "refused an image earlier in this turn") {
			t.Errorf("a second view_image gave %q (%d images)", last.Content, len(last.Images))
		}
		for _, m := range second {
			if len(m.Images) != 0 {
				t.Error("an image was sent after the server refused images")
			}
		}
		if len(failed) != 2 || !strings.Contains(failed[0], "set agentls.vision to off") {
			t.Errorf("the user was shown %q", failed)
		}
	})
	t.Run("auto, native call", func(t *testing.T) {
		call := modeltest.Reply{Chunks: []modeltest.Chunk{{ToolCall: &modeltest.ToolCallDelta{ID: "call_1", Name: "view_image", Args: `{"path": "a.png"}`}}}}
		srv := modeltest.New(call, refusal, modeltest.Text("I cannot see images.", 100))
		defer srv.Close()
		turn, _ := imageTurn(t, srv, tools.FormatTool, ToolOptions{})
		if _, err := turn.Run(context.Background(), Request{Prompt: "look at a.png"}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d model calls", len(reqs))
		}
		var said []string
		for _, m := range reqs[2].Body.Messages[2:] {
			said = append(said, m.Content)
			if len(m.Images) != 0 {
				t.Error("an image was sent again after the refusal")
			}
		}
		all := strings.Join(said, "\n")
		if !strings.Contains(all, "(image a.png, 8×6, not sent)") || !strings.Contains(all, "the image was not sent: the model's server refused it") ||
			strings.Contains(all, ", sent)") || strings.Contains(all, "the image is in the next message") || strings.Contains(all, "The image sent by") {
			t.Errorf("after the refusal the model is told %q", said)
		}
	})
	t.Run("on", func(t *testing.T) {
		srv := modeltest.New(modeltest.Text("```view_image a.png\n```\n", 100), refusal)
		defer srv.Close()
		turn, _ := imageTurn(t, srv, tools.FormatMarkdown, ToolOptions{Vision: vision.Options{Mode: vision.ModeOn}})
		_, err := turn.Run(context.Background(), Request{Prompt: "look at a.png"})
		var me *Error
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "image input is not supported") || !strings.Contains(err.Error(), "the vision setting is on") {
			t.Fatalf("the turn ended with %v", err)
		}
	})
	t.Run("off", func(t *testing.T) {
		srv := modeltest.New(modeltest.Text("```view_image a.png\n```\n", 100), modeltest.Text("ok", 100))
		defer srv.Close()
		turn, _ := imageTurn(t, srv, tools.FormatMarkdown, ToolOptions{Vision: vision.Options{Mode: vision.ModeOff}})
		if _, err := turn.Run(context.Background(), Request{Prompt: "look at a.png"}); err != nil {
			t.Fatal(err)
		}
		got := srv.Requests()[1].Body.Messages[3]
		if len(got.Images) != 0 || !strings.Contains(got.Content, "the vision setting is off") {
			t.Errorf("with vision off the model is told %q (%d images)", got.Content, len(got.Images))
		}
	})
}

// TestTurnImageBounds: a model that calls view_image again and again
// cannot grow every later request without bound: past the turn's count
// (or bytes) the call is refused with a message and sends nothing.
func TestTurnImageBounds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits Limits
		want   string
	}{
		{"count", Limits{MaxImages: 1}, "this turn already sent 1 images"},
		{"bytes", Limits{MaxImageBytes: -1}, "B of images one turn sends"}, // -1: b.png's size, plus one byte

	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(
				modeltest.Text("```view_image b.png\n```\n", 100),
				modeltest.Text("```view_image a.png\n```\n", 100),
				modeltest.Text("done", 100),
			)
			defer srv.Close()
			turn, _ := imageTurn(t, srv, tools.FormatMarkdown, ToolOptions{})
			turn.Limits = tc.limits
			if tc.limits.MaxImageBytes == -1 {
				turn.Limits.MaxImageBytes = len(pngOf(t, 4, 4)) + 1
			}
			if _, err := turn.Run(context.Background(), Request{Prompt: "look"}); err != nil {
				t.Fatal(err)
			}
			msgs := srv.Requests()[2].Body.Messages
			if len(msgs[3].Images) != 1 {
				t.Errorf("the first image was not sent")
			}
			if last := msgs[5]; len(last.Images) != 0 || !strings.Contains(last.Content, tc.want) {
				t.Errorf("the second view_image gave %q (%d images)", last.Content, len(last.Images))
			}
		})
	}
}

// TestTurnFailedCallSendsNoImage: a tool that attached an image and then
// failed sends only its error (an MCP tool whose result broke after an
// image part).
func TestTurnFailedCallSendsNoImage(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```view_image a.png\n```\n", 100), modeltest.Text("ok", 100))
	defer srv.Close()
	runner := runnerFunc(func(ctx context.Context, use tools.ToolUse) (string, error) {
		if err := tools.AttachImage(ctx, tools.Image{Name: "x.png", MIMEType: "image/png", Data: []byte("png")}); err != nil {
			return "", err
		}
		return "", errors.New("the server's result broke after its image")
	})
	turn := newTurn(t, srv, tools.FormatMarkdown, runner)
	if _, err := turn.Run(context.Background(), Request{Prompt: "look"}); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[1].Body.Messages[3]
	if len(got.Images) != 0 || !strings.Contains(got.Content, "result broke") {
		t.Errorf("the model got %q with %d images", got.Content, len(got.Images))
	}
}

// runnerFunc is a ToolRunner from a function.
type runnerFunc func(ctx context.Context, use tools.ToolUse) (string, error)

func (f runnerFunc) RunTool(ctx context.Context, use tools.ToolUse) (string, error) {
	return f(ctx, use)
}
