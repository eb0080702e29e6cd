package mcp

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/vision"
)

type attached []tools.Image

func (a *attached) AttachImage(img tools.Image) error { *a = append(*a, img); return nil }

// TestResultImages: an MCP tool's image reaches the model as view_image's
// do (fitted, described), unless the vision setting is off, the bytes
// are no image, or nothing in the call sends images — then the model
// reads why instead.
func TestResultImages(t *testing.T) {
	var buf bytes.Buffer
	png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 40, 20)))
	chart := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a chart:"}, &sdk.ImageContent{MIMEType: "image/png", Data: buf.Bytes()}}}
	for _, tc := range []struct {
		name   string
		res    *sdk.CallToolResult
		opts   vision.Options
		attach bool
		want   string
		sent   int
	}{
		{"sent", chart, vision.Options{Mode: vision.ModeAuto}, true, "a chart:\n(image image 2, 40×20, sent)", 1},
		{"vision off", chart, vision.Options{Mode: vision.ModeOff}, true, "vision setting is off", 0},
		{"nothing sends images", chart, vision.Options{Mode: vision.ModeAuto}, false, "not shown to the model", 0},
		{"not an image", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: []byte("<html>")}}}, vision.Options{Mode: vision.ModeAuto}, true, "not shown to the model", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var got attached
			if tc.attach {
				ctx = tools.WithImageAttacher(ctx, &got)
			}
			text := resultText(ctx, tc.res, tc.opts)
			if !strings.Contains(text, tc.want) || len(got) != tc.sent {
				t.Errorf("resultText = %q with %d images sent; want %q and %d", text, len(got), tc.want, tc.sent)
			}
		})
	}
}
