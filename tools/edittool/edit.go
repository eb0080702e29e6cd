package edittool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// A Source reads the files that edits are computed against: the editor's
// open buffers, or the disk (tools.Source).
type Source = tools.Source

// A Batch gathers the edits of one request.
type Batch struct {
	Root    string // absolute, for checking paths
	Source  Source
	Changes edits.Changeset
	// Confirm asks the user before read or view_anchored shows the model
	// a file that may hold secrets (allowSecret); nil: nobody can be
	// asked, and such files are skipped with a note.
	Confirm approval.Confirmer
	// Hashes keeps the line hashes of Source's open buffers (the
	// editor's), handed to view_anchored and patch_anchored so a large
	// buffer is not hashed again, and the anchor tables of the last
	// views; nil: they hash what they read.
	Hashes tools.Hashes
}

// IsEditTool reports whether the named tool edits files through a Batch.
func IsEditTool(name string) bool {
	t, ok := lookupBatchTool(name)
	return ok && t.edits
}

// IsReadTool reports whether a tool only reads through a Batch (read,
// view_anchored): it runs with no edit to apply.
func IsReadTool(name string) bool {
	t, ok := lookupBatchTool(name)
	return ok && !t.edits
}

// TurnTools are the tools an agent turn offers when the user names none:
// those a Batch runs, read included (the prompt asks the model to read
// before it edits). Shell and jobs come with their own package.
func TurnTools() []string {
	return []string{tools.NameRead, tools.NameSave, tools.NameAppend, tools.NamePatch, tools.NamePatchMany, tools.NameApplyPatch, tools.NameDelete, tools.NameMove}
}

// Run runs one call of a tool this package runs against the batch itself
// (an applied reply's edits, one after another, go into one Batch) and
// returns the message for the model. On error the batch is left as it
// was. A turn's calls run through Runs instead, one Batch each.
func (b *Batch) Run(ctx context.Context, spec *tools.ToolSpec, use tools.ToolUse) (string, error) {
	t, ok := lookupBatchTool(spec.Name)
	if !ok {
		return "", fmt.Errorf("%s is not an edit tool", spec.Name)
	}
	return t.run(b, ctx, use)
}

// jsonText renders a JSON value (ops given as a list rather than a string).
func jsonText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

// arg returns a call's i-th positional argument, or its named argument
// name (for @ calls and xml parameters).
func arg(use tools.ToolUse, i int, name string) string {
	if i < len(use.Args) {
		return use.Args[i]
	}
	s, _ := use.Kwargs[name].(string)
	return s
}

// body returns a call's body: a block's content, or its named argument.
func body(use tools.ToolUse, name string) string {
	if use.Content != "" {
		return use.Content
	}
	s, _ := use.Kwargs[name].(string)
	return s
}

// file is a file as the batch sees it.
type file struct {
	path    string // clean, relative
	content string // "" when buf holds it
	version int32
	exists  bool
	edited  bool // by the batch: content is not the source's
	// buf is the editor's buffer of an open file the batch has not
	// changed, read by readBuffer in place of content, whose text is
	// then not joined.
	buf *edits.Buffer
}

// size returns the length of the file's content.
func (f file) size() int {
	if f.buf != nil {
		return f.buf.Len()
	}
	return len(f.content)
}

// read returns path as the batch sees it: its own earlier edits first, then
// the source.
func (b *Batch) read(ctx context.Context, p string) (file, error) {
	clean, err := edits.CleanPath(b.Root, p)
	if err != nil {
		return file{}, err
	}
	if content, exists, ok := b.Changes.Get(clean); ok {
		return file{path: clean, content: content, exists: exists, edited: true}, nil
	}
	content, version, exists, err := b.Source.Read(ctx, clean)
	if err != nil {
		return file{}, fmt.Errorf("read %s: %w", clean, err)
	}
	return file{path: clean, content: content, version: version, exists: exists}, nil
}

// readBuffer is read for a tool that resolves its edits on an
// edits.Buffer: a file open in the editor that the batch has not changed
// comes as the buffer (file.buf), its text not joined, when the Source
// keeps buffers (tools.BufferSource); anything else as read returns it.
func (b *Batch) readBuffer(ctx context.Context, p string) (file, error) {
	bs, ok := b.Source.(tools.BufferSource)
	if !ok {
		return b.read(ctx, p)
	}
	clean, err := edits.CleanPath(b.Root, p)
	if err != nil {
		return file{}, err
	}
	if _, _, changed := b.Changes.Get(clean); !changed {
		if buf, version, open := bs.ReadBuffer(ctx, clean); open {
			return file{path: clean, version: version, exists: true, buf: buf}, nil
		}
	}
	return b.read(ctx, p)
}

// write records f's new content in the batch. (A file the batch already
// changed keeps its first base: see Changeset.Write.)
func (b *Batch) write(f file, result string) {
	b.Changes.Write(f.path, f.content, f.exists, f.version, result)
}

// looksLikePlaceholder reports whether a line of new content stands for
// elided code ("# ...", "// ...", `""" ... """`), which save and append
// refuse rather than write.
func looksLikePlaceholder(l string) bool {
	t := strings.TrimSpace(l)
	for _, m := range []string{"#", "//", `"""`, "/*", "--"} {
		if rest, ok := strings.CutPrefix(t, m); ok {
			return strings.HasPrefix(strings.TrimSpace(rest), "...")
		}
	}
	return false
}

// describedContent matches a content that is only a description of
// itself in parentheses, "(the entire new content of shapes.py)": an
// example's placeholder a small model sent as it was (issue 30), which
// written would have replaced the file with that line.
var describedContent = regexp.MustCompile(`(?i)^\((the |every |all |your )?(whole |entire |complete |full )?(new |updated |modified |changed )?(content|contents|code|lines|line|text)\b[^\n]*\)$`)

func hasPlaceholderLine(s string) bool {
	if describedContent.MatchString(strings.TrimSpace(s)) {
		return true
	}
	for l := range strings.Lines(s) {
		if looksLikePlaceholder(l) {
			return true
		}
	}
	return false
}

// errNoPath is the message for a save call without a path.
var errNoPath = noPathError(tools.NameSave)

// noPathError is the message for a call of tool without a path, with the
// tool's own form: a model told how to write another tool may switch to
// it, or copy it wrongly.
func noPathError(tool string) error {
	return fmt.Errorf("no path given: write the file's path after the block type, e.g. ```%s path/to/file", tool)
}

// PathsOf returns the files an edit call names, as written, without
// reading any: for counting, and for showing what a reply will touch.
func PathsOf(use tools.ToolUse) []string {
	switch use.Tool {
	case tools.NameSave, tools.NameAppend, tools.NamePatch, tools.NamePatchAnchored, tools.NameDelete:
		if p := arg(use, 0, "path"); p != "" {
			return []string{p}
		}
	case tools.NameMove:
		var out []string
		for i, name := range []string{"path", "to"} {
			if p := arg(use, i, name); p != "" {
				out = append(out, p)
			}
		}
		return out
	case tools.NamePatchMany:
		fps, err := parsePatchMany(use, use.Kwargs["patches"])
		if err != nil {
			return nil
		}
		var out []string
		for _, fp := range fps {
			out = append(out, fp.path)
		}
		return out
	case tools.NameApplyPatch:
		files, err := edits.ParseV4A(body(use, "patch"))
		if err != nil {
			return nil
		}
		var out []string
		for _, f := range files {
			out = append(out, f.Path)
			if f.MoveTo != "" {
				out = append(out, f.MoveTo)
			}
		}
		return out
	}
	return nil
}
