package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// ErrRepeated marks a turn ended because the model kept sending a call
// that had already failed the same way: a small model told the same error
// sends the same reply again, and would until maxSteps (issue 30 saw 30
// identical failing patches in 8 minutes).
var ErrRepeated = errors.New("the model repeated a failing call")

// errGoingRound ends a turn whose model sent the same call with the same
// result a third time: not a failure (what the calls did stands), but
// going on would only repeat it.
var errGoingRound = errors.New("the model repeated a call")

// repeatLimit is how many times one failing call may be sent: the second
// time the model is told more (concreteFeedback); the third is not run —
// the turn ends on it, so no identical failing call runs more than twice.
const repeatLimit = 3

// failures counts a turn's failing calls by what they sent, since the
// turn last changed a file: a call that failed before an edit (a test
// run, a patch of the edited file) may pass after it, and sending it
// again is then no repetition.
type failures struct {
	byKey map[string]failure
	edits int // edit calls applied so far in the turn
}

// failure is how one call has failed since the turn last changed a file.
type failure struct {
	count   int
	at      int    // the turn's edits when it last failed
	lastErr string // the first line of its last error
}

func newFailures() failures { return failures{byKey: map[string]failure{}} }

// add counts one more failure of the call with key, which failed with
// err, and returns how many there were since the last edit.
func (f *failures) add(key string, err error) int {
	fl := f.byKey[key]
	if fl.at != f.edits {
		fl = failure{}
	}
	fl.count++
	fl.at = f.edits
	if err != nil {
		fl.lastErr = errLine(err.Error())
	}
	f.byKey[key] = fl
	return fl.count
}

// seen returns how many times the call with key failed since the last
// edit, and the last failure's error line.
func (f *failures) seen(key string) (int, string) {
	fl := f.byKey[key]
	if fl.at != f.edits {
		return 0, ""
	}
	return fl.count, fl.lastErr
}

// edited records an edit call applied: what failed before may not now.
func (f *failures) edited() { f.edits++ }

// repeats counts a turn's calls that succeeded, by call and output.
type repeats map[string]int

// add counts one more of key and returns how many there were.
func (r repeats) add(key string) int {
	r[key]++
	return r[key]
}

// callKey identifies a call by what the model wrote: its tool, arguments
// and body, trailing spaces ignored (a model repeating itself may end a
// line differently). The call id of a native call is left out: each
// repetition gets a new one.
func callKey(u tools.ToolUse) string {
	kw, _ := json.Marshal(u.Kwargs) // map keys are sorted
	var body strings.Builder
	for l := range strings.Lines(strings.TrimSpace(u.Content)) {
		body.WriteString(strings.TrimRight(l, " \t\r\n") + "\n")
	}
	return u.Tool + "\x00" + strings.Join(u.Args, "\x00") + "\x00" + string(kw) + "\x00" + body.String()
}

// repeatedError is how a turn ends when the model sends, a third time, a
// call that failed twice the same way with nothing changed since: what it
// kept doing and why it failed, for the user. The third call is not run.
func repeatedError(use tools.ToolUse, errLine string) error {
	return fmt.Errorf("%w: it sent the same %s call a third time after it failed twice (%s); the third was not run and nothing was changed by it. "+
		"Ask again naming the file and the change, or try a larger model",
		ErrRepeated, DescribeUse(use), errLine)
}

// errLine is the first line of an error message, clipped.
func errLine(s string) string {
	return clipWords(firstLine(strings.TrimSpace(s)), 160)
}

// maxFeedbackLines bounds the file lines shown with a repeated failure.
const maxFeedbackLines = 60

// concreteFeedback is what the model is told, beyond the error, the second
// time a call fails the same way: that it is a repetition, and for an edit
// the current lines of the files it meant (numbered, as read shows them),
// around where its hunk should go, so the next try can copy real lines.
func (t *Turn) concreteFeedback(ctx context.Context, use tools.ToolUse, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nYou sent this same %s call before and it failed the same way. Do not send it again unchanged.", use.Tool)
	if !edittool.IsEditTool(use.Tool) {
		b.WriteString(" Change the call, or do something else.")
		return b.String()
	}
	paths := edittool.PathsOf(use)
	if len(paths) == 0 {
		paths = pathsInSections(use.Content)
	}
	if len(paths) == 0 {
		b.WriteString(" Name the file to change after the block type, as in the tool's example.")
		return b.String()
	}
	around := nearestLine(err.Error())
	for _, p := range paths {
		view, rerr := t.readForModel(ctx, p, around)
		if rerr != nil {
			fmt.Fprintf(&b, "\n%s cannot be read: %s.", p, errLine(rerr.Error()))
			if list, lerr := t.readForModel(ctx, ".", 0); lerr == nil {
				b.WriteString(" The workspace holds:\n" + list)
			}
			continue
		}
		fmt.Fprintf(&b, "\nThe current lines of %s (the numbers are not part of the file); %s:\n%s", p, fromTheLines(use.Tool), view)
	}
	return b.String()
}

// fromTheLines says what a call of tool takes from a file's current
// lines: ORIGINAL lines for a patch, every line kept for a whole file.
func fromTheLines(tool string) string {
	switch tool {
	case tools.NameSave:
		return "write the whole new file from them, every line you keep, changed as asked"
	case tools.NameAppend:
		return "add only the new lines after them"
	case tools.NameDelete, tools.NameMove:
		return "the file is as shown"
	}
	return "copy ORIGINAL lines exactly from them"
}

// pathsInSections returns the paths of "=== PATH: p ===" lines, for a
// call that holds patch_many's sections where they do not belong.
func pathsInSections(body string) []string {
	var out []string
	for _, m := range sectionHeader.FindAllStringSubmatch(body, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

var sectionHeader = regexp.MustCompile(`(?m)^=== PATH: (.+?) ===\s*$`)

// nearestLine finds the first line number an error names ("The nearest
// lines are 3-5"), or 0.
func nearestLine(msg string) int {
	m := nearestRe.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var nearestRe = regexp.MustCompile(`nearest lines? (?:are |is )?(\d+)`)

// readForModel reads path through the turn's read tool, the view the model
// gets from read (the editor's buffers, the secret rules), numbered; a
// file longer than maxFeedbackLines is shown around line around (from its
// top when 0). It fails when the turn has no runnable read tool.
func (t *Turn) readForModel(ctx context.Context, path string, around int) (string, error) {
	use := tools.ToolUse{Tool: tools.NameRead, Args: []string{path}}
	if around > 0 {
		from := max(1, around-maxFeedbackLines/2)
		use.Kwargs = map[string]any{"start_line": float64(from), "end_line": float64(from + maxFeedbackLines - 1)}
	} else if path != "." {
		use.Kwargs = map[string]any{"end_line": float64(maxFeedbackLines)}
	}
	return t.runRead(ctx, use)
}

// readWhole is the read tool's whole view of path (a file, or a folder's
// listing), as a read call of it shows the model.
func (t *Turn) readWhole(ctx context.Context, path string) (string, error) {
	return t.runRead(ctx, tools.ToolUse{Tool: tools.NameRead, Args: []string{path}})
}

// runRead runs use on the turn's read tool; it fails when the turn has
// none that runs.
func (t *Turn) runRead(ctx context.Context, use tools.ToolUse) (string, error) {
	spec, ok := t.Registry.Get(tools.NameRead)
	if !ok || !spec.Runnable() {
		return "", errors.New("no read tool in this turn")
	}
	return spec.Run(ctx, use)
}
