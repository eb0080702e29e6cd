package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// A Summary is the totals over results: the table's last line and the
// JSON's "total".
type Summary struct {
	Runs        int `json:"runs"`
	Solved      int `json:"solved"`
	Changed     int `json:"changed"`
	Rejected    int `json:"rejected"` // changed but not solved
	Errors      int `json:"errors"`
	Replies     int `json:"replies"`
	CallReplies int `json:"call_replies"`
	WellFormed  int `json:"well_formed"`
	Calls       int `json:"calls"`
	FailedCalls int `json:"failed_calls"`
	Edits       int `json:"edits"`
	MaxRepeat   int `json:"max_repeat"`
	// MaxFailedRepeat: see Result.
	MaxFailedRepeat int           `json:"max_failed_repeat"`
	Steps           int           `json:"steps"`
	Tokens          int           `json:"tokens"`
	Wall            time.Duration `json:"wall_ns"`
}

func summarize(rs []Result) Summary {
	var s Summary
	for _, r := range rs {
		s.Runs++
		s.Solved += b2i(r.Solved)
		s.Changed += b2i(r.Changed)
		s.Rejected += b2i(r.Rejected)
		s.Errors += b2i(r.Error != "")
		s.Replies += r.Replies
		s.CallReplies += r.CallReplies
		s.WellFormed += r.WellFormed
		s.Calls += r.Calls
		s.FailedCalls += r.FailedCalls
		s.Edits += r.Edits
		s.MaxRepeat = max(s.MaxRepeat, r.MaxRepeat)
		s.MaxFailedRepeat = max(s.MaxFailedRepeat, r.MaxFailedRepeat)
		s.Steps += r.Steps
		s.Tokens += r.Tokens
		s.Wall += r.Wall
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeTable prints one line per result, then the totals per tool.
// "edits" counts the edit calls that applied, "changed" whether the
// workspace differs afterwards: a save of a file's own content is the
// first and not the second.
func writeTable(w io.Writer, rs []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "tool\ttask\trun\tsolved\twell-formed\tedits\tchanged\trejected\tfailed calls\tsteps\trepeat\ttokens\ttime\texit")
	for _, r := range rs {
		solved := yesNo(r.Solved)
		if r.Error != "" {
			solved = "ERROR"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d/%d\t%d\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%s\t%d\n", r.Tool, r.Task, r.Run, solved, r.WellFormed, r.CallReplies,
			r.Edits, yesNo(r.Changed), yesNo(r.Rejected), r.FailedCalls, r.Calls, r.Steps, r.MaxRepeat, r.Tokens, r.Wall.Round(time.Second/10), r.Exit)
	}
	for _, tool := range toolsOf(rs) {
		s := summarize(byTool(rs, tool))
		fmt.Fprintf(tw, "TOTAL %s\t\t%d\t%d/%d\t%d/%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%d\t%s\t\n", tool, s.Runs, s.Solved, s.Runs, s.WellFormed, s.CallReplies,
			s.Edits, s.Changed, s.Rejected, s.FailedCalls, s.Calls, s.Steps, s.MaxRepeat, s.Tokens, s.Wall.Round(time.Second/10))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(w, "%s %s run %d: %s\n", r.Tool, r.Task, r.Run, r.Error)
		}
	}
	return nil
}

// toolsOf returns the tools of rs in the order they first appear.
func toolsOf(rs []Result) []string {
	var tools []string
	for _, r := range rs {
		if !slices.Contains(tools, r.Tool) {
			tools = append(tools, r.Tool)
		}
	}
	return tools
}

func byTool(rs []Result, tool string) []Result {
	var out []Result
	for _, r := range rs {
		if r.Tool == tool {
			out = append(out, r)
		}
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Report is the JSON the --json flag writes.
type Report struct {
	Model   string   `json:"model"`
	BaseURL string   `json:"base_url"`
	Format  string   `json:"format"` // agentls's
	Tools   []string `json:"tools"`
	Tasks   []string `json:"tasks"` // the tasks asked for, run or not
	Results []Result `json:"results"`
	Total   Summary  `json:"total"`
	// Interrupted: the run was cut short; only the tasks in Results ran.
	Interrupted bool `json:"interrupted,omitempty"`
}

func writeJSON(w io.Writer, rep Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
