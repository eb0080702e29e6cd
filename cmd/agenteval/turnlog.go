package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentls/agentls/tools/edittool"
)

// logRecord is one line of an agentls turn log (agent/loop.go): a chat
// message, or {"tool_call": {...}} after the call ran.
type logRecord struct {
	Role      string          `json:"role"`
	Content   string          `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
	ToolCall  *struct {
		Tool    string `json:"tool"`
		Outcome string `json:"outcome"`
	} `json:"tool_call"`
}

// Messages the loop sends when a reply's calls could not be read.
const (
	unreadText   = "These tool calls could not be read"
	unreadNative = "Error: the arguments of this"
)

// reply is what one model reply did, as the log shows it.
type reply struct {
	key      string // its text and native calls: equal keys are identical replies
	calls    int
	unread   bool
	failed   int
	edits    int
	notRun   int // calls refused unrun (a third identical failing call)
	triedAny bool
}

// tried reports whether the reply tried to call a tool.
func (rp *reply) tried() bool { return rp.calls > 0 || rp.notRun > 0 || rp.unread || rp.triedAny }

// failedAll reports whether the reply's calls ran and all failed.
func (rp *reply) failedAll() bool { return rp.calls > 0 && rp.failed == rp.calls }

// repeatRuns returns the longest run of consecutive identical replies
// that tried a call, and of those whose calls all ran and failed.
func repeatRuns[R any](replies []R, key func(R) string, tried, failed func(R) bool) (maxRun, maxFailed int) {
	run, frun := 0, 0
	for i, rp := range replies {
		same := i > 0 && key(replies[i-1]) == key(rp)
		switch {
		case !tried(rp):
			run = 0
		case same && run > 0:
			run++
		default:
			run = 1
		}
		switch {
		case !failed(rp):
			frun = 0
		case same && frun > 0:
			frun++
		default:
			frun = 1
		}
		maxRun, maxFailed = max(maxRun, run), max(maxFailed, frun)
	}
	return maxRun, maxFailed
}

// readTurnLog fills r's reply and call counts from a turn log.
func readTurnLog(in io.Reader, r *Result) error {
	var replies []*reply
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rec logRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return fmt.Errorf("turn log: %w", err)
		}
		var cur *reply
		if len(replies) > 0 {
			cur = replies[len(replies)-1]
		}
		switch {
		case rec.ToolCall != nil:
			if cur == nil {
				continue
			}
			if strings.HasPrefix(rec.ToolCall.Outcome, "not run:") {
				cur.notRun++
				continue
			}
			cur.calls++
			if strings.HasPrefix(rec.ToolCall.Outcome, "failed:") {
				cur.failed++
			} else if edittool.IsEditTool(rec.ToolCall.Tool) {
				cur.edits++
			}
		case rec.Role == "assistant":
			native := string(rec.ToolCalls)
			replies = append(replies, &reply{key: rec.Content + "\x00" + native, triedAny: native != "" && native != "null"})
		case cur != nil && (rec.Role == "user" && strings.HasPrefix(rec.Content, unreadText) ||
			rec.Role == "tool" && strings.HasPrefix(rec.Content, unreadNative)):
			cur.unread = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("turn log: %w", err)
	}
	for _, rp := range replies {
		r.Replies++
		r.Calls += rp.calls
		r.FailedCalls += rp.failed
		r.Edits += rp.edits
		if rp.tried() {
			r.CallReplies++
			if !rp.unread {
				r.WellFormed++
			}
		}
	}
	r.MaxRepeat, r.MaxFailedRepeat = repeatRuns(replies, func(rp *reply) string { return rp.key },
		(*reply).tried, (*reply).failedAll)
	return nil
}

var (
	logLine    = regexp.MustCompile(`\[agentls\] conversation log: (.+)`)
	stepsLine  = regexp.MustCompile(`(?:done: |stopped after )(\d+) steps`)
	tokensLine = regexp.MustCompile(`(?:done: |stopped after ).*?~?([\d,]+) tokens`)
)

// readStderr returns the turn log's path, the steps and the tokens that
// `agentls ask` printed on stderr (zero when it did not say).
func readStderr(stderr string) (logPath string, steps, tokens int) {
	if m := logLine.FindStringSubmatch(stderr); m != nil {
		logPath = strings.TrimSpace(m[1])
	}
	if m := stepsLine.FindAllStringSubmatch(stderr, -1); m != nil {
		steps, _ = strconv.Atoi(m[len(m)-1][1])
	}
	if m := tokensLine.FindAllStringSubmatch(stderr, -1); m != nil {
		tokens, _ = strconv.Atoi(strings.ReplaceAll(m[len(m)-1][1], ",", ""))
	}
	return logPath, steps, tokens
}
