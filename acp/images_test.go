package acp

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// onePixelPNG is a 1×1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// TestPromptImage: initialize offers images; an image block of the
// prompt reaches the model with the prompt's message, and one the client
// names by a file: URI inside the workspace is read from there.
func TestPromptImage(t *testing.T) {
	srv := modeltest.New(modeltest.Text("A pixel.", 5), modeltest.Text("Another.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true) // connect checks the capability
	if stop := prompt(t, conn, id, sdk.TextBlock("what is this?"), sdk.ImageBlock(onePixelPNG, "image/png")); stop != sdk.StopReasonEndTurn {
		t.Errorf("stopReason %q", stop)
	}
	data, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	os.WriteFile(filepath.Join(root, "shot.png"), data, 0o644)
	byURI := sdk.ContentBlock{Image: &sdk.ContentBlockImage{MimeType: "image/png", Uri: sdk.Ptr("file://" + filepath.Join(root, "shot.png"))}}
	prompt(t, conn, id, sdk.TextBlock("and this?"), byURI)
	for i, req := range srv.Requests() {
		msgs := req.Body.Messages
		last := msgs[len(msgs)-1]
		if last.Role != "user" || len(last.Images) != 1 || !strings.HasPrefix(last.Images[0], "data:image/png;base64,") {
			t.Errorf("request %d: the prompt's message %+v carries no image", i, last)
		}
	}
}

// TestAttackPromptImage: an image block is the client's data or a file
// inside the workspace, never more. A file: URI outside it, or a link in
// it that leads outside, or data that is no image, is refused before the
// model is asked; so is any image where the vision setting is off.
func TestAttackPromptImage(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.png")
	data, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	os.WriteFile(outside, data, 0o644)
	image := func(uri string) sdk.ContentBlock {
		return sdk.ContentBlock{Image: &sdk.ContentBlockImage{MimeType: "image/png", Uri: sdk.Ptr(uri)}}
	}
	for _, tc := range []struct {
		name     string
		block    func(root string) sdk.ContentBlock
		settings string
	}{
		{"a path outside", func(string) sdk.ContentBlock { return image("file://" + outside) }, ""},
		{"a path escaping", func(root string) sdk.ContentBlock {
			return image("file://" + root + "/../" + filepath.Base(filepath.Dir(outside)) + "/secret.png")
		}, ""},
		{"a link inside to a file outside", func(root string) sdk.ContentBlock {
			os.Symlink(outside, filepath.Join(root, "link.png"))
			return image("file://" + filepath.Join(root, "link.png"))
		}, ""},
		{"not an image", func(string) sdk.ContentBlock {
			return sdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\nrm -rf ~\n")), "image/png")
		}, ""},
		{"not base64", func(string) sdk.ContentBlock { return sdk.ImageBlock("%%%", "image/png") }, ""},
		{"vision off", func(string) sdk.ContentBlock { return sdk.ImageBlock(onePixelPNG, "image/png") }, `{"vision": "off"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text("Seen.", 5))
			defer srv.Close()
			client := &fakeClient{}
			conn, id, root := connectWith(t, srv.URL, client, true, tc.settings)
			_, err := conn.Prompt(t.Context(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("look"), tc.block(root)}})
			if err == nil {
				t.Error("the prompt was taken")
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
		})
	}
}

// TestToolImage: an image a call sends the model (view_image, offered
// by the tools setting) is in the call's content, as an image.
func TestToolImage(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```view_image shot.png\n```\n", 5), modeltest.Text("A pixel.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connectWith(t, srv.URL, client, true, `{"tools": ["read", "view_image"]}`)
	data, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	os.WriteFile(filepath.Join(root, "shot.png"), data, 0o644)
	prompt(t, conn, id, sdk.TextBlock("look at shot.png"))
	start, end := lastCall(t, client.takeUpdates())
	var images []*sdk.ContentBlockImage
	for _, c := range end.Content {
		if c.Content != nil && c.Content.Content.Image != nil {
			images = append(images, c.Content.Content.Image)
		}
	}
	if start.Kind != sdk.ToolKindRead || *end.Status != sdk.ToolCallStatusCompleted || len(images) != 1 || images[0].MimeType != "image/png" || images[0].Data != onePixelPNG {
		t.Errorf("the view_image call %+v ended %+v", start, end)
	}
}
