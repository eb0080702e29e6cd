package agent

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/procs/policy"
)

// Mentions are the references a user writes in a prompt or a chat
// message to put something in the model's context, as Zed, Copilot and
// Claude Code users do:
//
//	@path/to/file.go   the file as the editor holds it (unsaved changes included)
//	@folder/           the folder's listing
//	@buffers           every file open in the editor
//	#diagnostics       the diagnostics the editor shows
//	#selection         the selected text
//	#git-diff          the workspace's uncommitted changes
//
// A word is a mention only where it could not be anything else: an @ or
// # at the start of the text or after a space or an opening bracket, and
// for @, a path that exists in the workspace ("@Override" and
// "me@example.com" stay text). The prompt keeps its words; what each
// mention adds follows it as context, and each is listed in the turn log.
//
// A mention reads what the model could read anyway, and no more: paths
// stay inside the workspace, and a file the secret rule covers is left out
// with a note, as read leaves it out.

// MentionKind is what a mention refers to.
type MentionKind int

const (
	MentionFile MentionKind = iota
	MentionFolder
	MentionBuffers
	MentionDiagnostics
	MentionSelection
	MentionGitDiff
)

// A Mention is one reference found in a prompt.
type Mention struct {
	Kind MentionKind
	// Text is the mention as written ("@a.go", "#diagnostics").
	Text string
	// Path is a file's or folder's path relative to the root, slashes.
	Path string
}

// keywordMentions are the mentions that name no path.
var keywordMentions = map[string]MentionKind{
	"@buffers":     MentionBuffers,
	"#diagnostics": MentionDiagnostics,
	"#selection":   MentionSelection,
	"#git-diff":    MentionGitDiff,
}

// KeywordMentions are the keyword mentions' texts, for completion.
func KeywordMentions() []string {
	out := make([]string, 0, len(keywordMentions))
	for k := range keywordMentions {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FindMentions returns the mentions in text, in order, each once. root is
// the workspace folder: an @path is a mention only when it exists there.
func FindMentions(root, text string) []Mention {
	var out []Mention
	seen := map[string]bool{}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '@' && c != '#' || i > 0 && !strings.ContainsRune(" \t\n([{\"'`", rune(text[i-1])) {
			continue
		}
		end := i + 1
		for end < len(text) && !strings.ContainsRune(" \t\r\n)]}\"'`,;", rune(text[end])) {
			end++
		}
		word := strings.TrimRight(text[i:end], ".:!?")
		if word != text[i:end] && strings.HasSuffix(text[i:end], "/") {
			word = text[i:end]
		}
		i = end - 1
		if seen[word] || len(word) < 2 {
			continue
		}
		if kind, ok := keywordMentions[word]; ok {
			seen[word] = true
			out = append(out, Mention{Kind: kind, Text: word})
			continue
		}
		if c != '@' {
			continue
		}
		rel := word[1:]
		if filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(strings.TrimSuffix(rel, "/"))) {
			continue
		}
		info, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		seen[word] = true
		m := Mention{Kind: MentionFile, Text: word, Path: strings.TrimSuffix(rel, "/")}
		if info.IsDir() {
			m.Kind = MentionFolder
		}
		out = append(out, m)
	}
	return out
}

// A MentionSource is what a front-end gives mentions to read: the
// language server its buffers, diagnostics and selection, the command
// line the disk. A part it cannot give is nil, and its mention says so.
type MentionSource struct {
	// Root is the workspace folder.
	Root string
	// Read returns a file's text as the editor holds it.
	Read func(ctx context.Context, rel string) (string, error)
	// Buffers lists the open files (relative paths).
	Buffers func() []string
	// Diagnostics returns the diagnostics shown, one a line
	// ("a.go:3:5: error: undefined: x").
	Diagnostics func() string
	// Selection returns the selected text and its file ("" when none).
	Selection func() (rel, text string)
	// GitDiff returns the uncommitted changes.
	GitDiff func(ctx context.Context) (string, error)
	// Secret says why a file may hold secrets ("" when it does not); nil
	// is the shell policy's rule.
	Secret func(abs string) string
}

// Bounds on what mentions add: one file, and all of them together.
const (
	maxMentionBytes  = 32 << 10
	maxMentionsBytes = 96 << 10
	maxListed        = 200
)

// An Expanded mention is what it added to the request, for the turn log.
type Expanded struct {
	Mention
	// Added is a short account: "a.go (120 lines)", "left out: .env may
	// hold secrets".
	Added string
}

// ExpandMentions returns the context the mentions in prompt add (to
// follow the prompt in the user's message; "" when there are none) and
// what each added.
func ExpandMentions(ctx context.Context, src MentionSource, prompt string) (string, []Expanded) {
	mentions := FindMentions(src.Root, prompt)
	if len(mentions) == 0 {
		return "", nil
	}
	if src.Secret == nil {
		src.Secret = policy.NewSecretRule(src.Root, "").File
	}
	var sb strings.Builder
	var log []Expanded
	budget := maxMentionsBytes
	section := func(title, body string) {
		body = strings.TrimRight(body, "\n")
		if len(body) > min(maxMentionBytes, budget) {
			body = text.Clip(body, min(maxMentionBytes, budget)) + "\n[cut: the rest is longer than a mention adds; read it if you need it]"
		}
		budget -= len(body)
		fence := text.Fence(body)
		fmt.Fprintf(&sb, "\n%s:\n%s\n%s\n%s\n", title, fence, body, fence)
	}
	for _, m := range mentions {
		e := Expanded{Mention: m}
		switch m.Kind {
		case MentionFile:
			e.Added = expandFile(ctx, src, m.Path, section)
		case MentionFolder:
			e.Added = expandFolder(src, m.Path, section)
		case MentionBuffers:
			if src.Buffers == nil || src.Read == nil {
				e.Added = "nothing: no editor buffers here"
				break
			}
			open := src.Buffers()
			var added []string
			for _, rel := range open {
				if a := expandFile(ctx, src, rel, section); !strings.HasPrefix(a, "left out") {
					added = append(added, rel)
				}
			}
			e.Added = fmt.Sprintf("%d open files: %s", len(added), strings.Join(added, ", "))
		case MentionDiagnostics:
			if src.Diagnostics == nil {
				e.Added = "nothing: no editor diagnostics here"
				break
			}
			d := src.Diagnostics()
			if d == "" {
				d = "(no diagnostics)"
			}
			section("#diagnostics (what the editor shows)", d)
			e.Added = fmt.Sprintf("%d diagnostics", strings.Count(strings.TrimSpace(d), "\n")+1)
		case MentionSelection:
			if src.Selection == nil {
				e.Added = "nothing: no selection here"
				break
			}
			rel, sel := src.Selection()
			if sel == "" {
				e.Added = "nothing: nothing is selected"
				break
			}
			section("#selection (in "+rel+")", sel)
			e.Added = fmt.Sprintf("%d lines of %s", strings.Count(sel, "\n")+1, rel)
		case MentionGitDiff:
			if src.GitDiff == nil {
				e.Added = "nothing: no git here"
				break
			}
			d, err := src.GitDiff(ctx)
			if err != nil {
				e.Added = "nothing: " + err.Error()
				break
			}
			if d == "" {
				d = "(no uncommitted changes)"
			}
			section("#git-diff (uncommitted changes)", d)
			e.Added = fmt.Sprintf("%d lines of diff", strings.Count(d, "\n"))
		}
		log = append(log, e)
	}
	var notes []string
	for _, e := range log {
		if strings.HasPrefix(e.Added, "nothing") || strings.HasPrefix(e.Added, "left out") {
			notes = append(notes, fmt.Sprintf("%s: %s", e.Text, e.Added))
		}
	}
	out := "\n\nContext the user attached with mentions:\n" + sb.String()
	if len(notes) > 0 {
		out += "\n(" + strings.Join(notes, "; ") + ")\n"
	}
	return out, log
}

// expandFile adds one file's text, unless the secret rule covers it.
func expandFile(ctx context.Context, src MentionSource, rel string, section func(title, body string)) string {
	abs := filepath.Join(src.Root, filepath.FromSlash(rel))
	if why := outside(src.Root, abs); why != "" {
		return "left out: " + rel + " " + why
	}
	if src.Secret != nil {
		if why := src.Secret(abs); why != "" {
			return "left out: " + rel + " " + why
		}
	}
	var text string
	var err error
	if src.Read != nil {
		text, err = src.Read(ctx, rel)
	} else {
		var data []byte
		data, err = os.ReadFile(abs)
		text = string(data)
	}
	if err != nil {
		return "nothing: " + err.Error()
	}
	section("@"+rel, numbered(text))
	lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
	return fmt.Sprintf("%s (%d %s)", rel, lines, plural(lines, "line", "lines"))
}

// outside says why abs, resolved, is not in the workspace root ("" when
// it is): a repository's link must not attach the user's other files.
func outside(root, abs string) string {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil || !inside(real, root) {
		return "leads outside the workspace"
	}
	return ""
}

// numbered is text with line numbers, as read shows it, so the model
// can place an edit.
func numbered(text string) string {
	var sb strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&sb, "%d\t%s\n", i+1, line)
	}
	return sb.String()
}

// expandFolder adds a folder's listing (names only, bounded).
func expandFolder(src MentionSource, rel string, section func(title, body string)) string {
	abs := filepath.Join(src.Root, filepath.FromSlash(rel))
	if why := outside(src.Root, abs); why != "" {
		return "left out: " + rel + "/ " + why
	}
	var names []string
	filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == abs {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if len(names) >= maxListed {
			return filepath.SkipAll
		}
		r, _ := filepath.Rel(src.Root, p)
		if d.IsDir() {
			r += "/"
		}
		names = append(names, filepath.ToSlash(r))
		return nil
	})
	slices.Sort(names)
	more := ""
	if len(names) >= maxListed {
		more = fmt.Sprintf("\n[listing stopped at %d entries]", maxListed)
	}
	section("@"+rel+"/ (listing)", strings.Join(names, "\n")+more)
	return fmt.Sprintf("%s/ (%d %s)", rel, len(names), plural(len(names), "entry", "entries"))
}
