package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// The compact prompt is for small context windows and small models
// (Turn.Compact). The full prompt describes every tool with its
// instructions and examples: ~3,500 tokens for a default turn, 2½ minutes
// of prompt reading for a 1.5B model on two cores before its first word,
// and a small model copies its examples (issue 30: the patch_many
// example's "=== PATH: main.go ===" in a reply about a.go). The compact
// one describes the few tools a small model needs, each by one call
// written for this request's own file, with placeholders where the code
// goes, so that there is no other file or code to copy. The other tools
// stay callable; they are only not described.

// compactTools are the built-in tools the compact prompt describes, in
// order, with what each is for.
var compactTools = []struct{ name, use string }{
	{tools.NameRead, "show a file with numbered lines"},
	{tools.NameSave, "create a file or write its whole new content (simplest for small files: every line, changed as needed)"},
	{tools.NamePatch, "change part of a long file: each hunk replaces ORIGINAL lines, copied exactly from the file, by the UPDATED lines"},
	{tools.NameShell, "run a shell command in the workspace"},
}

// PromptBudget is the most tokens (estimated: EstimateTokens) the compact
// system prompt of a default turn may take, per format; a test holds it.
// (The tool format's native definitions of delete and move cost ~130 of
// its 750: a small model that only writes save blocks needs them to
// remove or rename a file.)
var PromptBudget = map[tools.Format]int{tools.FormatMarkdown: 350, tools.FormatXML: 380, tools.FormatTool: 750}

// EstimateTokens estimates the tokens of text the way the budget counts
// them: a token is about four bytes of English or code.
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

const compactIntro = `You are a coding agent in the user's editor. You change files only by writing a tool call; code you show or describe changes nothing.
- The files the user named are below; read any other file before you change it.
- Make the smallest change that does the job.
- Only once a tool's result says the change was applied, say in one sentence what changed.
`

// CompactSystemPrompt is the short system message: what the assistant
// does, where, and the compact tools, each shown once as a call on target
// (the request's first file, else a placeholder path).
func CompactSystemPrompt(reg *tools.Registry, format tools.Format, req Request) string {
	var b strings.Builder
	b.WriteString(compactIntro)
	// The root's absolute path is not shown: the real model wrote it
	// into a link it was asked to fix ("[the changes](/work/…/ws/CHANGES.txt)").
	b.WriteString("Paths are relative to the workspace's top folder.\n\n# Tools\n\n")
	target := "path/to/file"
	if names := namedFiles(req); len(names) > 0 {
		target = names[0]
	}
	switch format {
	case tools.FormatXML:
		b.WriteString("Call a tool with a <tool-use> element, one call inside, written as shown; write code as it is, unescaped.\n")
	case tools.FormatTool:
		b.WriteString("Call tools with the native tool-calling interface.\n")
	default:
		b.WriteString("Call a tool with a fenced block whose tag is the tool's name and the file's path, written as shown, then a blank line.\n")
	}
	for _, ct := range compactTools {
		spec, ok := reg.Get(ct.name)
		if !ok || ct.name == tools.NamePatch && wholeFiles(req) {
			continue
		}
		fmt.Fprintf(&b, "\n## %s: %s\n", ct.name, ct.use)
		if format == tools.FormatTool || ct.name == tools.NameSave && wholeFiles(req) {
			// The native definition shows the call; the request's
			// files are shown as save calls already, and an example
			// with a placeholder is copied as it is.
			continue
		}
		b.WriteString(spec.RenderCall(compactCall(ct.name, target), format, "call_1") + "\n")
	}
	// A delete or move the request asks for is described with that very
	// call: listed only by name among the other tools, a move came back
	// as "The file notes.md has been moved" in 3 of 4 replies, shown
	// here as the call in 4 of 4.
	asked := askedFileCalls(reg, req)
	for _, use := range asked {
		spec, _ := reg.Get(use.Tool)
		fmt.Fprintf(&b, "\n## %s: %s (the block stays empty)\n", use.Tool, strings.TrimSuffix(strings.ToLower(spec.Description[:1])+spec.Description[1:], "."))
		if format != tools.FormatTool {
			b.WriteString(spec.RenderCall(use, format, "call_1") + "\n")
		}
	}
	var others []string
	for _, s := range reg.All() {
		if slices.ContainsFunc(asked, func(u tools.ToolUse) bool { return u.Tool == s.Name }) {
			continue
		}
		if !slices.ContainsFunc(compactTools, func(c struct{ name, use string }) bool { return c.name == s.Name }) && !isBuiltinExtra(s.Name) {
			others = append(others, fmt.Sprintf("- %s: %s", s.Name, s.Description))
		}
	}
	if len(others) > 0 {
		b.WriteString("\n## Other tools\n" + strings.Join(others, "\n") + "\n")
	}
	b.WriteString(rulesSection(req))
	return b.String()
}

// wholeFiles reports whether the request names files and they are all in
// its message whole: then a compact turn offers save alone for edits, the
// one form a small model gets right (it copied the patch example's
// placeholders, parentheses included, as ORIGINAL lines); patch stays
// callable.
func wholeFiles(req Request) bool {
	files := req.shownFiles()
	if len(files) == 0 {
		return false
	}
	for _, f := range files {
		if strings.Contains(f.Text, "(cut at") {
			return false
		}
	}
	return true
}

// compactCall is the one call shown for a compact tool, on target, with
// placeholders rather than code a model could copy.
func compactCall(name, target string) tools.ToolUse {
	switch name {
	case tools.NameRead:
		return tools.ToolUse{Tool: name, Args: []string{target}}
	case tools.NamePatch:
		return tools.ToolUse{Tool: name, Args: []string{target}, Content: "<<<<<<< ORIGINAL\n(lines copied exactly from " + target + ")\n=======\n(the new lines)\n>>>>>>> UPDATED"}
	case tools.NameSave:
		// A placeholder save refuses ("// ..."): a model that copies
		// the example loses no file.
		return tools.ToolUse{Tool: name, Args: []string{target}, Content: "// ... every line of " + target + ", changed as needed ..."}
	case tools.NameShell:
		return tools.ToolUse{Tool: name, Content: "(one command)"}
	}
	return tools.ToolUse{Tool: name}
}

// isBuiltinExtra reports whether a built-in tool is one the compact prompt
// leaves undescribed: the other edit formats (one way to patch is easier
// for a small model than four) and the specialised tools.
func isBuiltinExtra(name string) bool {
	switch name {
	case tools.NameAppend, tools.NamePatchMany, tools.NameApplyPatch, tools.NameViewAnchored, tools.NamePatchAnchored, tools.NameIPython, tools.NameTmux, tools.NameMorph, tools.NameViewImage, tools.NameBrowser, tools.NameSubagent, tools.NameRag, tools.NameScreenshot, tools.NameComputer:
		return true
	}
	return false
}

// CompactMessages returns the opening messages of a compact turn: the
// compact system prompt, the history, the user's message. The files the
// request names (Request.Files) follow the prompt as save calls holding
// their current text, unnumbered: the form aider's "whole" edit format
// shows a small model, with which Qwen2.5-Coder-1.5B solved issue 30's
// tasks. Sending a file back changed is then a copy with edits, and a
// copy left unchanged changes nothing. A request for a change ends with
// the call that makes it (compactReminder).
func CompactMessages(reg *tools.Registry, format tools.Format, req Request) []openai.ChatCompletionMessage {
	system := CompactSystemPrompt(reg, format, req)
	var files []FileText
	named := req.Files
	req.Files = nil
	msgs := messagesWith(system, req)
	req.Files = named
	last := &msgs[len(msgs)-1]
	files = displayedFiles(reg, format, req)
	listing := ""
	if req.Listing != "" {
		listing = "\nThe workspace's top folder (read a file not shown here before you change it):\n" + req.Listing
	}
	// The reminder goes right after the request, before the listing and
	// the files: the model copies the last words it read (a reminder
	// ending the message came back as the reply), so the message ends
	// with the files in the form to send. A delete call ending the
	// message came back as "The file old.go has been deleted." in 4 of
	// 5 replies; right after the request, as the call in 5 of 5.
	last.Content += compactReminder(reg, format, req) + listing
	for _, f := range files {
		block, asSave := fileBlock(reg, format, f.Path, unnumbered(f.Text))
		if asSave {
			last.Content += "\nThe current content of " + f.Path + ", as a save call would write it:\n" + block + "\n"
			continue
		}
		last.Content += "\nThe current content of " + f.Path + ":\n" + block + "\n"
	}
	return msgs
}

// displayedFiles are the request's files (shownFiles) whose content a
// compact turn's message shows. A file to delete or move needs none, and
// a small model copies a save block it is shown after its call (the real
// model deleted old.go, then saved it again): such files are left out,
// unless the request makes a new file, whose lines may be theirs ("move
// the code of helpers.go into a new file named strings.go").
func displayedFiles(reg *tools.Registry, format tools.Format, req Request) []FileText {
	files := req.shownFiles()
	if covered := calledFiles(reg, req); len(createsAsked(req)) == 0 {
		files = slices.DeleteFunc(files, func(f FileText) bool { return slices.Contains(covered, f.Path) })
	}
	return files
}

// fileBlock shows a file's content (unnumbered) as the save call that
// would write it, in format; where save cannot be written as text (the
// tool format, or no save tool), in a plain fenced block. asSave says
// which.
func fileBlock(reg *tools.Registry, format tools.Format, path, content string) (block string, asSave bool) {
	if save, ok := reg.Get(tools.NameSave); ok && format != tools.FormatTool {
		return save.RenderCall(tools.ToolUse{Tool: tools.NameSave, Args: []string{path}, Content: strings.TrimSuffix(content, "\n")}, format, "call_0"), true
	}
	fence := text.Fence(content)
	return fence + "\n" + content + fence, false
}

// unnumbered is a read view's file text without its fence and line
// numbers; a cut view keeps the note that says so.
func unnumbered(view string) string {
	var b strings.Builder
	for l := range strings.Lines(view) {
		t := strings.TrimRight(l, "\n")
		if strings.HasPrefix(t, "```") {
			continue // the view's fences
		}
		num, rest, ok := strings.Cut(t, "\t")
		if ok && strings.Trim(num, " 0123456789") == "" && strings.TrimSpace(num) != "" {
			b.WriteString(rest + "\n")
			continue
		}
		if strings.HasPrefix(t, "(cut at") {
			b.WriteString("(… the rest of the file is not shown: read it)\n")
		}
	}
	return b.String()
}

// compactReminder follows a compact turn's request for a change with the
// call that makes it, as aider reminds the model of its edit format: left
// to itself a small model describes the change, or claims it, without a
// call.
func compactReminder(reg *tools.Registry, format tools.Format, req Request) string {
	if !asksForChange(req.Prompt) {
		return ""
	}
	files, covered := fileCalls(reg, format, req)
	if files != "" && !slices.ContainsFunc(namedFiles(req), func(p string) bool { return !slices.Contains(covered, p) }) {
		// Only files to delete or move: a save block would keep them.
		return files
	}
	return files + saveReminder(reg, format, req)
}

// The file-level requests a compact reminder names a call for: a file
// deleted ("Delete old.go") or moved ("Move notes.md into docs/notes.md"),
// the file written right after the verb. "Remove the function f from
// a.py" and "Move f from a.py to b.py" name no file there: they are edits.
var (
	deleteFile = regexp.MustCompile(`(?i)\b(?:delete|remove)\s+(?:the\s+)?(?:file\s+)?([\w./-]+\.\w+)\b`)
	moveFile   = regexp.MustCompile(`(?i)\b(?:move|rename)\s+(?:the\s+)?(?:file\s+)?([\w./-]+\.\w+)\b.*?\b(?:to|into|as)\b.*?([\w-]+(?:/[\w.-]+)*\.\w+)`)
)

// deletesAsked are the files a request asks to delete ("Delete old.go"),
// cleaned.
func deletesAsked(prompt string) []string {
	var out []string
	for _, m := range deleteFile.FindAllStringSubmatch(prompt, -1) {
		out = append(out, cleanRel(m[1]))
	}
	return out
}

// removedAsked are the files a request asks to be gone from where they
// are: deleted, or moved away ("Move notes.md into docs/notes.md").
func removedAsked(prompt string) []string {
	out := deletesAsked(prompt)
	if m := moveFile.FindStringSubmatch(prompt); m != nil {
		out = append(out, cleanRel(m[1]))
	}
	return out
}

// createFile matches a request to create a file: "Create CHANGELOG.md",
// "a new file named strings.go".
var createFile = regexp.MustCompile(`(?i)\b(?:create|new\s+file(?:\s+(?:named|called))?)\s+(?:the\s+)?(?:file\s+)?([\w./-]+\.\w+)\b`)

// createsAsked are the files the request asks to create that it does not
// show as existing (Request.Files), cleaned.
func createsAsked(req Request) []string {
	var out []string
	for _, m := range createFile.FindAllStringSubmatch(req.Prompt, -1) {
		p := cleanRel(m[1])
		if !looksLikeNumber(p) && !slices.ContainsFunc(req.Files, func(f FileText) bool { return f.Path == p }) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// untouchedAsk asks the model, once, about the files the request names
// that its edits left as they were, each with the call it asks for: a
// file to delete its delete call, a file to create its save, another its
// changed save.
func (t *Turn) untouchedAsk(left []string, state *turnState) string {
	prompt := state.prompt
	var b strings.Builder
	var others []string
	for _, p := range left {
		switch {
		case slices.Contains(deletesAsked(prompt), p):
			if spec, ok := t.Registry.Get(tools.NameDelete); ok {
				fmt.Fprintf(&b, "The request asks to delete %s, which is still there. Reply with this call:\n%s\n", p,
					spec.RenderCall(tools.ToolUse{Tool: tools.NameDelete, Args: []string{p}}, t.Format, "call_0"))
				continue
			}
			others = append(others, p)
		case slices.Contains(state.toCreate, p):
			fmt.Fprintf(&b, "The request asks for a new file %s, which you did not create. Send its save block now, the whole new file.\n", p)
		default:
			others = append(others, p)
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "The request also names %s, which you did not change. If it needs a change too, send its save block now, the whole file changed as asked (its current content is above); if it does not, say so in one sentence.", strings.Join(others, " and "))
	}
	return strings.TrimSpace(b.String())
}

// askedFileCalls are the delete and move calls the request asks for, of
// its own files (fileCalls writes them out).
func askedFileCalls(reg *tools.Registry, req Request) []tools.ToolUse {
	exists := func(p string) bool {
		return slices.ContainsFunc(req.Files, func(f FileText) bool { return f.Path == p })
	}
	var out []tools.ToolUse
	if _, ok := reg.Get(tools.NameMove); ok {
		if m := moveFile.FindStringSubmatch(req.Prompt); m != nil && exists(m[1]) && !exists(m[2]) && m[2] != m[1] {
			out = append(out, tools.ToolUse{Tool: tools.NameMove, Args: []string{m[1], m[2]}})
		}
	}
	if _, ok := reg.Get(tools.NameDelete); ok {
		for _, m := range deleteFile.FindAllStringSubmatch(req.Prompt, -1) {
			if exists(m[1]) && !slices.ContainsFunc(out, func(u tools.ToolUse) bool { return slices.Contains(u.Args, m[1]) }) {
				out = append(out, tools.ToolUse{Tool: tools.NameDelete, Args: []string{m[1]}})
			}
		}
	}
	return out
}

// calledFiles are the files of the delete and move calls the request asks
// for (askedFileCalls): the ones its calls cover.
func calledFiles(reg *tools.Registry, req Request) []string {
	var out []string
	for _, use := range askedFileCalls(reg, req) {
		out = append(out, use.Args...)
	}
	return out
}

// fileCalls names the delete and move calls a request for a change asks
// for, each a call of the request's own files written out ("" for none),
// and the files they cover: a small model that only writes save blocks
// otherwise keeps the file it was asked to delete, or saves a copy and
// leaves the original.
//
// When a single such call is all the request asks for (onlyFileCall), it
// is asked for alone: told "To move notes.md to docs/notes.md, reply with
// this call (the file keeps its content)", the real model at temperature
// 0 answered "The file notes.md has been moved to docs/notes.md.", and
// again when told so; told "…reply with this call and nothing else", it
// wrote the call (and the delete of old.go still).
func fileCalls(reg *tools.Registry, format tools.Format, req Request) (string, []string) {
	var b strings.Builder
	var covered []string
	uses := askedFileCalls(reg, req)
	how := "reply with this call"
	if onlyFileCall(uses, req) {
		how = "reply with this call and nothing else"
	}
	for _, use := range uses {
		spec, _ := reg.Get(use.Tool)
		if use.Tool == tools.NameMove {
			fmt.Fprintf(&b, "\nTo move %s to %s (the file keeps its content), %s:\n%s\n", use.Args[0], use.Args[1], how, spec.RenderCall(use, format, "call_0"))
		} else {
			fmt.Fprintf(&b, "\nTo delete %s, %s:\n%s\n", use.Args[0], how, spec.RenderCall(use, format, "call_0"))
		}
		covered = append(covered, use.Args...)
	}
	return b.String(), covered
}

// onlyFileCall reports whether uses, the delete and move calls the
// request asks for (askedFileCalls), are all it asks for: a single call,
// of every file the request names, and no file to create.
func onlyFileCall(uses []tools.ToolUse, req Request) bool {
	if len(uses) != 1 || len(createsAsked(req)) > 0 {
		return false
	}
	return !slices.ContainsFunc(namedFiles(req), func(p string) bool { return !slices.Contains(uses[0].Args, p) })
}

// saveReminder asks for the change as save blocks (or patch calls).
func saveReminder(reg *tools.Registry, format tools.Format, req Request) string {
	target := "path/to/file"
	if names := namedFiles(req); len(names) > 0 {
		target = names[0]
	}
	_, canSave := reg.Get(tools.NameSave)
	_, canPatch := reg.Get(tools.NamePatch)
	switch {
	case canSave && format == tools.FormatMarkdown:
		r := "\nReply with a ```save " + target + " block holding the whole new file, changed as asked"
		displayed := displayedFiles(reg, format, req)
		shown := len(displayed)
		switch creates := createsAsked(req); {
		case len(creates) > 0 && shown > 0:
			// "Move the code of helpers.go into a new file named
			// strings.go": a save like the one shown would be of
			// helpers.go, which is to be deleted.
			r = "\nReply with a ```save " + creates[0] + " block holding the whole new file"
			covered := calledFiles(reg, req)
			if slices.ContainsFunc(displayed, func(f FileText) bool { return !slices.Contains(covered, f.Path) }) {
				r += ", and for each file below that must change, a save block like its own, holding the whole new file changed as asked"
			}
		case shown > 1:
			r = "\nFor each file that must change, reply with a save block like the ones below, holding the whole new file changed as asked"
		case shown == 1:
			r = "\nReply with a save block like the one below, holding the whole new file changed as asked"
		}
		if canPatch && !wholeFiles(req) {
			r += " (for a long file, a patch block instead)"
		}
		// No sentence the model could copy as its answer: told
		// "describing the change applies nothing", the real model
		// replied "The change applies nothing."
		return r + ".\n"
	case canSave || canPatch:
		return "\nMake this change now with a save call holding every line of the new file, or a patch call.\n"
	}
	return ""
}

// compactNativeTools are the native definitions of a compact turn: the
// compact tools and the non-built-in ones, each with its description only.
func compactNativeTools(reg *tools.Registry, format tools.Format) []openai.Tool {
	var out []openai.Tool
	for _, t := range NativeTools(reg, format) {
		if isBuiltinExtra(t.Function.Name) {
			continue
		}
		if spec, ok := reg.Get(t.Function.Name); ok {
			f := *t.Function
			f.Description = spec.Description
			t.Function = &f
		}
		out = append(out, t)
	}
	return out
}
