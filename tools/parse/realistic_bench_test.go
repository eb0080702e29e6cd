package parse

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// realisticReply returns a Markdown reply of about size bytes that looks
// like a model's: paragraphs and bullet lists of varying length with
// inline code, shell blocks, patch blocks of generated Go (its repeated
// "}", blank lines and "return nil"), save blocks of whole functions,
// nested fences in a markdown block, and code examples that are not tool
// calls, drawn from a seeded generator so that no two blocks are alike.
// (benchReply repeats one unit, which a parser can be fast on by luck.)
func realisticReply(size int) string {
	r := rand.New(rand.NewPCG(uint64(size), 17))
	words := strings.Fields("the a this we it file function test change value error result config path handler request parser block line code output buffer stream patch edit tool reply should will now then also because so but and with into from for in on to when after returns checks adds keeps fixes reads writes runs")
	goFunc := func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "func handle%d(ctx context.Context, req *Request) error {\n", i)
		for k := range 2 + r.IntN(6) {
			switch r.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "\tif err := step%d(ctx); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n", k, k)
			case 1:
				b.WriteString("\tfor _, item := range req.Items {\n\t\tif item == nil {\n\t\t\tcontinue\n\t\t}\n\t}\n")
			case 2:
				b.WriteString("\n")
			default:
				fmt.Fprintf(&b, "\tn := len(req.Items) + %d\n", k)
			}
		}
		b.WriteString("\treturn nil\n}\n")
		return b.String()
	}
	sentence := func() string {
		n := 6 + r.IntN(11)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
			if r.IntN(12) == 0 {
				ws[i] = "`" + ws[i] + "`"
			}
		}
		return strings.Join(ws, " ") + "."
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		for range 1 + r.IntN(3) {
			if r.IntN(4) == 0 {
				for range 2 + r.IntN(4) {
					b.WriteString("- " + sentence() + "\n")
				}
			} else {
				for range 2 + r.IntN(4) {
					b.WriteString(sentence() + " ")
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
		switch k := r.IntN(100); {
		case k < 30:
			fmt.Fprintf(&b, "```shell\ngo test ./internal/pkg%d/...\ngit diff --stat\n```\n", i)
		case k < 50:
			f := goFunc(i)
			upd := strings.Replace(f, "return nil", "return wrap(nil)", 1)
			fmt.Fprintf(&b, "```patch internal/h%d.go\n<<<<<<< ORIGINAL\n%s=======\n%s>>>>>>> UPDATED\n```\n", i, f, upd)
		case k < 75:
			fmt.Fprintf(&b, "```save internal/h%d.go\npackage internal\n\n%s\n%s```\n", i, goFunc(i), goFunc(i+1))
		case k < 85:
			fmt.Fprintf(&b, "````markdown\n# Notes %d\n\n%s\n\n```go\n%s```\n\n%s\n````\n", i, sentence(), goFunc(i), sentence())
		default:
			fmt.Fprintf(&b, "```go\n%s```\n", goFunc(i))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// BenchmarkParseRealistic is the agent's reply parser (ToolUses for a
// whole reply, as agentls parse and the code actions read one; NewParser
// fed 16-byte chunks, as a model's stream arrives in the agent loop) on
// Markdown replies that look like a model's, 1 KB to 10 MB: bytes per
// second should not fall as the reply grows, whole or streamed.
func BenchmarkParseRealistic(b *testing.B) {
	for _, size := range benchSizes {
		benchParseReply(b, "whole/"+sizeName(size), "chunk16/"+sizeName(size), realisticReply(size), Options{Lookup: testLookup})
	}
}

// BenchmarkParsePeerReply is what `editbench peers` times against gptme,
// on the same bytes (peerReply is peers-gen.py's reply-N.md) with the same
// calls: parse.ToolUses on the whole reply with the built-in tools' Lookup
// (the peer worker's parse-whole: agentls parse, the code actions), and
// NewParser fed 16-byte chunks then Finish (its parse-stream16: the agent
// loop as a model's stream arrives), 10 KB to 10 MB. The mix of these
// replies changes with their size (peerReply says how), so MB/s may differ
// a little by size; the side-by-side table's target is that time grows
// with a log-log slope of at most 1.05 from 10 KB to 10 MB. -benchmem
// shows what a parse allocates: the calls found (and, streamed, their
// contents), not the reply.
//
// whole/10KB-rotating parses 1000 different 10 KB replies in turn. Parsing
// the same 10 KB over and over, as whole/10KB and the peer worker do, runs
// from L1 with branches the CPU has learnt, and so at more MB/s than any
// large reply; rotating, 10 KB costs per byte what 10 MB does (cachegrind
// counts 6.5 instructions per byte at 10 KB and at 10 MB alike).
func BenchmarkParsePeerReply(b *testing.B) {
	opts := Options{Lookup: testLookup} // the built-in tools its replies call (builtin would import parse)
	b.Run("whole/10KB-rotating", func(b *testing.B) {
		replies := make([]string, 1000)
		total := 0
		for i := range replies {
			replies[i] = peerReply(10_000 + i)
			total += len(replies[i])
		}
		b.ReportAllocs()
		b.SetBytes(int64(total / len(replies)))
		i := 0
		for b.Loop() {
			if len(ToolUses(replies[i%len(replies)], opts)) == 0 {
				b.Fatal("no tool uses")
			}
			i++
		}
	})
	for _, size := range []struct {
		name   string
		target int
	}{{"10KB", 10_000}, {"100KB", 100_000}, {"1MB", 1_000_000}, {"10MB", 10_000_000}} {
		benchParseReply(b, "whole/"+size.name, "chunk16/"+size.name, peerReply(size.target), opts)
	}
}
