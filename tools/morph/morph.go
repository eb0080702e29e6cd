package morph

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/edits"
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

// Runs returns the morph tool's run function bound to ws, for
// Registry.Bind.
func Runs(ws edittool.Workspace, opts Options) map[string]tools.RunFunc {
	return map[string]tools.RunFunc{"morph": func(ctx context.Context, use tools.ToolUse) (string, error) {
		return Merge(ctx, ws, opts, stringArg(use, 0, "path"), bodyArg(use, "edit"), stringArg(use, -1, "instruction"))
	}}
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
	msg, err := ws.Propose(ctx, func(ctx context.Context, b *edittool.Batch) (err error) {
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
