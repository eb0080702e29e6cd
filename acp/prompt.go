package acp

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/vision"
)

// promptText is a client's prompt as the turn takes it: its text, each
// link to a file of the workspace as an @-mention (the turn attaches the
// file as the client's buffer has it, and as a mention reads it: inside
// the workspace, secrets left out), each embedded resource's text
// attached under its name, each image named (promptImages sends it).
// Audio, which initialize does not offer, is named and left out.
func promptText(blocks []sdk.ContentBlock, root string) string {
	var b strings.Builder
	var attached []string
	for _, block := range blocks {
		switch {
		case block.Text != nil:
			b.WriteString(block.Text.Text)
		case block.ResourceLink != nil:
			if rel, ok := workspacePath(block.ResourceLink.Uri, root); ok {
				fmt.Fprintf(&b, " @%s ", rel)
			} else {
				fmt.Fprintf(&b, " %s (%s) ", block.ResourceLink.Name, block.ResourceLink.Uri)
			}
		case block.Resource != nil:
			res := block.Resource.Resource
			if res.TextResourceContents == nil {
				attached = append(attached, "(a binary resource was attached and left out)")
				continue
			}
			name := res.TextResourceContents.Uri
			if rel, ok := workspacePath(name, root); ok {
				name = rel
			}
			body := res.TextResourceContents.Text
			fence := text.Fence(body)
			attached = append(attached, fmt.Sprintf("%s, attached by the user:\n%s\n%s\n%s", text.InlineCode(name), fence, body, fence))
		case block.Image != nil:
			attached = append(attached, fmt.Sprintf("(the user attached %s)", imageName(block.Image)))
		case block.Audio != nil:
			attached = append(attached, "(an audio clip was attached; this agent takes no audio, so it was left out)")
		}
	}
	out := strings.TrimSpace(b.String())
	if len(attached) > 0 {
		out += "\n\n" + strings.Join(attached, "\n\n")
	}
	return out
}

// workspacePath is a file: URI's path relative to root, slash-separated,
// when it is inside root.
func workspacePath(uri, root string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	rel, err := filepath.Rel(root, filepath.Clean(u.Path))
	if err != nil || !filepath.IsLocal(rel) || strings.ContainsAny(rel, " \t\n") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// maxPromptImages bounds the images of one prompt, as a turn bounds its
// tools' (agent.Limits' default).
const maxPromptImages = 10

// promptImages are a prompt's images as the model is sent them: each
// checked to be an image and fitted as view_image fits one
// (vision.Fit). An image is the client's data, or, with none, the file
// its file: URI names, which must be inside the workspace (vision.Load
// refuses anything else, symbolic links included). A prompt with an
// image the model may not be sent (the vision setting off, a broken
// image, a path elsewhere) is refused whole: nothing is lost, and the
// error says which.
func promptImages(blocks []sdk.ContentBlock, root string, opts vision.Options) ([]tools.Image, error) {
	var out []tools.Image
	for _, block := range blocks {
		im := block.Image
		if im == nil {
			continue
		}
		name := imageName(im)
		if opts.Mode == vision.ModeOff {
			return nil, fmt.Errorf("%s cannot be sent: the vision setting is off for this workspace (its model takes no images)", name)
		}
		if len(out) == maxPromptImages {
			return nil, fmt.Errorf("a prompt takes at most %d images", maxPromptImages)
		}
		var img tools.Image
		var err error
		switch {
		case im.Data != "":
			data, derr := base64.StdEncoding.DecodeString(im.Data)
			if derr != nil {
				return nil, fmt.Errorf("%s: its data is not base64: %v", name, derr)
			}
			img, _, err = vision.Fit(name, data, opts.MaxSide)
		case im.Uri != nil:
			rel, ok := workspacePath(*im.Uri, root)
			if !ok {
				return nil, fmt.Errorf("%s is not a file inside the workspace %s: not sent", *im.Uri, root)
			}
			img, _, err = vision.Load(root, rel, opts.MaxSide)
		default:
			return nil, fmt.Errorf("%s has neither data nor a uri", name)
		}
		if err != nil {
			return nil, err
		}
		// The bytes decide the type sent (Fit sniffs them); the
		// client's mimeType is only a claim.
		out = append(out, img)
	}
	return out, nil
}

// imageName is how an image block is named: its file's name, or its
// type.
func imageName(im *sdk.ContentBlockImage) string {
	if im.Uri != nil && *im.Uri != "" {
		if u, err := url.Parse(*im.Uri); err == nil && path.Base(u.Path) != "" && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
			return path.Base(u.Path)
		}
	}
	return "an image (" + im.MimeType + ")"
}
