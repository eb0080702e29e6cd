package parse

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// benchReply returns a reply of about size bytes in format: prose, tool
// calls, ordinary code blocks and nested fences, repeated.
func benchReply(format tools.Format, size int) string {
	var unit string
	code := strings.Repeat("\tif err := run(ctx, x); err != nil {\n\t\treturn fmt.Errorf(\"run %s: %w\", x, err)\n\t}\n", 4)
	prose := "I'll change the handler so it returns the error instead of logging it, then run the tests.\nThis keeps the caller in control of retries.\n\n"
	switch format {
	case tools.FormatXML:
		unit = prose + "<tool-use>\n<patch path=\"handler.go\">\n<<<<<<< ORIGINAL\n" + code + "=======\n" + code + ">>>>>>> UPDATED\n</patch>\n</tool-use>\n\n" +
			"```go\n" + code + "```\n\n"
	case tools.FormatTool:
		// Models write arguments as plain JSON, without HTML escapes.
		var args strings.Builder
		enc := json.NewEncoder(&args)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"path": "handler.go", "patch": "<<<<<<< ORIGINAL\n" + code + "=======\n" + code + ">>>>>>> UPDATED"})
		unit = prose + "@patch(call_7): " + args.String() + "\n" +
			"```shell\ngo test ./...\n```\n\n"
	default:
		unit = prose + "```patch handler.go\n<<<<<<< ORIGINAL\n" + code + "=======\n" + code + ">>>>>>> UPDATED\n```\n\n" +
			"```save README.md\n# Handler\n\n```go\n" + code + "```\n\nDone.\n```\n\n" +
			"```shell\ngo test ./...\n```\n\n"
	}
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(unit)
	}
	return b.String()
}

var benchSizes = []int{1 << 10, 10 << 10, 100 << 10, 1 << 20, 10 << 20}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

// BenchmarkParse is the reply parser in each tool-call format (markdown
// blocks, xml, @ calls: Options.Format, as the agent sets it from the
// model's format), whole (ToolUses: agentls parse, the code actions) and
// fed 16-byte chunks (NewParser, Write, Finish: the agent loop reading a
// model's stream), on one unit of prose, calls, code and nested fences
// repeated to 1 KB … 10 MB: the cost per byte (MB/s) should not fall as the
// reply grows, and only the calls found allocate (-benchmem).
func BenchmarkParse(b *testing.B) {
	for _, format := range tools.AllFormats() {
		for _, size := range benchSizes {
			name := fmt.Sprintf("%s/%s", format, sizeName(size))
			benchParseReply(b, name+"/whole", name+"/chunk16", benchReply(format, size), Options{Format: format, Lookup: testLookup})
		}
	}
}

// benchParseReply times reply parsed whole (ToolUses), as wholeName, and
// fed 16-byte chunks to a Parser then Finish, as streamName, each failing
// when it finds no tool use.
func benchParseReply(b *testing.B, wholeName, streamName, reply string, opts Options) {
	b.Run(wholeName, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(reply)))
		for b.Loop() {
			if len(ToolUses(reply, opts)) == 0 {
				b.Fatal("no tool uses")
			}
		}
	})
	data := []byte(reply)
	b.Run(streamName, func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			p := NewParser(opts)
			for i := 0; i < len(data); i += 16 {
				p.Write(data[i:min(i+16, len(data))])
			}
			p.Finish()
			if len(p.ToolUses()) == 0 {
				b.Fatal("no tool uses")
			}
		}
	})
}
