package agent

import (
	"context"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools"
)

// Files the request is about are in the model's context from the first
// step: the selection's file and the files the prompt names (an AI!
// comment's instruction is the prompt). A small model that skips read then
// still patches lines that are in the file; aider's users add the files to
// the chat for the same reason.

const (
	maxContextFiles = 3
	maxContextBytes = 8 << 10 // of one file's view
)

// A FileText is a file's text as the read tool shows it (numbered lines),
// put in the request's message.
type FileText struct {
	Path string
	Text string
}

// fileNameRe matches words that look like file paths: a name with an
// extension, perhaps under folders (a.go, count.py, src/x.ts).
var fileNameRe = regexp.MustCompile(`[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]\.[A-Za-z0-9]{1,8}\b`)

// namedFiles returns the paths the request points at, the selection's file
// first, each once, at most maxContextFiles; whether they exist is for the
// reader to find.
func namedFiles(req Request) []string {
	// A secret the user merely named is not read into the request: the
	// shell policy's rule, which read itself follows (asking), decides.
	rule := policy.NewSecretRule(req.Root, "")
	secret := func(p string) bool { return rule.File(filepath.Join(req.Root, filepath.FromSlash(p))) != "" }
	var out []string
	add := func(p string) {
		p = strings.TrimPrefix(path.Clean(strings.TrimPrefix(p, "./")), "/")
		if p == "." || p == "" || strings.HasPrefix(p, "../") || slices.Contains(out, p) || secret(p) {
			return
		}
		out = append(out, p)
	}
	if req.Selection != nil {
		add(req.Selection.Path)
	}
	for _, loc := range fileNameRe.FindAllStringIndex(req.Prompt, -1) {
		m := strings.TrimRight(req.Prompt[loc[0]:loc[1]], ".")
		if loc[0] > 0 && req.Prompt[loc[0]-1] == '@' {
			continue // a mention: ExpandMentions attaches it (Request.Attached)
		}
		if strings.Contains(m, "://") || looksLikeNumber(m) {
			continue
		}
		add(m)
	}
	if len(out) > maxContextFiles {
		out = out[:maxContextFiles]
	}
	return out
}

// looksLikeNumber is a version or a decimal ("1.5", "v0.3"), not a file.
func looksLikeNumber(s string) bool {
	return strings.Trim(strings.TrimPrefix(s, "v"), "0123456789.") == ""
}

// contextFiles reads the files the request names through the turn's read
// tool, the same view a read call gives, each bounded to maxContextBytes;
// files that do not exist or cannot be read are left out silently (a name
// in the prompt may be a file to create).
func (t *Turn) contextFiles(ctx context.Context, req Request) []FileText {
	var out []FileText
	for _, p := range namedFiles(req) {
		spec, ok := t.Registry.Get(tools.NameRead)
		if !ok || !spec.Runnable() {
			return nil
		}
		text, err := spec.Run(ctx, tools.ToolUse{Tool: tools.NameRead, Args: []string{p}})
		if err != nil || isListing(text) {
			continue
		}
		out = append(out, FileText{Path: p, Text: clipView(text, maxContextBytes)})
	}
	return out
}

// topListing is the workspace's top folder as the read tool lists it
// (the same entries a read call shows, at most its limit), or "" when the
// turn cannot read or the folder is empty.
func (t *Turn) topListing(ctx context.Context) string {
	spec, ok := t.Registry.Get(tools.NameRead)
	if !ok || !spec.Runnable() {
		return ""
	}
	text, err := spec.Run(ctx, tools.ToolUse{Tool: tools.NameRead, Args: []string{"."}})
	if err != nil || !isListing(text) || strings.Contains(text, "(empty folder)") {
		return ""
	}
	return text
}

// isListing reports whether read's output is a folder's listing.
func isListing(view string) bool {
	first, _, _ := strings.Cut(view, "\n")
	return strings.HasSuffix(strings.TrimRight(strings.TrimLeft(first, "`"), " "), ")") && strings.Contains(first, "/ (")
}

// clipView cuts a read view to at most n bytes at a line, keeping its
// closing fence and saying so.
func clipView(view string, n int) string {
	if len(view) <= n {
		return view
	}
	lines := strings.SplitAfter(strings.TrimSuffix(view, "\n"), "\n")
	fence := strings.TrimSpace(lines[len(lines)-1])
	var b strings.Builder
	for _, l := range lines[:len(lines)-1] {
		if b.Len()+len(l) > n-200 {
			break
		}
		b.WriteString(l)
	}
	b.WriteString(fence + "\n(cut at 8 KB: read the file for the rest)\n")
	return b.String()
}
