package morph

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// A Request is one merge asked of the apply model: a system message (for
// a general model; Morph's own ignores it), the user message in Morph's
// convention, and how many bytes of answer to read at most.
type Request struct {
	System, User string
	MaxBytes     int
}

// A Complete asks the apply model and returns its whole answer.
// agent.ApplyModel makes one over an OpenAI-compatible endpoint.
type Complete func(ctx context.Context, req Request) (string, error)

// Options configure the morph tool.
type Options struct {
	// Complete reaches the apply model; nil means none is configured, and
	// a call is refused saying so.
	Complete Complete
	// Model names the apply model in messages.
	Model string
}

// Tool is morph, merging through opts' apply model: bound in a turn, it
// records the file it names in the Env's Writes and proposes the merge to
// its workspace. Without an apply model a call is refused saying so.
func Tool(opts Options) tools.Tool {
	return tools.Tool{Spec: morphSpec(), Bind: func(env tools.Env) tools.RunFunc {
		ws := env.Workspace
		return func(ctx context.Context, use tools.ToolUse) (string, error) {
			path := stringArg(use, 0, "path")
			env.Writes.Add(writtenBy(ws.Root(), path))
			return Merge(ctx, ws, opts, path, bodyArg(use, "edit"), stringArg(use, -1, "instruction"))
		}
	}}
}

// writtenBy is the file a call names, relative to root, for the turn's
// Writes; policy.UnknownFile when it names none, which every runner runs.
func writtenBy(root, path string) string {
	if path == "" {
		return policy.UnknownFile
	}
	if clean, err := edits.CleanPath(root, path); err == nil {
		return clean
	}
	return path
}

// WithFallback returns patch (the patch tool) with PatchFallback around
// its run in each turn.
func WithFallback(patch tools.Tool, opts Options) tools.Tool {
	return tools.Tool{Spec: patch.Spec, Bind: func(env tools.Env) tools.RunFunc {
		return PatchFallback(patch.Bind(env), env.Workspace, opts)
	}}
}

// morphSpec is gptme's morph, run through the apply model the applyModel
// setting names (without one agent.BindTools marks it unavailable, and
// agentls tools --all says why).
func morphSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameMorph,
		BlockTypes:   []string{tools.NameMorph},
		PathArg:      true,
		Description:  "Change a file by writing only the changed code, with markers for the rest; a fast apply model merges it.",
		Instructions: `Write the code as it should be, with a comment line "// ... existing code ..." (in the file's comment syntax: "# ... existing code ..." for Python) wherever unchanged code is left out. Begin and end with a marker unless you change the file's first or last lines. Show a line or two of unchanged code around each change so it is clear where it goes; to remove lines, show the lines just before and after them in the same piece, with nothing between. The merge is checked: if it changed anything the edit does not show, or the file changed meanwhile, nothing is changed and you see the merge's diff; then use patch. Read the file first.`,
		Parameters: []tools.Parameter{
			tools.PathParam("file to change"),
			{Name: "edit", Type: "string", Required: true, Description: `The changed code, with "// ... existing code ..." lines for the unchanged parts.`},
			{Name: "instruction", Type: "string", Description: "One sentence saying what the edit does, for the apply model."},
		},
		Requires:          "an apply model: the applyModel setting",
		DisabledByDefault: true,
		LoadPriority:      5,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("make Total skip negative prices"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameMorph, `// ... existing code ...
func Total(prices []int) int {
	sum := 0
	for _, p := range prices {
		if p < 0 {
			continue
		}
		sum += p
	}
	return sum
}
// ... existing code ...`, "cart.go")),
				tools.ExampleSystem("Merged the edit into cart.go (+3 -0 lines)"),
			}},
		},
	}
}

// systemPrompt tells a general model what Morph's model does by itself.
const systemPrompt = `You merge a lazy edit into a file. The user's message holds the file between <code> and </code>, and the edit between <update> and </update>. In the edit, comment lines such as "// ... existing code ..." stand for the file's lines at that place, unchanged.
Answer with the complete merged file and nothing else: no code fence, no explanation. Keep every line the edit does not change exactly as it is, in the same order; change only what the edit shows.`

// Merge merges edit into path through the apply model and proposes the
// result to ws. It returns what the model reads, or an error saying why
// nothing was changed.
func Merge(ctx context.Context, ws edittool.Workspace, opts Options, path, edit, instruction string) (string, error) {
	return merge(ctx, ws, opts, path, edit, instruction, nil)
}

// merge is Merge, the check also taking the deletion of lines named
// (checkNamed).
func merge(ctx context.Context, ws edittool.Workspace, opts Options, path, edit, instruction string, named map[string]bool) (_ string, err error) {
	// An error before the merge is proposed, or while it is computed,
	// comes before anything is written: it changed nothing. What the
	// workspace does with it says for itself.
	proposed := false
	defer func() {
		if err != nil && !proposed {
			err = tools.Unchanged(err)
		}
	}()
	switch {
	case opts.Complete == nil:
		return "", errors.New("morph: no apply model is configured (the applyModel setting): use patch instead")
	case path == "":
		return "", errors.New("morph: no path given: give the file to change as path")
	case strings.TrimSpace(edit) == "":
		return "", fmt.Errorf("morph %s: no edit given: give the changed code, with \"// ... existing code ...\" lines for the parts that stay", path)
	}
	ps, markers := pieces(edit)
	switch {
	case markers == 0:
		return "", fmt.Errorf("morph %s: the edit has no \"// ... existing code ...\" marker, so it would be the whole file: use save for that, or mark the unchanged parts", path)
	case len(ps) == 0:
		return "", fmt.Errorf("morph %s: the edit holds only markers: show the code that changes", path)
	}
	clean, err := edits.CleanPath(ws.Root(), path)
	if err != nil {
		return "", fmt.Errorf("morph %s: %w", path, err)
	}
	original, _, exists, err := ws.Read(ctx, clean)
	if err != nil {
		return "", fmt.Errorf("morph %s: %w", clean, err)
	}
	if !exists {
		return "", fmt.Errorf("morph %s: there is no such file: morph changes existing files; create it with save", clean)
	}
	if strings.TrimSpace(original) == "" {
		return "", fmt.Errorf("morph %s: the file is empty: write it with save", clean)
	}
	var user strings.Builder
	if instruction = strings.TrimSpace(instruction); instruction != "" {
		fmt.Fprintf(&user, "<instruction>%s</instruction>\n", instruction)
	}
	fmt.Fprintf(&user, "<code>%s</code>\n<update>%s</update>", original, edit)
	answer, err := opts.Complete(ctx, Request{System: systemPrompt, User: user.String(), MaxBytes: 2*len(original) + 2*len(edit) + 64<<10})
	if err != nil {
		return "", fmt.Errorf("morph %s: the apply model %s failed: %w; nothing was changed (patch does not need it)", clean, opts.Model, err)
	}
	merged := fitText(original, answerCode(answer))
	if strings.TrimSpace(merged) == "" {
		return "", fmt.Errorf("morph %s: the apply model %s answered no code (%q); nothing was changed: try again, or use patch", clean, opts.Model, clipLine(answer))
	}
	if merged == original {
		return fmt.Sprintf("morph %s: the merge changed nothing (the file already holds this edit)", clean), nil
	}
	if err := checkNamed(original, edit, merged, named); err != nil {
		return "", fmt.Errorf("morph %s: the apply model's merge was refused: %w. Nothing was changed.\nIts merge, as a diff:\n%s\nCall morph again with pieces that show the lines around each change, or use patch", clean, err, clipDiff(udiff.Unified("a/"+clean, "b/"+clean, original, merged)))
	}
	approved := false
	proposed = true
	msg, err := edittool.Propose(ctx, ws, nil, func(ctx context.Context, b *edittool.Batch) (err error) {
		defer func() { err = tools.Unchanged(err) }()
		// The optimistic lock: the merge is of the text read above, so
		// it lands only on that text.
		now, version, exists, err := b.Source.Read(ctx, clean)
		if err != nil {
			return fmt.Errorf("morph %s: %w", clean, err)
		}
		if !exists || now != original {
			return fmt.Errorf("morph %s: the file changed while the apply model merged the edit (since it was read); nothing was changed: read it again and call morph again", clean)
		}
		b.Changes.Write(clean, original, true, version, merged)
		if approved {
			return nil
		}
		if err := b.ConfirmProtected(ctx, ws, ws.PrivateDirs()...); err != nil {
			return err
		}
		approved = true
		return nil
	})
	if err != nil {
		return "", err
	}
	added, removed := countChanges(original, merged)
	out := fmt.Sprintf("Merged the edit into %s (+%d -%d lines)", clean, added, removed)
	if msg != "" {
		out += "\n" + msg
	}
	return out, nil
}

// answerCode takes the file out of the apply model's answer: Morph's is
// the bare file; a general model may wrap it in a code fence or in the
// prompt's tags.
func answerCode(answer string) string {
	s := strings.TrimSpace(answer)
	for _, tag := range []string{"updated-code", "code"} {
		open, close := "<"+tag+">", "</"+tag+">"
		if i := strings.Index(s, open); i >= 0 {
			if j := strings.LastIndex(s, close); j > i {
				s = strings.Trim(s[i+len(open):j], "\n")
				break
			}
		}
	}
	if strings.HasPrefix(s, "```") {
		first, rest, ok := strings.Cut(s, "\n")
		fence := first[:len(first)-len(strings.TrimLeft(first, "`"))]
		if ok && strings.HasSuffix(strings.TrimRight(rest, " \t\n"), fence) {
			rest = strings.TrimRight(rest, " \t\n")
			s = strings.TrimSuffix(strings.TrimSuffix(rest, fence), "\n")
		}
	}
	return s
}

// fitText gives the merged text the original's conventions, which the
// apply model does not see or keep reliably: its line endings (CRLF when
// its first line ends so), its final line break, its byte-order mark.
func fitText(original, merged string) string {
	const bom = "\ufeff"
	merged = strings.TrimPrefix(merged, bom)
	merged = strings.ReplaceAll(merged, "\r\n", "\n")
	merged = strings.TrimRight(merged, "\n")
	if merged == "" {
		return ""
	}
	if strings.HasSuffix(original, "\n") {
		merged += "\n"
	}
	if first, _, ok := strings.Cut(original, "\n"); ok && strings.HasSuffix(first, "\r") {
		merged = strings.ReplaceAll(merged, "\n", "\r\n")
	}
	if strings.HasPrefix(original, bom) {
		merged = bom + merged
	}
	return merged
}

// countChanges counts the lines added and removed between two texts.
func countChanges(a, b string) (added, removed int) {
	for _, e := range udiff.Lines(a, b) {
		removed += strings.Count(a[e.Start:e.End], "\n")
		added += strings.Count(e.New, "\n")
	}
	return added, removed
}

// clipDiff bounds the diff the agent reads: a hallucinated merge can
// rewrite a whole file.
func clipDiff(d string) string {
	const max = 8 << 10
	if len(d) <= max {
		return d
	}
	cut := strings.LastIndex(d[:max], "\n") + 1
	return d[:cut] + fmt.Sprintf("... (%d more bytes of diff)\n", len(d)-cut)
}

// stringArg returns a call's i-th positional argument (i < 0: none), or
// its named argument.
func stringArg(use tools.ToolUse, i int, name string) string {
	if i >= 0 && i < len(use.Args) {
		return use.Args[i]
	}
	s, _ := use.Kwargs[name].(string)
	return s
}

// bodyArg returns a call's body: a block's content, or its named
// argument.
func bodyArg(use tools.ToolUse, name string) string {
	if use.Content != "" {
		return use.Content
	}
	s, _ := use.Kwargs[name].(string)
	return s
}
