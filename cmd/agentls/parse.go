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
	thinking := fs.String("thinking", "auto", "how the model writes its thinking, as the \"thinking\" setting says for a turn: `mode` auto (a reply may begin inside a <think> it never opened), tagged or off (it writes both tags, its server sends the reasoning apart, or it does not think in text)")
	usage := "usage: agentls parse [--format markdown|xml|tool] [--streaming] [--thinking auto|tagged|off] [--blocks] < reply\n\n" +
		"Prints the tool uses in a model reply as JSON:\n" +
		"  [{\"tool\", \"args\", \"kwargs\", \"content\", \"call_id\", \"start\"}]\n" +
		"or, with --blocks, its fenced blocks: [{\"lang\", \"content\"}]."
	f, code, ok := parseReplyFlags(fs, args, format, usage, stderr)
	if !ok {
		return code
	}
	opts, err := thinkingOptions(*thinking)
	if err != nil {
		fmt.Fprintf(stderr, "agentls parse: %v\n", err)
		fs.Usage()
		return exitUsage
	}
	if *blocks {
		f = tools.FormatMarkdown
	}

	opts.Format, opts.Lookup, opts.KeepBlocks = f, builtin.Registry().Lookup, *blocks
	p := parse.NewParser(opts)
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

// thinkingOptions returns the parser options of a thinking mode, as a turn
// sets them from the "thinking" setting (agent.ModelConfig.TaggedThinking;
// a server that sends reasoning apart makes a turn tagged too): with
// --streaming, what is printed is what a turn would run.
func thinkingOptions(mode string) (parse.Options, error) {
	switch mode {
	case "auto":
		// A turn's default: until a think tag or the end of the reply rules
		// out a </think> with no opening tag, nothing is certain.
		return parse.Options{}, nil
	case "tagged", "off":
		return parse.Options{TaggedThinking: true}, nil
	}
	return parse.Options{}, fmt.Errorf("--thinking %q: want auto, tagged or off", mode)
}
