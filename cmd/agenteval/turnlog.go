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
	triedAny bool
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
	run := 0
	for i, rp := range replies {
		r.Replies++
		r.Calls += rp.calls
		r.FailedCalls += rp.failed
		r.Edits += rp.edits
		tried := rp.calls > 0 || rp.unread || rp.triedAny
		if tried {
			r.CallReplies++
			if !rp.unread {
				r.WellFormed++
			}
		}
		switch {
		case !tried:
			run = 0
		case i > 0 && run > 0 && replies[i-1].key == rp.key:
			run++
		default:
			run = 1
		}
		r.MaxRepeat = max(r.MaxRepeat, run)
	}
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
