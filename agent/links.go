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
		if strings.HasPrefix(p, "../") || p == ".." || p == "." {
			continue // outside the workspace, or the root itself: not ours to check
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
// into; "" when there are none. before is markdownLinks before the edit;
// written are the files this turn's edits touched, which count as there
// (an editor may hold a new one unsaved: saying nothing is the safe
// side). An edit that changed nothing (a
// save of the file as it was) owns every link of the file: asked to fix
// the README's broken link, the real model at temperature 0 sent
// README.md back unchanged, twice.
func (t *Turn) brokenLinksNote(ctx context.Context, before map[string][]string, unchanged bool, written []string) string {
	var b strings.Builder
	folders := &folderLister{turn: t, seen: map[string]folderListing{}}
	for p, had := range before {
		view, err := t.readWhole(ctx, p)
		if err != nil || isListing(view) {
			continue // deleted or moved away
		}
		for _, target := range localTargets(unnumbered(view), path.Dir(p)) {
			if !unchanged && slices.Contains(had, target) {
				continue // there before the edit: not the model's doing
			}
			if slices.ContainsFunc(written, func(w string) bool { return cleanRel(w) == target }) {
				continue
			}
			if there, known := folders.has(ctx, target); there || !known {
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
			names := folders.list(ctx, dir).names
			if len(names) == 0 || len(names) > maxNamedEntries {
				fmt.Fprintf(&b, "\n%s links to %s, which does not exist. Read %s to see the files there, then send %s again with that link fixed.", p, target, dir, p)
				continue
			}
			fmt.Fprintf(&b, "\n%s links to %s, which does not exist: %s holds %s. Send %s again with that link fixed.", p, target, folder, joinNames(names), p)
		}
	}
	return b.String()
}

// A folderLister tells whether a path is on disk from the read tool's
// listings of its folders alone, from the root down: no file is read, so
// a link to a secret file asks nobody to show it (which a read would), a
// binary file counts as there (which a read refuses), and what a
// repository's Markdown links to decides nothing but this sentence.
type folderLister struct {
	turn *Turn
	seen map[string]folderListing // by folder, "." the root
}

// A folderListing is a folder's entries as the read tool lists them
// (folders end in "/"); whole is false when the listing was cut short or
// could not be made.
type folderListing struct {
	names []string
	whole bool
}

// list lists dir, a folder (the root, or one a listing showed).
func (f *folderLister) list(ctx context.Context, dir string) folderListing {
	if l, ok := f.seen[dir]; ok {
		return l
	}
	var l folderListing
	if view, err := f.turn.readWhole(ctx, dir); err == nil && isListing(view) {
		l.names, l.whole = listingNames(view)
	}
	f.seen[dir] = l
	return l
}

// has reports whether target (cleaned, relative to the root) is on disk;
// known is false when a listing on the way could not say (cut short, or
// not made).
func (f *folderLister) has(ctx context.Context, target string) (there, known bool) {
	dir := "."
	parts := strings.Split(target, "/")
	for i, part := range parts {
		l := f.list(ctx, dir)
		listed := slices.Contains(l.names, part+"/")
		if i == len(parts)-1 {
			listed = listed || slices.Contains(l.names, part)
		}
		switch {
		case listed && i == len(parts)-1:
			return true, true
		case listed:
			dir = path.Join(dir, part)
		default:
			return false, l.whole
		}
	}
	return false, false
}

// maxNamedEntries is the most files of a folder a note names in a
// sentence.
const maxNamedEntries = 12

// listingNames are the entries of a read tool's folder listing; whole is
// false when the listing says it left some out.
func listingNames(view string) (names []string, whole bool) {
	whole = true
	for i, l := range strings.Split(strings.TrimRight(view, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "... and "):
			whole = false
		case i == 0 || strings.HasPrefix(l, "```") || strings.TrimSpace(l) == "" || strings.HasPrefix(l, "("):
		default:
			names = append(names, strings.TrimSpace(l))
		}
	}
	return names, whole
}

// joinNames writes names as a sentence does: "a, b and c".
func joinNames(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
