package agent

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// Asked to point a README's link at "the real file", the real model wrote
// CHANGES.md, a name it made up, and said it was done. After an edit of a
// Markdown file, the links the edit added are checked as a reader of the
// repository would follow them, and one to a file that does not exist is
// pointed out with its folder's files: what a link checker in CI would
// have said.

// linkRe finds the targets of Markdown's inline links and images:
// [text](target) and [text](target "title").
var linkRe = regexp.MustCompile(`\]\(\s*([^()\s]+)(?:\s+"[^"]*")?\s*\)`)

// isMarkdown reports whether p is a Markdown file.
func isMarkdown(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".markdown"
}

// localTargets returns text's link targets that name a file of the
// workspace, relative to dir (the Markdown file's folder), cleaned and
// without their #fragment: not a URL, a mail address, an anchor in the
// same page or a path from the filesystem's root.
func localTargets(text, dir string) []string {
	var out []string
	for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
		target, _, _ := strings.Cut(m[1], "#")
		target, _, _ = strings.Cut(target, "?")
		if target == "" || strings.HasPrefix(target, "/") || strings.Contains(target, ":") {
			continue
		}
		p := path.Join(dir, target)
		if strings.HasPrefix(p, "../") || p == ".." {
			continue // outside the workspace: not ours to check
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// markdownLinks returns, for each Markdown file use edits, the local link
// targets it has now (nil for a file that does not exist yet): what
// brokenLinksNote compares the edited file with.
func (t *Turn) markdownLinks(ctx context.Context, use tools.ToolUse) map[string][]string {
	links := map[string][]string{}
	for _, p := range edittool.PathsOf(use) {
		if !isMarkdown(p) {
			continue
		}
		view, err := t.readWhole(ctx, p)
		if err != nil || isListing(view) {
			links[p] = nil
			continue
		}
		links[p] = localTargets(unnumbered(view), path.Dir(p))
	}
	return links
}

// brokenLinksNote tells the model which links its edit of Markdown files
// added that lead to no file, with the files of the folder they point
// into; "" when there are none. before is markdownLinks before the edit.
// An edit that changed nothing (a save of the file as it was) owns every
// link of the file: asked to fix the README's broken link, the real model
// at temperature 0 sent README.md back unchanged, twice.
func (t *Turn) brokenLinksNote(ctx context.Context, before map[string][]string, unchanged bool) string {
	var b strings.Builder
	for p, had := range before {
		view, err := t.readWhole(ctx, p)
		if err != nil || isListing(view) {
			continue // deleted or moved away
		}
		for _, target := range localTargets(unnumbered(view), path.Dir(p)) {
			if !unchanged && slices.Contains(had, target) {
				continue // there before the edit: not the model's doing
			}
			if _, err := t.readWhole(ctx, target); err == nil {
				continue
			}
			// Worded as it was measured, word for word: told the
			// folder's files as a listing block, or as "(the top
			// folder: it holds …)", the real model sent README.md back
			// unchanged; told "the folder holds …" it fixed the link.
			dir := path.Dir(target)
			folder := "the folder " + dir + "/"
			if dir == "." {
				folder = "the folder"
			}
			var names []string
			if listing, err := t.readWhole(ctx, dir); err == nil && isListing(listing) {
				names = listingNames(listing)
			}
			if len(names) == 0 || len(names) > maxNamedEntries {
				fmt.Fprintf(&b, "\n%s links to %s, which does not exist. Read %s to see the files there, then send %s again with that link fixed.", p, target, dir, p)
				continue
			}
			fmt.Fprintf(&b, "\n%s links to %s, which does not exist: %s holds %s. Send %s again with that link fixed.", p, target, folder, joinNames(names), p)
		}
	}
	return b.String()
}

// readWhole is the read tool's view of path (a file, or a folder's
// listing), as the model would see it.
func (t *Turn) readWhole(ctx context.Context, p string) (string, error) {
	spec, ok := t.Registry.Get(tools.NameRead)
	if !ok || !spec.Runnable() {
		return "", fmt.Errorf("no read tool in this turn")
	}
	return spec.Run(ctx, tools.ToolUse{Tool: tools.NameRead, Args: []string{p}})
}

// maxNamedEntries is the most files of a folder a note names in a
// sentence.
const maxNamedEntries = 12

// listingNames are the entries of a read tool's folder listing.
func listingNames(view string) []string {
	var names []string
	for i, l := range strings.Split(strings.TrimRight(view, "\n"), "\n") {
		if i == 0 || strings.HasPrefix(l, "```") || strings.TrimSpace(l) == "" || strings.HasPrefix(l, "(") {
			continue
		}
		names = append(names, strings.TrimSpace(l))
	}
	return names
}

// joinNames writes names as a sentence does: "a, b and c".
func joinNames(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
