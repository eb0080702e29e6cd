package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/parse"
)

// toolUseJSON is the CLI's contract for one tool use (DESIGN.md §7).
type toolUseJSON struct {
	Tool    string         `json:"tool"`
	Args    []string       `json:"args"` // null for @ calls
	Kwargs  map[string]any `json:"kwargs,omitempty"`
	Content string         `json:"content"`
	CallID  string         `json:"call_id,omitempty"`
	Start   int            `json:"start"`
}

type blockJSON struct {
	Lang    string `json:"lang"`
	Content string `json:"content"`
}

func runParse(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	format := fs.String("format", "markdown", "tool-call `syntax`: markdown, xml or tool")
	streaming := fs.Bool("streaming", false, "treat the reply as still streaming: print only what more text cannot change")
	blocks := fs.Bool("blocks", false, "print the fenced code blocks instead of the tool uses")
	usage := "usage: agentls parse [--format markdown|xml|tool] [--streaming] [--blocks] < reply\n\n" +
		"Prints the tool uses in a model reply as JSON:\n" +
		"  [{\"tool\", \"args\", \"kwargs\", \"content\", \"call_id\", \"start\"}]\n" +
		"or, with --blocks, its fenced blocks: [{\"lang\", \"content\"}]."
	f, code, ok := parseReplyFlags(fs, args, format, usage, stderr)
	if !ok {
		return code
	}
	if *blocks {
		f = tools.FormatMarkdown
	}

	p := parse.NewParser(parse.Options{Format: f, Lookup: builtin.Registry().Lookup, KeepBlocks: *blocks})
	noteReading(stdin, stderr, "parse", "the reply")
	if _, err := io.Copy(p, stdin); err != nil {
		fmt.Fprintf(stderr, "agentls parse: reading the reply: %v\n", err)
		return exitFailed
	}
	if !*streaming {
		p.Finish()
	}
	for _, pr := range p.Problems() {
		fmt.Fprintf(stderr, "agentls parse: warning: at byte %d: %s\n", pr.Start, pr.Message)
	}

	var out any
	if *blocks {
		bs := []blockJSON{}
		for _, b := range p.Blocks() {
			bs = append(bs, blockJSON{Lang: b.Lang, Content: b.Content})
		}
		out = bs
	} else {
		us := []toolUseJSON{}
		for _, u := range p.ToolUses() {
			us = append(us, toolUseJSON{Tool: u.Tool, Args: u.Args, Kwargs: u.Kwargs, Content: u.Content, CallID: u.CallID, Start: u.Start})
		}
		out = us
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "agentls parse: %v\n", err)
		return exitFailed
	}
	return exitOK
}
