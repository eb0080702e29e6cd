package agent

import (
	"context"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

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
		text, err := t.readWhole(ctx, p)
		if err != nil || isListing(text) {
			continue
		}
		out = append(out, FileText{Path: p, Text: clipView(text, maxContextBytes)})
	}
	return out
}

// likelyFiles are the files of the workspace's top folder (listing, as
// read lists it) a compact turn whose request names no file shows the
// model from the first step, each as a read call shows it: all of them
// when they are at most maxContextFiles and fit maxContextBytes together,
// else the ones whose path or text shares the most words with the prompt
// (at least one), as many as fit. A small model told "the version this
// program reports is wrong" and shown only the listing guessed a file
// and its content instead of reading it (issue 30); aider's users add the
// files to the chat. Secrets are left out as namedFiles leaves them out.
func (t *Turn) likelyFiles(ctx context.Context, req Request, listing string) []FileText {
	spec, ok := t.Registry.Get(tools.NameRead)
	if !ok || !spec.Runnable() {
		return nil
	}
	rule := policy.NewSecretRule(req.Root, "")
	type candidate struct {
		file  FileText
		score int
	}
	var cands []candidate
	words := promptWords(req.Prompt)
	for _, name := range listedFiles(listing) {
		if rule.File(filepath.Join(req.Root, filepath.FromSlash(name))) != "" {
			continue
		}
		view, err := spec.Run(ctx, tools.ToolUse{Tool: tools.NameRead, Args: []string{name}})
		if err != nil || isListing(view) || len(view) > maxContextBytes {
			continue
		}
		hay := strings.ToLower(name + "\n" + view)
		score := 0
		for _, w := range words {
			if strings.Contains(hay, w) {
				score++
			}
		}
		cands = append(cands, candidate{FileText{Path: name, Text: view}, score})
	}
	total := 0
	for _, c := range cands {
		total += len(c.file.Text)
	}
	all := len(cands) <= maxContextFiles && total <= maxContextBytes
	// Best first; a stable sort keeps the listing's order among equals.
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.score - a.score })
	var picked []candidate
	size := 0
	for _, c := range cands {
		if !all && c.score == 0 || len(picked) == maxContextFiles {
			break
		}
		if size+len(c.file.Text) > maxContextBytes {
			continue
		}
		size += len(c.file.Text)
		picked = append(picked, c)
	}
	// Shown best last, nearest the reply (a small model starts from the
	// last file it read), equals in the listing's order.
	slices.SortStableFunc(picked, func(a, b candidate) int { return a.score - b.score })
	var out []FileText
	for _, c := range picked {
		out = append(out, c.file)
	}
	return out
}

// listedFiles are the files (not folders) of a read listing.
func listedFiles(listing string) []string {
	var out []string
	for l := range strings.Lines(listing) {
		l = strings.TrimRight(l, "\n")
		if l == "" || strings.HasPrefix(l, "`") || strings.HasSuffix(l, "/") || strings.ContainsAny(l, " \t(") {
			continue // a fence, a folder, a note ("(… more)")
		}
		out = append(out, l)
	}
	return out
}

// promptWords are a prompt's words that can tell files apart: lower
// case, four letters or more, without the words any request uses.
func promptWords(prompt string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len(w) >= 4 && !commonWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// commonWords say what to do, not where: they match any file.
var commonWords = map[string]bool{
	"that": true, "this": true, "with": true, "from": true, "into": true, "should": true, "must": true, "make": true,
	"file": true, "files": true, "does": true, "have": true, "there": true, "when": true, "what": true, "which": true,
	"wrong": true, "correct": true, "right": true, "change": true, "update": true, "please": true, "them": true,
	"they": true, "their": true, "then": true, "than": true, "also": true, "only": true, "each": true, "every": true,
	"some": true, "code": true, "work": true, "works": true, "exist": true, "exists": true, "real": true,
}

// topListing is the workspace's top folder as the read tool lists it
// (the same entries a read call shows, at most its limit), or "" when the
// turn cannot read or the folder is empty.
func (t *Turn) topListing(ctx context.Context) string {
	text, err := t.readWhole(ctx, ".")
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
