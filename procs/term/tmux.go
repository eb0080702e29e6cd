package term

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentls/agentls/internal/text"
)

// Capture truncation, as gptme: past maxCaptureLines, keep the head and
// the (more telling) tail.
const (
	maxCaptureLines  = 200
	captureHeadLines = 50
	captureTailLines = 150
)

// Tmux runs the tmux tool's commands on the manager's sessions and returns
// the messages gptme's tmux tool would, joined by blank lines. body holds
// one or more commands separated by newlines or ';' outside quotes:
//
//	new-session CMD                 start CMD, show its screen once it settles
//	send-keys NAME KEYS...          type into NAME (tmux key names work), show the screen
//	inspect-pane NAME               show NAME's scrollback and screen
//	wait NAME [TIMEOUT] [STABLE]    wait until the screen is still for STABLE seconds (default 60, 3)
//	kill-session NAME               end NAME and everything it started
//	list-sessions                   list the sessions
//
// NAME is agentls_N or just N. Errors are messages too, as in gptme:
// "Error: Missing arguments for command: X", "Error: Unknown command: X".
// Unlike tmux, words that are not key names are typed with a space between
// them: `send-keys 1 echo hi Enter` types "echo hi", not "echohi".
func (m *Manager) Tmux(ctx context.Context, body string) string {
	cmds := splitCommands(body)
	if len(cmds) == 0 {
		return "Error: No commands given. Use new-session, send-keys, inspect-pane, wait, kill-session or list-sessions."
	}
	var out []string
	for i, c := range cmds {
		if ctx.Err() != nil {
			out = append(out, fmt.Sprintf("Interrupted: %d command(s) not run.", len(cmds)-i))
			break
		}
		out = append(out, m.tmuxCommand(ctx, c))
	}
	return strings.Join(out, "\n\n")
}

func (m *Manager) tmuxCommand(ctx context.Context, c string) string {
	verb, args := cutSpace(c)
	if verb == "list-sessions" {
		return m.listSessions()
	}
	switch verb {
	case "new-session", "send-keys", "inspect-pane", "wait", "kill-session":
	default:
		return "Error: Unknown command: " + verb
	}
	if args == "" {
		return "Error: Missing arguments for command: " + verb
	}
	if verb == "new-session" {
		return m.newSession(ctx, args)
	}
	name, rest := cutSpace(args)
	s, ok := m.Get(name)
	if !ok {
		return m.noSession(name)
	}
	switch verb {
	case "send-keys":
		if rest == "" {
			return "Error: Missing arguments for command: " + verb
		}
		return m.sendKeys(ctx, s, rest)
	case "inspect-pane":
		return "Pane content:\n" + outputBlock(s.Capture()) + exitedNote(s)
	case "wait":
		return m.wait(ctx, s, rest)
	default: // kill-session
		if err := m.Kill(s.Name()); err != nil {
			return "Error: " + err.Error()
		}
		return "Killed tmux session with ID " + s.Name()
	}
}

func (m *Manager) newSession(ctx context.Context, command string) string {
	// gptme shows `new-session 'npm run dev'` without its quotes, so models
	// write them; tmux would then look for a program named "npm run dev".
	if args := splitKeys(command); len(args) == 1 && len(command) > 1 && (command[0] == '\'' || command[0] == '"') {
		command = args[0]
	}
	s, err := m.Start(ctx, command)
	if err != nil {
		return fmt.Sprintf("Error: Could not start `%s`: %v", command, err)
	}
	m.settle(ctx, s)
	return fmt.Sprintf("Running `%s` in session %s.\n%s%s", command, s.Name(), outputBlock(s.Capture()), exitedNote(s))
}

func (m *Manager) sendKeys(ctx context.Context, s *Session, keys string) string {
	if !s.Running() {
		return fmt.Sprintf("Error: The program in %s has exited%s; nothing was sent. Its last screen:\n%s", s.Name(), exitCodeText(s), outputBlock(s.Capture()))
	}
	if err := s.SendKeys(joinLiterals(splitKeys(keys))...); err != nil {
		return fmt.Sprintf("Failed to send keys to tmux pane `%s`: %v", s.Name(), err)
	}
	m.settle(ctx, s)
	return fmt.Sprintf("Sent '%s' to pane `%s`\n%s%s", keys, s.Name(), outputBlock(s.Capture()), exitedNote(s))
}

// settle gives a program a moment to react before its screen is shown: until
// the screen has been still for Options.Settle, ten times that at most.
func (m *Manager) settle(ctx context.Context, s *Session) {
	_, _ = s.WaitStable(ctx, m.opts.Settle, 10*m.opts.Settle)
}

func (m *Manager) wait(ctx context.Context, s *Session, args string) string {
	timeout, stable := 60.0, 3.0
	for i, f := range strings.Fields(args) {
		key, val, named := strings.Cut(f, "=")
		if !named {
			val = f
			key = [...]string{"timeout", "stable", ""}[min(i, 2)]
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || v < 0 || (key != "timeout" && key != "stable") {
			return fmt.Sprintf("Error: Invalid argument %q for wait: use wait SESSION [TIMEOUT] [STABLE] (seconds)", f)
		}
		if key == "timeout" {
			timeout = v
		} else {
			stable = v
		}
	}
	start := time.Now()
	_, err := s.WaitStable(ctx, seconds(stable), seconds(timeout))
	elapsed := time.Since(start).Seconds()
	name := s.Name()
	switch {
	case !s.Running():
		return fmt.Sprintf("Session `%s` exited%s after %.1fs.\n%s", name, exitCodeText(s), elapsed, outputBlock(s.Capture()))
	case errors.Is(err, ErrNotStable):
		return fmt.Sprintf("Session `%s` timed out after %gs (output still changing).\n%s\nSession still active. Use `kill-session %s` to terminate or `send-keys %s C-c` to interrupt.",
			name, timeout, outputBlock(s.Capture()), name, name)
	case err != nil:
		return fmt.Sprintf("Session `%s`: waiting interrupted after %.1fs.\n%s", name, elapsed, outputBlock(s.Capture()))
	}
	return fmt.Sprintf("Session `%s` output stabilized after %.1fs (stable for %gs).\n%s", name, elapsed, stable, outputBlock(s.Capture()))
}

func seconds(v float64) time.Duration {
	return time.Duration(min(v, 24*3600) * float64(time.Second))
}

func (m *Manager) listSessions() string {
	infos := m.List()
	if len(infos) == 0 {
		return "No active tmux sessions."
	}
	var b strings.Builder
	b.WriteString("Active tmux sessions:")
	for _, in := range infos {
		state := "running"
		if !in.Running {
			state = "exited " + strconv.Itoa(in.ExitCode)
		}
		fmt.Fprintf(&b, "\n- %s [%s] `%s`", in.Name, state, firstLine(in.Command, 80))
	}
	return b.String()
}

func (m *Manager) noSession(name string) string {
	var names []string
	for _, in := range m.List() {
		names = append(names, in.Name)
	}
	msg := fmt.Sprintf("Error: No session %q.", normalizeName(name))
	if len(names) == 0 {
		return msg + " There are no sessions; start one with new-session."
	}
	return msg + " Sessions: " + strings.Join(names, ", ") + "."
}

func exitedNote(s *Session) string {
	if s.Running() {
		return ""
	}
	return "\nThe program has exited" + exitCodeText(s) + "."
}

func exitCodeText(s *Session) string {
	code, _ := s.ExitCode()
	if code < 0 {
		return " (killed by a signal)"
	}
	return " with code " + strconv.Itoa(code)
}

// cutSpace splits off the first word of s.
func cutSpace(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func firstLine(s string, limit int) string {
	line, _, more := strings.Cut(s, "\n")
	if short := text.ShortenRunes(line, limit, "..."); short != line {
		return short
	}
	if more {
		return line + " ..."
	}
	return line
}

// outputBlock fences captured text as gptme's ```output block, with a
// longer fence when the text itself holds one.
func outputBlock(capture string) string {
	capture = truncateCapture(capture)
	fence := text.Fence(capture)
	return fence + "output\n" + capture + "\n" + fence
}

// truncateCapture keeps the first 50 and last 150 lines of a capture longer
// than 200 lines, as gptme does.
func truncateCapture(text string) string {
	lines := strings.Split(text, "\n")
	if len(lines) <= maxCaptureLines {
		return text
	}
	cut := len(lines) - captureHeadLines - captureTailLines
	kept := append(append(lines[:captureHeadLines:captureHeadLines],
		fmt.Sprintf("... (%d lines truncated) ...", cut)), lines[len(lines)-captureTailLines:]...)
	return strings.Join(kept, "\n")
}

// splitCommands splits a tmux tool body into commands at newlines and at
// ';' outside quotes, except on a new-session line: its argument is a
// shell command, where ';' is the shell's (`new-session while :; do ...`).
// Unlike gptme's splitter it honours backslash escapes, so
// `send-keys 1 don\'t Enter` does not open a quote.
func splitCommands(body string) []string {
	var cmds []string
	var cur strings.Builder
	var quote byte
	escaped := false
	verbDone := false  // the current command's first word has been read
	wholeLine := false // the current command is a new-session
	flush := func() {
		if c := strings.TrimSpace(cur.String()); c != "" {
			cmds = append(cmds, c)
		}
		cur.Reset()
		verbDone, wholeLine = false, false
	}
	for i := 0; i < len(body); i++ {
		r := body[i]
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '\n' || r == ';' && !wholeLine:
			flush()
			continue
		case (r == ' ' || r == '\t') && !verbDone:
			if verb := strings.TrimSpace(cur.String()); verb != "" {
				verbDone, wholeLine = true, verb == "new-session"
			}
		}
		cur.WriteByte(r)
	}
	flush()
	return cmds
}

// splitKeys splits send-keys arguments like a POSIX shell (Python's
// shlex.split, as gptme): quotes group, backslashes escape. Input it cannot
// split (an unclosed quote) is one argument, as in gptme.
func splitKeys(s string) []string {
	var (
		args    []string
		cur     strings.Builder
		inWord  bool
		quote   byte
		escaped bool
	)
	for i := 0; i < len(s); i++ {
		r := s[i]
		switch {
		case escaped:
			escaped = false
			if quote == '"' && r != '"' && r != '\\' && r != '$' && r != '`' && r != '\n' {
				cur.WriteByte('\\')
			}
			if r != '\n' || quote != 0 {
				cur.WriteByte(r)
			}
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteByte(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteByte(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return []string{s}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args
}

// joinLiterals joins neighbouring arguments that are not key names with a
// space, so that unquoted words are typed as the model meant them.
func joinLiterals(args []string) []string {
	var out []string
	prevLiteral := false
	for _, a := range args {
		_, isKey := namedKey(a, false)
		if !isKey && prevLiteral {
			out[len(out)-1] += " " + a
			continue
		}
		out = append(out, a)
		prevLiteral = !isKey
	}
	return out
}
