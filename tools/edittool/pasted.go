package edittool

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/parse"
)

// What people paste from a chat, besides tool calls and SEARCH/REPLACE
// blocks: a unified diff in a ```diff block (git's or plain, or bare @@
// hunks under a line naming the file), and a whole file in a block of its
// language under a line naming it (or named in the block's info string).
// Neither is a tool call; ApplyReply finds them among the other fenced
// blocks, as it does SEARCH/REPLACE blocks.

// A PastedKind is the shape of a pasted edit.
type PastedKind int

const (
	PastedDiff PastedKind = iota // a unified diff
	PastedFile                   // a whole file
)

// A Pasted is an edit found in a reply that is not a tool call.
type Pasted struct {
	Kind PastedKind
	// Paths are the files the reply names for the block: on the line (or
	// lines) right above it, in its info string, or (Copilot's way) on a
	// "// filepath: a.go" first line. Exactly one is needed for a whole
	// file, and for a diff whose hunks have no file header; more than one
	// is refused, as which was meant cannot be told.
	Paths []string
	Body  string // the diff, or the file's content
	Lang  string // the block's info string
	Start int    // the block's offset in the reply
	// Skipped says why a block that named a file is not applied (its
	// language is not that file's): a warning, not an edit.
	Skipped string
}

// What names the block in messages: "```diff block (at byte 120)".
func (p Pasted) What() string {
	tag := p.Lang
	if f := strings.Fields(tag); len(f) > 0 {
		tag = f[0]
	}
	switch {
	case p.Kind == PastedFile && len(p.Paths) == 1:
		return fmt.Sprintf("whole-file ```%s block for %s (at byte %d)", tag, p.Paths[0], p.Start)
	case p.Kind == PastedFile:
		return fmt.Sprintf("whole-file ```%s block (at byte %d)", tag, p.Start)
	case tag == "":
		return fmt.Sprintf("unified diff block (at byte %d)", p.Start)
	}
	return fmt.Sprintf("unified diff ```%s block (at byte %d)", tag, p.Start)
}

// Files returns the files a pasted edit names, as written, without
// reading any (for counting what a reply will touch): a whole file's one
// path, a diff's files; nil when it cannot be read or names no file (it
// will be refused), or is Skipped.
func (p Pasted) Files() []string {
	if p.Skipped != "" {
		return nil
	}
	if p.Kind == PastedFile {
		if len(p.Paths) == 1 {
			return p.Paths
		}
		return nil
	}
	files, err := edits.ParseUnifiedDiff(p.Body)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range files {
		switch {
		case f.Path != "":
			out = union(out, []string{f.Path})
		case len(p.Paths) == 1:
			out = union(out, p.Paths)
		default:
			return nil
		}
		if f.MoveTo != "" {
			out = union(out, []string{f.MoveTo})
		}
	}
	return out
}

// FindPasted returns the unified diffs and whole files among a reply's
// fenced blocks that are not tool calls (isCall) or SEARCH/REPLACE
// blocks, in reply order. A diff is a block tagged diff (or untagged and
// starting like one); a whole file is a block tagged with a language
// under a line that names one file and nothing else (**a.go**, `a.go`,
// File: a.go, a.go:, a heading "# a.go"), or naming it in its info string
// (```go title="a.go", ```a.go, ```go a.go, ```go:a.go). A code block
// that names no file is an example, not an edit. Blocks are returned with
// every path named, so that one naming two is refused rather than guessed.
func FindPasted(reply string, blocks []parse.Block, isCall func(parse.Block) bool) []Pasted {
	var out []Pasted
	prevEnd := 0
	for _, b := range blocks {
		if b.Start < prevEnd || b.Start > len(reply) {
			continue // nested in the block before
		}
		before := reply[prevEnd:b.Start]
		prevEnd = b.End
		if isCall(b) || isSearchReplaceBlock(b.Content) {
			continue
		}
		lang, infoPaths := parseInfo(b.Lang)
		switch {
		case isDiffLang(lang) || lang == "" && len(infoPaths) == 0 && looksLikeDiff(b.Content):
			paths := union(pathsAbove(before), infoPaths)
			out = append(out, Pasted{Kind: PastedDiff, Paths: paths, Body: b.Content, Lang: b.Lang, Start: b.Start})
		case lang != "" && !isOutputLang(lang) || len(infoPaths) > 0:
			body, firstLine := cutFilepathLine(b.Content)
			above := pathsAbove(before)
			p := Pasted{Kind: PastedFile, Body: body, Lang: b.Lang, Start: b.Start}
			if len(above) == 1 && len(infoPaths) == 0 && firstLine == "" && !fitsLanguage(above[0], lang) {
				// "### `console.log`" over a ```javascript example names
				// no file: .log is not JavaScript.
				p.Skipped = fmt.Sprintf("the ```%s block under %q is not applied as that file's whole content: a %s file is not %s", lang, above[0], path.Ext(above[0]), lang)
				p.Paths = above
				out = append(out, p)
				continue
			}
			if firstLine != "" {
				infoPaths = union(infoPaths, []string{firstLine})
			}
			p.Paths = union(above, infoPaths)
			if len(p.Paths) == 0 {
				continue // a code example
			}
			out = append(out, p)
		}
	}
	return out
}

// ApplyPasted applies a pasted edit to the batch, all of it or, on error,
// none. A Skipped block is not an edit: it changes nothing (its Skipped
// text is for the user, as a warning).
func (b *Batch) ApplyPasted(ctx context.Context, p Pasted) (string, error) {
	if p.Skipped != "" {
		return "", nil
	}
	if p.Kind == PastedFile {
		return b.applyWholeFile(ctx, p)
	}
	return b.applyDiff(ctx, p)
}

// ProposePasted applies a pasted edit (one of FindPasted's) in ws the way
// a turn's edit call is (proposeEdit): computed on a fresh Batch, a file
// that configures what runs put to the user once, applied all or nothing.
// It returns what the model reads; a Skipped block changes nothing and
// returns its Skipped text.
func ProposePasted(ctx context.Context, ws Workspace, p Pasted) (string, error) {
	if p.Skipped != "" {
		return p.Skipped, nil
	}
	var out string
	approved := false
	msg, err := Propose(ctx, ws, nil, func(ctx context.Context, b *Batch) error {
		var err error
		if out, err = b.ApplyPasted(ctx, p); err != nil || approved {
			return err
		}
		if err := b.ConfirmProtected(ctx, ws, ws.PrivateDirs()...); err != nil {
			return err
		}
		approved = true
		return nil
	})
	switch {
	case err != nil:
		return "", fmt.Errorf("%s: %w", p.What(), err)
	case msg == "":
		return out, nil
	}
	return out + "\n" + msg, nil
}

// applyDiff applies a unified diff, every file of it or none.
func (b *Batch) applyDiff(ctx context.Context, p Pasted) (string, error) {
	files, err := edits.ParseUnifiedDiff(p.Body)
	if err != nil {
		return "", fmt.Errorf("in the block, %w", err)
	}
	for i := range files {
		if files[i].Path != "" {
			continue
		}
		switch len(p.Paths) {
		case 0:
			return "", fmt.Errorf("its hunks have no file header and no file is named: write the file's path alone on the line before the block (**a.go**), or \"--- a.go\" and \"+++ a.go\" lines before the first @@")
		case 1:
			files[i].Path = p.Paths[0]
		default:
			return "", fmt.Errorf("its hunks have no file header, and %s are all named right before it: name exactly one file on the line before the block", strings.Join(p.Paths, ", "))
		}
	}
	done, failed, err := b.applyEach(files, func(t *Batch, f edits.V4AFile) (string, error) { return t.applyDiffFile(ctx, f) })
	switch {
	case err != nil && len(files) > 1:
		return "", fmt.Errorf("file %d/%d: %w", failed+1, len(files), err)
	case err != nil:
		return "", err
	}
	return "Diff applied: " + strings.Join(done, ", "), nil
}

// applyDiffFile applies one file of a unified diff. Updates go through
// applyV4AFile, the matcher apply_patch uses; what a diff says that V4A
// cannot is checked here first, with messages in the diff's terms.
func (b *Batch) applyDiffFile(ctx context.Context, v edits.V4AFile) (string, error) {
	f, err := b.read(ctx, v.Path)
	if err != nil {
		return "", err
	}
	switch v.Op {
	case edits.V4AAdd:
		if f.exists {
			return "", fmt.Errorf("%s: the diff creates it (--- /dev/null), but it already exists; to change it, diff against its current content", f.path)
		}
		b.write(f, v.Content)
		return "A " + f.path, nil
	case edits.V4ADelete:
		if !f.exists {
			return "", fmt.Errorf("%s: the diff deletes it (+++ /dev/null), but it does not exist", f.path)
		}
		if len(v.Hunks) > 0 {
			// A deletion shows every line it deletes: check they are the
			// file's, so a diff made against other content deletes nothing.
			rest, err := edits.ApplyHunks(f.content, v.Hunks)
			if err != nil {
				return "", fmt.Errorf("%s: the diff deletes it, but its '-' lines are not the file's: %w", f.path, err)
			}
			if strings.TrimSpace(strings.TrimPrefix(rest, bom)) != "" {
				return "", fmt.Errorf("%s: the diff deletes it, but its '-' lines are only part of the file; deleting it would lose the rest", f.path)
			}
		}
		b.Changes.Remove(f.path, f.content, f.version)
		return "D " + f.path, nil
	}
	if !f.exists {
		return "", fmt.Errorf("%s: the diff changes it, but it does not exist; a diff that creates a file has \"--- /dev/null\" and '+' lines only (or check the path)", f.path)
	}
	if v.MoveTo != "" {
		to, err := b.read(ctx, v.MoveTo)
		if err != nil {
			return "", err
		}
		if to.exists && to.path != f.path {
			return "", fmt.Errorf("%s: the diff renames it to %s, which already exists", f.path, to.path)
		}
	}
	empty := strings.TrimPrefix(f.content, bom) == ""
	hunks := slices.Clone(v.Hunks)
	for i, h := range hunks {
		if len(h.Original) > 0 {
			continue
		}
		if !empty {
			return "", fmt.Errorf("%s: hunk %d/%d only adds lines, with no unchanged line around them and no '-' line, so where they go cannot be told (the @@ line numbers are not trusted); include a few unchanged lines above and below them", f.path, i+1, len(hunks))
		}
		// Into an empty file: every '+' line with its line break.
		hunks[i].Updated = append(slices.Clip(h.Updated), "")
	}
	v.Hunks = hunks
	what, err := b.applyV4AFile(ctx, v)
	var he *edits.HunkError
	if errors.As(err, &he) {
		return "", fmt.Errorf("%w\n(ORIGINAL is the hunk's unchanged and '-' lines, matched by content: the @@ line numbers are not used)", err)
	}
	return what, err
}

// applyWholeFile replaces (or creates) the file a whole-file block names,
// through Save: the file's line endings and byte-order mark are kept,
// placeholder lines refused, and the change is an ordinary edit of the
// batch (a diff to review, an undo step).
func (b *Batch) applyWholeFile(ctx context.Context, p Pasted) (string, error) {
	switch len(p.Paths) {
	case 0:
		return "", fmt.Errorf("no file is named for it")
	case 1:
	default:
		return "", fmt.Errorf("it is under %s, more than one file: name exactly the one it replaces, alone on the line before the block (**a.go**), and nothing else", strings.Join(p.Paths, " and "))
	}
	if hasConflictMarkers(p.Body) {
		return "", fmt.Errorf("%s: the block holds conflict markers (<<<<<<< … >>>>>>>), which are not a file's content; put the file's path on the line before the block and the SEARCH/REPLACE hunks at its start", p.Paths[0])
	}
	f, err := b.read(ctx, p.Paths[0])
	if err != nil {
		return "", err
	}
	// A reply pasted with CRLF gives the file's own line ends (Save).
	content := ensureFinalNewline(strings.ReplaceAll(p.Body, "\r\n", "\n"))
	if f.exists {
		if kept, of := keptLines(f.content, content); of >= 10 && 2*kept < of && strings.Count(content, "\n") < of {
			return "", fmt.Errorf("%s: the block would replace the whole file but keeps only %d of its %d lines: if it is a part of the file, send the change as a diff or a SEARCH/REPLACE block; if it is the whole new file, write it as ```save %s", f.path, kept, of, f.path)
		}
	}
	return b.Save(ctx, p.Paths[0], content)
}

// keptLines returns how many of old's lines new keeps, and old's number
// of lines.
func keptLines(old, new string) (kept, of int) {
	of = strings.Count(old, "\n")
	if !strings.HasSuffix(old, "\n") && old != "" {
		of++
	}
	removed := 0
	oldLF := strings.ReplaceAll(old, "\r\n", "\n")
	for _, e := range udiff.Lines(oldLF, strings.ReplaceAll(new, "\r\n", "\n")) {
		seg := oldLF[e.Start:e.End]
		removed += strings.Count(seg, "\n")
		if seg != "" && !strings.HasSuffix(seg, "\n") {
			removed++
		}
	}
	return of - removed, of
}

// hasConflictMarkers reports whether text holds an ORIGINAL/SEARCH marker
// line and an UPDATED/REPLACE one.
func hasConflictMarkers(text string) bool {
	open, closed := false, false
	for l := range strings.Lines(text) {
		l = strings.TrimRight(l, "\r\n")
		open = open || edits.IsOriginalMarker(l)
		closed = closed || edits.IsUpdatedMarker(l)
	}
	return open && closed
}

// isSearchReplaceBlock reports whether a block is FindSearchReplace's: a
// SEARCH marker on its first line, or on its second under a path.
func isSearchReplaceBlock(content string) bool {
	lines := strings.SplitN(content, "\n", 3)
	for i, l := range lines {
		if i < 2 && edits.IsOriginalMarker(strings.TrimRight(l, "\r")) {
			return true
		}
	}
	return false
}

// looksLikeDiff reports whether an untagged block starts like a unified
// diff.
func looksLikeDiff(content string) bool {
	first, rest, _ := strings.Cut(strings.TrimLeft(content, "\r\n"), "\n")
	second, _, _ := strings.Cut(rest, "\n")
	switch {
	case strings.HasPrefix(first, "diff --git "):
		return true
	case strings.HasPrefix(first, "--- ") && strings.HasPrefix(second, "+++ "):
		return true
	case strings.HasPrefix(first, "@@ -") && strings.Contains(first[4:], " @@"):
		return true
	}
	return false
}

// isDiffLang reports whether a block's language says it holds a diff.
func isDiffLang(lang string) bool {
	switch strings.ToLower(lang) {
	case "diff", "udiff", "git-diff", "gitdiff":
		return true
	}
	return false
}

// isOutputLang reports whether a block's language says it shows output,
// never a file's content.
func isOutputLang(lang string) bool {
	switch strings.ToLower(lang) {
	case "console", "terminal", "output", "shell-session", "sh-session", "log", "stdout", "stderr":
		return true
	}
	return false
}

// parseInfo splits a block's info string into its language and the paths
// it names: ```go title="a.go", ```go a.go, ```go:a.go, ```a.go (the
// language is then "").
func parseInfo(info string) (lang string, paths []string) {
	toks := infoTokens(info)
	if len(toks) == 0 {
		return "", nil
	}
	first := toks[0]
	if l, p, ok := strings.Cut(first, ":"); ok && isFilePath(p) {
		lang, paths = l, []string{p}
	} else if isFilePath(first) && strings.ContainsAny(first, "./") && !strings.Contains(first, "=") {
		// ```a.go; not ```makefile, which is a language.
		paths = []string{first}
	} else {
		lang = first
	}
	for _, t := range toks[1:] {
		if k, v, ok := strings.Cut(t, "="); ok {
			switch strings.ToLower(strings.Trim(k, "{")) {
			case "title", "file", "filename", "path", "name", "filepath":
				if v = strings.Trim(v, `"'}`); isFilePath(v) {
					paths = union(paths, []string{v})
				}
			}
			continue
		}
		if t = strings.Trim(t, "{}"); isFilePath(t) {
			paths = union(paths, []string{t})
		}
	}
	return lang, paths
}

// infoTokens splits an info string at spaces outside quotes.
func infoTokens(s string) []string {
	var toks []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
			cur.WriteRune(r)
		case r == ' ' || r == '\t':
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks
}

// cutFilepathLine returns a block's content without a first line that
// names its file as a comment (Copilot Chat's "// filepath: src/a.go"),
// and the path it names ("" when there is none).
func cutFilepathLine(content string) (string, string) {
	first, rest, _ := strings.Cut(content, "\n")
	t := strings.TrimSpace(strings.TrimSuffix(first, "\r"))
	for _, c := range []string{"//", "#", "--", "<!--", "/*", ";"} {
		if after, ok := strings.CutPrefix(t, c); ok {
			t = strings.TrimSpace(after)
			break
		}
	}
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(t, "-->"), "*/"))
	label, p, ok := strings.Cut(t, ":")
	if !ok || !strings.EqualFold(strings.TrimSpace(label), "filepath") {
		return content, ""
	}
	if p = strings.TrimSpace(p); !isFilePath(p) {
		return content, ""
	}
	return rest, p
}

// pathsAbove returns the paths named by the lines right above a block:
// its last non-blank line and the non-blank lines directly above that,
// while each names files and nothing else. A line that says more ("Here
// is the new `a.go`:") names none: the block may be an example.
func pathsAbove(text string) []string {
	lines := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	first := len(lines)
	for first > 0 && len(pathLine(lines[first-1])) > 0 {
		first--
	}
	var paths []string
	for _, l := range lines[first:] {
		paths = union(paths, pathLine(l))
	}
	return paths
}

// pathLine returns the paths a line names when it names files and nothing
// else: `a.go`, **a.go**, a.go:, File: a.go, ### 2. `src/a.go`, "`a.go`
// and `b.go`".
func pathLine(l string) []string {
	t := strings.TrimSpace(strings.TrimSuffix(l, "\r"))
	t = strings.TrimSpace(strings.TrimLeft(t, "#")) // a heading
	if rest, ok := strings.CutPrefix(t, "- "); ok {
		t = rest
	} else if rest, ok := strings.CutPrefix(t, "* "); ok {
		t = rest
	} else if i := strings.Index(t, ". "); i > 0 && i <= 3 && strings.Trim(t[:i], "0123456789") == "" {
		t = t[i+2:] // "2. `a.go`"
	}
	t = strings.ReplaceAll(t, "**", "") // **File:** a.go, **a.go**
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), ":"))
	for _, label := range []string{"file:", "filename:", "file name:", "path:", "filepath:", "file path:"} {
		if len(t) > len(label) && strings.EqualFold(t[:len(label)], label) {
			t = strings.TrimSpace(t[len(label):])
			break
		}
	}
	var paths []string
	for _, w := range strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		switch strings.ToLower(w) {
		case "and", "&", "+", "or":
			continue
		}
		w = strings.TrimSuffix(strings.Trim(w, "*_`'\""), ":")
		w = strings.Trim(w, "*_`'\"")
		if !isFilePath(w) {
			return nil
		}
		paths = union(paths, []string{w})
	}
	return paths
}

// isFilePath reports whether s names a file: one word whose last element
// has an extension (letters or digits after a dot, with a letter) or is a
// file known by its name (Makefile, .gitignore).
func isFilePath(s string) bool {
	if s == "" || len(s) > 255 || strings.ContainsAny(s, " \t`*<>|\"'") || strings.Contains(s, "://") || strings.HasSuffix(s, "/") {
		return false
	}
	base := path.Base(strings.ReplaceAll(s, `\`, "/"))
	if knownFileNames[base] {
		return true
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return false
	}
	ext := base[dot+1:]
	if ext == "" || len(ext) > 12 || strings.Trim(ext, "0123456789") == "" {
		return false
	}
	for _, r := range ext {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '+') {
			return false
		}
	}
	return dot > 0 || len(base) > 1 // ".gitignore" is a name
}

// knownFileNames are files without an extension that replies name.
var knownFileNames = map[string]bool{
	"Makefile": true, "makefile": true, "GNUmakefile": true, "Dockerfile": true, "Containerfile": true,
	"Justfile": true, "justfile": true, "Rakefile": true, "Gemfile": true, "Procfile": true,
	"Vagrantfile": true, "Jenkinsfile": true, "Brewfile": true, "LICENSE": true, "CODEOWNERS": true,
}

// languageExts are the extensions of the files a language's blocks hold,
// for the languages whose name is also a word that might stand over an
// example ("### `console.log`" over ```javascript). A language not listed
// fits any file.
var languageExts = map[string][]string{
	"go": {"go"}, "golang": {"go"},
	"python": {"py", "pyi", "pyw"}, "python3": {"py", "pyi"},
	"javascript": {"js", "mjs", "cjs", "jsx"}, "js": {"js", "mjs", "cjs", "jsx"}, "jsx": {"jsx", "js"}, "node": {"js", "mjs", "cjs"},
	"typescript": {"ts", "tsx", "mts", "cts"}, "ts": {"ts", "tsx", "mts", "cts"}, "tsx": {"tsx", "ts"},
	"rust": {"rs"}, "rs": {"rs"}, "java": {"java"}, "kotlin": {"kt", "kts"}, "kt": {"kt", "kts"},
	"c": {"c", "h"}, "cpp": {"cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h", "ipp", "inl"}, "c++": {"cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h"},
	"csharp": {"cs"}, "cs": {"cs"}, "ruby": {"rb", "rake", "gemspec"}, "rb": {"rb", "rake"}, "php": {"php"},
	"swift": {"swift"}, "scala": {"scala", "sc"}, "lua": {"lua"}, "perl": {"pl", "pm", "t"},
	"html": {"html", "htm"}, "css": {"css"}, "scss": {"scss"}, "sass": {"sass"}, "less": {"less"},
	"json": {"json", "jsonc", "json5"}, "yaml": {"yaml", "yml"}, "yml": {"yaml", "yml"}, "toml": {"toml"},
	"sql": {"sql"}, "markdown": {"md", "markdown", "mdx"}, "md": {"md", "markdown", "mdx"},
	"bash": {"sh", "bash"}, "sh": {"sh", "bash"}, "zsh": {"zsh", "sh"},
}

// fitsLanguage reports whether a file named p can hold a block in lang.
func fitsLanguage(p, lang string) bool {
	exts, ok := languageExts[strings.ToLower(lang)]
	base := path.Base(p)
	if !ok || knownFileNames[base] || strings.LastIndexByte(base, '.') == 0 {
		return true
	}
	return slices.Contains(exts, strings.ToLower(strings.TrimPrefix(path.Ext(base), ".")))
}

// union returns a with b's elements that are not in it, in order.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
