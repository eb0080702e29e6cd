package acp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/internal/text"
)

// promptText is a client's prompt as the turn takes it: its text, each
// link to a file of the workspace as an @-mention (the turn attaches the
// file as the client's buffer has it, and as a mention reads it: inside
// the workspace, secrets left out), each embedded resource's text
// attached under its name. Images and audio, which initialize does not
// offer, are named and left out.
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
		case block.Image != nil, block.Audio != nil:
			attached = append(attached, "(an image or audio clip was attached; this agent takes text only, so it was left out)")
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
