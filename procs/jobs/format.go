package jobs

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/text"
)

// What the model is shown of a job's output by default (gptme's sizes):
// pass them to Manager.Output for FormatOutput.
const (
	ModelStdoutBytes = 8000
	ModelStderrBytes = 2000
)

// listCommandRunes is how much of a command a line of `jobs` shows.
const listCommandRunes = 50

// BgUsage answers a bare `bg`.
const BgUsage = "Usage: `bg <command>` runs the command as a background job.\n" +
	"Then `jobs` lists the jobs, `output N` shows the output of job N, `kill N` stops it."

// Line is the job's line in the answer to `jobs`, such as
// "- **#3** [Running] (12.3s): `go test ./...`".
func (i Info) Line() string {
	return fmt.Sprintf("- **#%d** [%s] (%s): %s", i.ID, i.state(), formatDuration(i.Duration), text.InlineCode(shortCommand(i.Command)))
}

// state is the job's state in brackets: Running, Exit 2, Killed (SIGTERM).
func (i Info) state() string {
	switch {
	case i.Running:
		return "Running"
	case i.Signal != "":
		return "Killed (" + i.Signal + ")"
	default:
		return fmt.Sprintf("Exit %d", i.ExitCode)
	}
}

// status is the job's state in a sentence's words, for headers.
func (i Info) status() string {
	switch {
	case i.Running:
		return "Running"
	case i.Signal != "":
		return fmt.Sprintf("Killed by %s (exit code: %d)", i.Signal, i.ExitCode)
	default:
		return fmt.Sprintf("Finished (exit code: %d)", i.ExitCode)
	}
}

// ending says how a finished job ended, in a parenthesis's words.
func (i Info) ending() string {
	if i.Signal != "" {
		return fmt.Sprintf("%s, exit code %d", i.Signal, i.ExitCode)
	}
	return fmt.Sprintf("exit code %d", i.ExitCode)
}

// FormatList answers `jobs`: one Line per job, finished jobs included.
func FormatList(infos []Info) string {
	if len(infos) == 0 {
		return "No background jobs."
	}
	lines := make([]string, len(infos))
	for k, i := range infos {
		lines[k] = i.Line()
	}
	return strings.Join(lines, "\n")
}

// StartedMessage answers `bg CMD` once the job is started.
func StartedMessage(i Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Started background job **#%d**: %s\n", i.ID, text.InlineCode(firstLine(i.Command)))
	if i.LogPath != "" {
		fmt.Fprintf(&b, "Full output: %s\n", i.LogPath)
	}
	fmt.Fprintf(&b, "\n- `jobs` lists background jobs\n- `output %d` shows its output\n- `kill %d` stops it", i.ID, i.ID)
	return b.String()
}

// KilledMessage answers `kill N` with what Manager.Kill returned.
func KilledMessage(i Info) string {
	cmd := text.InlineCode(firstLine(i.Command))
	switch {
	case i.Running:
		return fmt.Sprintf("Job **#%d** is being killed: %s", i.ID, cmd)
	case i.Killed:
		return fmt.Sprintf("Terminated job **#%d** (%s): %s", i.ID, i.ending(), cmd)
	default:
		return fmt.Sprintf("Job **#%d** had already ended (%s): %s", i.ID, i.ending(), cmd)
	}
}

// UnknownJobMessage answers `output N` or `kill N` when arg names no job.
func UnknownJobMessage(arg string) string {
	if _, ok := ParseID(arg); !ok {
		return fmt.Sprintf("Invalid job ID: %s. Use `jobs` to list jobs.", text.InlineCode(arg))
	}
	return fmt.Sprintf("No job with ID #%s. Use `jobs` to list jobs.", arg)
}

// FormatOutput answers `output N`: a header, the command, and the tail of
// each stream (as Manager.Output returned it, typically with
// ModelStdoutBytes and ModelStderrBytes), saying how much came before it
// and where the rest is. Terminal control sequences are removed and
// carriage-return redraws (progress bars) reduced to their last state.
func FormatOutput(i Info, out Output) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Job #%d** - %s (%s)\n", i.ID, i.status(), formatDuration(i.Duration))
	if strings.Contains(i.Command, "\n") {
		b.WriteString("Command:\n" + fence("bash", i.Command))
	} else {
		b.WriteString("Command: " + text.InlineCode(i.Command) + "\n")
	}
	stdout, stderr := cleanOutput(out.Stdout), cleanOutput(out.Stderr)
	if stdout == "" && stderr == "" && out.StdoutDropped == 0 && out.StderrDropped == 0 {
		if i.Running {
			b.WriteString("\nNo output yet.")
		} else {
			b.WriteString("\nNo output.")
		}
		return b.String()
	}
	for _, s := range []struct {
		name, lang, text string
		dropped          int64
	}{
		{"Stdout", "stdout", stdout, out.StdoutDropped},
		{"Stderr", "stderr", stderr, out.StderrDropped},
	} {
		if s.text == "" && s.dropped == 0 {
			continue
		}
		body := s.text
		if s.dropped > 0 {
			body = droppedNote(s.dropped, i.LogPath) + "\n" + body
		}
		fmt.Fprintf(&b, "\n%s:\n%s", s.name, fence(s.lang, body))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func droppedNote(n int64, logPath string) string {
	if logPath == "" {
		return fmt.Sprintf("...(%d bytes dropped)...", n)
	}
	return fmt.Sprintf("...(%d bytes dropped; full output in %s)...", n, logPath)
}

// formatDuration is gptme's: seconds below a minute, then minutes; and
// hours, for the servers that run all day.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.1fm", d.Minutes())
	default:
		return fmt.Sprintf("%.1fh", d.Hours())
	}
}

// shortCommand is the first line of cmd, cut to listCommandRunes.
func shortCommand(cmd string) string {
	return text.ShortenRunes(firstLine(cmd), listCommandRunes, "...")
}

// firstLine is cmd's first line, with "..." if there are more.
func firstLine(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if first, _, more := strings.Cut(cmd, "\n"); more {
		return strings.TrimRight(first, " \t\r") + " ..."
	}
	return cmd
}

// fence puts body in a fenced code block (text.Fence), so output cannot
// close it early.
func fence(lang, body string) string {
	ticks := text.Fence(body)
	return ticks + lang + "\n" + strings.TrimSuffix(body, "\n") + "\n" + ticks + "\n"
}

// cleanOutput makes terminal output readable as text: escape sequences
// (colours, cursor moves, titles) are removed, a line redrawn with '\r'
// keeps its last state, and blank lines at the ends go.
func cleanOutput(s string) string {
	if s == "" {
		return ""
	}
	s = text.StripEscapes(s)
	if strings.Contains(s, "\r") {
		lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
		for k, line := range lines {
			if i := strings.LastIndexByte(strings.TrimRight(line, "\r"), '\r'); i >= 0 {
				line = line[i+1:]
			}
			lines[k] = strings.TrimRight(line, "\r")
		}
		s = strings.Join(lines, "\n")
	}
	return text.TrimBlankLines(s, true, true)
}
