package acp

import (
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// What counts as the model writing a plan: agentls has no todo or plan
// tool, so a plan is what models write anyway, a markdown task list in
// the reply, outside code blocks:
//
//	- [ ] read the parser          pending
//	- [~] fix the off-by-one       in progress (also [-] and [>])
//	- [x] add a test               completed
//
// (* and + bullets and numbered items count too.) One run of task lines
// is one plan; a later run, in the same reply or a later one of the
// turn, is the plan again, updated, and replaces it, as ACP's plan
// updates replace the whole plan. The plan is sent as its lines arrive,
// so the client shows it growing. Nothing in it runs: it is only shown.

// A planner finds the plan in a turn's streamed text.
type planner struct {
	line    strings.Builder // the line being streamed
	fence   string          // the code fence the text is inside ("" none)
	inRun   bool            // the last complete line was a task line
	entries []sdk.PlanEntry // the current run's
	sent    []sdk.PlanEntry // what the client was last sent
}

// feed takes streamed text and returns the plan to send, if it changed.
func (p *planner) feed(text string) (plan []sdk.PlanEntry, changed bool) {
	for text != "" {
		chunk, rest, full := strings.Cut(text, "\n")
		p.line.WriteString(chunk)
		text = rest
		if !full {
			break
		}
		p.endLine()
	}
	return p.changed()
}

// flush ends the line being streamed (the reply ended).
func (p *planner) flush() ([]sdk.PlanEntry, bool) {
	if p.line.Len() > 0 {
		p.endLine()
	}
	p.inRun = false
	return p.changed()
}

func (p *planner) changed() ([]sdk.PlanEntry, bool) {
	same := slices.EqualFunc(p.entries, p.sent, func(a, b sdk.PlanEntry) bool {
		return a.Content == b.Content && a.Status == b.Status
	})
	if len(p.entries) == 0 || same {
		return nil, false
	}
	p.sent = slices.Clone(p.entries)
	return slices.Clone(p.entries), true
}

// endLine reads the complete line.
func (p *planner) endLine() {
	line := p.line.String()
	p.line.Reset()
	trimmed := strings.TrimSpace(line)
	if p.fence != "" {
		if strings.HasPrefix(trimmed, p.fence) && strings.Trim(trimmed, "`~") == "" {
			p.fence = ""
		}
		return
	}
	if f := fenceOf(trimmed); f != "" {
		p.fence, p.inRun = f, false
		return
	}
	entry, ok := taskLine(trimmed)
	if !ok {
		if trimmed != "" {
			p.inRun = false
		}
		return
	}
	if !p.inRun {
		p.entries = nil // a new run: the plan again
		p.inRun = true
	}
	p.entries = append(p.entries, entry)
}

// fenceOf is the fence a line opens ("" none).
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// taskLine reads a markdown task list item.
func taskLine(line string) (sdk.PlanEntry, bool) {
	rest, ok := cutBullet(line)
	if !ok || len(rest) < 4 || rest[0] != '[' || rest[2] != ']' || rest[3] != ' ' {
		return sdk.PlanEntry{}, false
	}
	var status sdk.PlanEntryStatus
	switch rest[1] {
	case ' ':
		status = sdk.PlanEntryStatusPending
	case 'x', 'X':
		status = sdk.PlanEntryStatusCompleted
	case '~', '-', '>':
		status = sdk.PlanEntryStatusInProgress
	default:
		return sdk.PlanEntry{}, false
	}
	content := strings.TrimSpace(rest[4:])
	if content == "" {
		return sdk.PlanEntry{}, false
	}
	return sdk.PlanEntry{Content: content, Priority: sdk.PlanEntryPriorityMedium, Status: status}, true
}

// cutBullet cuts a list item's marker ("- ", "* ", "+ ", "1. ", "1) ").
func cutBullet(line string) (string, bool) {
	switch {
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "):
		return strings.TrimLeft(line[2:], " "), true
	}
	digits := len(line) - len(strings.TrimLeft(line, "0123456789"))
	if digits == 0 || digits > 3 || len(line) < digits+2 || (line[digits] != '.' && line[digits] != ')') || line[digits+1] != ' ' {
		return "", false
	}
	return strings.TrimLeft(line[digits+2:], " "), true
}
