package shell

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/text"
)

// Result is what a Run did.
type Result struct {
	Commands []Command // the commands that ran, in order
	Skipped  []string  // the commands not run because one before them failed
}

// Command is one command that ran.
type Command struct {
	Text string // as Split cut it from the script
	// Stdout and Stderr are the command's output, whole unless it was
	// longer than Options.Keep: then the middle is left out, where and
	// how much the Gap says, and the log file has it.
	Stdout, Stderr       string
	StdoutGap, StderrGap Gap
	// ExitCode is the command's exit status; ExitTimedOut (-124) when it
	// timed out, ExitInterrupted (-130) when its context was cancelled or
	// the session closed under it.
	ExitCode    int
	TimedOut    bool
	Interrupted bool
	// Restarted says the shell was restarted after the command (it was
	// stopped, or it ended the shell), so exported variables and shell
	// functions were lost; the directory was kept.
	Restarted bool
	Duration  time.Duration // until the command ended or was stopped
	LogPath   string        // the log file with the full output, if any
	LogError  error         // why the log file is missing or incomplete
}

// Limits are how many bytes of the head and tail of each stream to show
// (or keep); a zero field means its default, a negative one none. The
// defaults are gptme's token limits at ≈4 bytes a token.
type Limits struct {
	StdoutHead, StdoutTail, StderrHead, StderrTail int
}

// DefaultLimits are the limits a zero field stands for.
var DefaultLimits = Limits{StdoutHead: 8000, StdoutTail: 32000, StderrHead: 8000, StderrTail: 8000}

func (l Limits) withDefaults() Limits {
	pick := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	return Limits{
		StdoutHead: pick(l.StdoutHead, DefaultLimits.StdoutHead),
		StdoutTail: pick(l.StdoutTail, DefaultLimits.StdoutTail),
		StderrHead: pick(l.StderrHead, DefaultLimits.StderrHead),
		StderrTail: pick(l.StderrTail, DefaultLimits.StderrTail),
	}
}

// Message is the text the model reads about r, in gptme's format: per
// command a header (`Ran command`, `Command timed out (after 3.0s)`,
// `Command interrupted`), its stdout and stderr (one line inline, more in
// a fenced block), `No output` when there was none, `Return code: N` when
// it is not 0, and a note when the shell was restarted; then the commands
// that did not run. Output is shown without ANSI escape sequences and
// blank edge lines; output longer than l keeps its head and tail around a
// line saying how much was cut and where the full output is.
func (r *Result) Message(l Limits) string {
	l = l.withDefaults()
	var parts []string
	for i := range r.Commands {
		parts = append(parts, r.Commands[i].message(l))
	}
	if len(r.Skipped) > 0 {
		reason := "the run was interrupted"
		if n := len(r.Commands); n > 0 {
			switch last := r.Commands[n-1]; {
			case last.TimedOut:
				reason = "the previous command timed out"
			case last.Interrupted:
				reason = "the previous command was interrupted"
			case last.ExitCode != 0:
				reason = "the previous command failed"
			}
		}
		parts = append(parts, block("Not run because "+reason, strings.Join(r.Skipped, "\n"), "bash"))
	}
	if len(parts) == 0 {
		return "No command to run."
	}
	return strings.Join(parts, "\n\n")
}

func (c *Command) message(l Limits) string {
	var b strings.Builder
	header := "Ran command"
	switch {
	case c.TimedOut:
		header = fmt.Sprintf("Command timed out (after %.1fs)", c.Duration.Seconds())
	case c.Interrupted:
		header = "Command interrupted"
	}
	b.WriteString(block(header, displayCommand(c.Text), "bash"))
	stdout := c.render(c.Stdout, c.StdoutGap, l.StdoutHead, l.StdoutTail)
	stderr := c.render(c.Stderr, c.StderrGap, l.StderrHead, l.StderrTail)
	if stdout != "" {
		b.WriteString("\n\n" + outputBlock("stdout", stdout))
	}
	if stderr != "" {
		b.WriteString("\n\n" + outputBlock("stderr", stderr))
	}
	if stdout == "" && stderr == "" {
		switch {
		case c.TimedOut:
			b.WriteString("\n\nNo output before timeout")
		case c.Interrupted:
			b.WriteString("\n\nNo output before interruption")
		default:
			b.WriteString("\n\nNo output")
		}
	}
	if c.ExitCode != 0 {
		fmt.Fprintf(&b, "\n\nReturn code: %d", c.ExitCode)
	}
	if c.Restarted {
		b.WriteString("\n\nThe shell was restarted; exported variables were lost.")
	}
	return b.String()
}

// render is one stream as the model sees it: cut to head and tail bytes,
// escape sequences and blank edge lines removed.
func (c *Command) render(stream string, gap Gap, head, tail int) string {
	h, t, cut := excerpt(stream, gap, head, tail)
	if cut == 0 {
		return text.TrimBlankLines(text.StripEscapes(h), true, true)
	}
	h = text.TrimBlankLines(text.StripEscapes(h), true, false)
	t = text.TrimBlankLines(text.StripEscapes(t), false, true)
	var note string
	switch {
	case c.LogError != nil:
		note = fmt.Sprintf("... (%d bytes cut; the full output was not saved: %v) ...", cut, c.LogError)
	case c.LogPath != "":
		note = fmt.Sprintf("... (%d bytes cut, full output in %s) ...", cut, c.LogPath)
	default:
		note = fmt.Sprintf("... (%d bytes cut) ...", cut)
	}
	if h != "" && !strings.HasSuffix(h, "\n") {
		h += "\n"
	}
	if t != "" {
		note += "\n"
	}
	return h + note + t
}

// excerpt picks at most head bytes from the start and tail bytes from the
// end of a stream whose kept text is s with gap left out, and says how
// many bytes lie between them. A cut falls on a line break when one is
// near, else on a character boundary.
func excerpt(s string, gap Gap, head, tail int) (h, t string, cut int64) {
	total := int64(len(s)) + gap.Bytes
	if gap.Bytes == 0 && total <= int64(head)+int64(tail) {
		return s, "", 0
	}
	headEnd, tailStart := min(head, len(s)), max(len(s)-tail, 0)
	if gap.Bytes > 0 { // the kept text stops being contiguous at gap.At
		headEnd, tailStart = min(headEnd, gap.At), max(tailStart, gap.At)
	}
	h = text.Clip(s, headEnd)
	if i := strings.LastIndexByte(h, '\n'); i >= 0 && i >= len(h)/2 {
		h = h[:i+1]
	}
	t = text.ClipTail(s, len(s)-max(tailStart, len(h)))
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)/2 {
		t = t[i+1:]
	}
	return h, t, total - int64(len(h)) - int64(len(t))
}

// displayCommand shortens a long command the way gptme shows it: the
// model wrote it and needs no copy.
func displayCommand(cmd string) string {
	lines := strings.Count(cmd, "\n") + 1
	if len(cmd) <= 100 && lines <= 3 {
		return cmd
	}
	first, _, _ := strings.Cut(cmd, "\n")
	first = text.Clip(first, 80)
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("%s... (%d %s)", first, lines, unit)
}

// block renders "header: `text`" for one line, else header and a fenced
// block.
func block(header, text, lang string) string {
	if !strings.ContainsAny(text, "\n`") {
		return header + ": `" + text + "`"
	}
	return header + ":\n" + fenced(text, lang)
}

// outputBlock renders one line of output as "stdout: `text`", more as a
// block whose language names the stream.
func outputBlock(stream, text string) string {
	if !strings.ContainsAny(text, "\n`") {
		return stream + ": `" + text + "`"
	}
	return fenced(text, stream)
}

// fenced wraps body in a code fence (text.Fence), so output that prints a
// fence cannot close ours.
func fenced(body, lang string) string {
	fence := text.Fence(body)
	return fence + lang + "\n" + body + "\n" + fence
}
