package agent

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/agentls/agentls/tools"
)

// A small model asked for a change often answers with the changed code in
// a language block (```python) and calls no tool: nothing is applied, yet
// the turn would end as done. Such a reply is not a finished turn: the
// model is told once which call would apply it, and if it answers the same
// way again, the turn ends saying that nothing was applied.

// ErrNothingApplied marks a turn that asked for a change whose model
// showed code but applied none.
var ErrNothingApplied = errors.New("nothing was applied")

// changeWords are words of requests that ask for a change to files.
var changeWords = regexp.MustCompile(`(?i)\b(fix|fixes|rename|change|add|update|remove|delete|replace|refactor|implement|make|create|write|move|edit|modify|correct|convert|insert|append|rewrite|bug|give|set|bump|increase|decrease|extend|extract|swap)\b`)

// asksForChange reports whether a prompt asks for files to change.
func asksForChange(prompt string) bool { return changeWords.MatchString(prompt) }

// notCode are block languages that show commands, output or prose rather
// than a file's code.
var notCode = []string{"", "sh", "bash", "shell", "console", "zsh", "text", "txt", "output", "stdout", "stderr", "log", "plaintext"}

// shownCode returns the language of the first language block of a reply
// that is not a tool call (```python), or false.
func shownCode(reply string, reg *tools.Registry) (string, bool) {
	inBlock := false
	for l := range strings.Lines(reply) {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "```") {
			continue
		}
		if inBlock {
			inBlock = false
			continue
		}
		inBlock = true
		tag := ""
		if f := strings.Fields(strings.TrimLeft(t, "`")); len(f) > 0 {
			tag = strings.ToLower(f[0])
		}
		if slices.Contains(notCode, tag) {
			continue
		}
		if _, isTool := reg.Lookup(tag); isTool {
			continue
		}
		return tag, true
	}
	return "", false
}

// languageExts are the file extensions of block languages, to guess which
// file a shown block was meant for.
var languageExts = map[string][]string{
	"python": {".py"}, "py": {".py"}, "go": {".go"}, "golang": {".go"},
	"typescript": {".ts", ".tsx"}, "ts": {".ts"}, "tsx": {".tsx"},
	"javascript": {".js", ".jsx", ".mjs"}, "js": {".js"}, "jsx": {".jsx"},
	"rust": {".rs"}, "rs": {".rs"}, "java": {".java"}, "c": {".c", ".h"}, "cpp": {".cpp", ".cc", ".hpp", ".h"},
	"markdown": {".md"}, "md": {".md"}, "json": {".json"}, "yaml": {".yaml", ".yml"}, "toml": {".toml"},
	"ruby": {".rb"}, "php": {".php"}, "html": {".html"}, "css": {".css"},
}

// nudgeTarget picks the file a shown block of lang was most likely meant
// for among the request's files: one with the language's extension, else
// the first; "" when the request names none.
func nudgeTarget(lang string, files []string) string {
	if fit := fitting(lang, files); len(fit) > 0 {
		return fit[0]
	}
	if len(files) > 0 {
		return files[0]
	}
	return ""
}

// fitting returns the files whose extension is one of lang's.
func fitting(lang string, files []string) []string {
	var out []string
	for _, f := range files {
		if slices.Contains(languageExts[lang], path.Ext(f)) {
			out = append(out, f)
		}
	}
	return out
}

// nudgeText tells the model its reply changed nothing and which call would
// apply it, written in the turn's format.
func nudgeText(reg *tools.Registry, format tools.Format, lang, file string, saveOnly bool, current string) string {
	target := file
	if target == "" {
		target = "path/to/file"
	}
	var b strings.Builder
	if lang == "" {
		b.WriteString("Nothing was changed: your reply calls no tool, so ")
	} else {
		fmt.Fprintf(&b, "Nothing was changed: your reply shows code in a ```%s block, which is only text here, and calls no tool, so ", lang)
	}
	if file != "" {
		fmt.Fprintf(&b, "%s is as it was.", file)
	} else {
		b.WriteString("no file changed.")
	}
	fmt.Fprintf(&b, " To change %s, call a tool:", target)
	alt := ""
	if spec, ok := reg.Get(tools.NameSave); ok {
		// The placeholder is one save refuses ("// ..."), should the
		// model send it as it is.
		if current != "" {
			// The file itself, to send back changed: a small model
			// copies an example's placeholder instead of the file.
			b.WriteString(" send back this save call with the lines changed as asked:\n")
			b.WriteString(spec.RenderCall(tools.ToolUse{Tool: tools.NameSave, Args: []string{target}, Content: strings.TrimSuffix(current, "\n")}, format, "call_1"))
		} else {
			b.WriteString(" write the whole new file, every line, with\n")
			b.WriteString(spec.RenderCall(tools.ToolUse{Tool: tools.NameSave, Args: []string{target}, Content: "// ... every line of " + target + ", changed as asked ..."}, format, "call_1"))
		}
		b.WriteString("\n")
		alt = "or "
	}
	if spec, ok := reg.Get(tools.NamePatch); ok && !saveOnly {
		b.WriteString(alt + "change only the lines that differ with\n")
		b.WriteString(spec.RenderCall(tools.ToolUse{Tool: tools.NamePatch, Args: []string{target},
			Content: "<<<<<<< ORIGINAL\n(the lines to replace, copied exactly from " + target + ")\n=======\n(their new text)\n>>>>>>> UPDATED"}, format, "call_2"))
		b.WriteString("\n")
	}
	return b.String()
}

// nothingApplied is how the turn ends when the model showed code again
// after being told how to apply it.
func nothingApplied(lang, file string) error {
	what := "the files are"
	if file != "" {
		what = file + " is"
	}
	if lang == "" {
		return fmt.Errorf("%w: the model answered without calling a tool, even when told how; %s unchanged. Ask again, naming the file and the change", ErrNothingApplied, what)
	}
	return fmt.Errorf("%w: the model answered with code in a ```%s block but called no tool to apply it, even when told how; %s unchanged. Its reply is above: apply it yourself, or ask again", ErrNothingApplied, lang, what)
}

// nudge is nudgeText for this turn: in a compact turn whose files were
// shown whole, save alone, holding the file's current text.
func (t *Turn) nudge(req Request, lang, file string) string {
	if calls, covered := fileCalls(t.Registry, t.Format, req); t.Compact && calls != "" {
		// A request to delete or move a file asks for that call: the
		// real model, told to "delete old.go", answered "The file old.go
		// has been deleted.", and shown a save of notes.md after "move
		// notes.md", saved it unchanged.
		text := "Nothing was changed: your reply calls no tool." + calls
		if file == "" || slices.Contains(covered, file) {
			// The file to edit besides ("Delete legacy.ts and remove
			// its import from index.ts"), if any.
			file = ""
			for _, p := range namedFiles(req) {
				if !slices.Contains(covered, p) && currentText(req, p) != "" {
					file = p
					break
				}
			}
		}
		if file != "" && !slices.Contains(covered, file) && currentText(req, file) != "" {
			text += "\n" + nudgeText(t.Registry, t.Format, lang, file, wholeFiles(req), currentText(req, file))
		}
		return text
	}
	if t.Compact && wholeFiles(req) {
		return nudgeText(t.Registry, t.Format, lang, file, true, currentText(req, file))
	}
	return nudgeText(t.Registry, t.Format, lang, file, false, "")
}
