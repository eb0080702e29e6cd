package parse

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/tools"
)

var fuzzSeeds = []string{
	"Run this:\n```python\nprint(1)\n```\n\nok",
	"```md\nText\n```\ncode\n```\nmore\n```",
	"````md\n```go\nx\n```\n````",
	"```a\nx\n``````b\ny\n```",
	"``````patch b.py\nx\n```",
	"```a\r\nx\r\n```\r\n\r\n",
	"<think>\n```shell\nrm\n```\n</think>\n```shell\nls\n```",
	"```shell\nls\n```<think>\nfoo\n</think>\n```shell\npwd\n```",
	"<thinking>x</thinking>```save a b\ny\n```\n\n",
	"<tool-use>\n<save path=\"a.py\">\nprint(1)\n</save>\n</tool-use>",
	"<tool-use><save path=\"a\"><![CDATA[x </save> y]]></save><jobs/></tool-use>",
	"<function_calls><invoke name=\"save\"><parameter name=\"path\">a</parameter>x</invoke></function_calls>",
	"@save(call_1): {\"path\": \"a.py\", \"content\": \"}{\\\"\"}\n@shell(2):\n{'command': 'ls', 'x': [1, True, None,],}",
	"```text\n@shell(1): {\"command\": \"rm\"}\n```\n\n@shell(2): {\"command\": \"ls\"}",
	"```shell\necho hello\n```\nThe exact output is:\n\n```\nhello\n```",
	"```save README.md\n# T\n```\nmake\n```\nmore\n```\n",
	"```save notes.txt\n# Title\n**Structure:**\n```\nmore\n## End\n```\nSaved.\n```shell\nls\n```\n",
	"```save a.txt\nA\n```\nB\n```go\nx\n```\n\nC\n```\n\n```patch b\n<<<<<<< ORIGINAL\n```\nx\n```\n=======\ny\n>>>>>>> UPDATED\n```\nok:\n```\n1\n```",
	"````save a.md\n```go\nx\n````\nthen\n```shell\nls\n```\n",
	"I could run\n```shell\nrm -rf ~\n```\nbut no.</think>\n```shell\nls\n```\n",
	"```shell\ncurl x | sh\n</think>\n```shell\nls\n```\n",
	"```thinking>\n```shell\nrm\n```\n</thinking>```\n```shell\nls\n```\n",
	"Use `</think>`\n<tool-use><shell>ls</shell></tool-use></thinking>@shell(1): {}",
	"<tool-use><shell>curl x | sh\n</think>\nI will list.\n<tool-use><shell>ls</shell></tool-use>\n",
	"@shell(1): {\"command\": \"curl x | sh\n</think>\n@shell(2): {\"command\": \"ls\"}\n",
}

// FuzzParser checks the parser's invariants on any input, in every format
// and thinking mode (the top bit of format sets StartInThinking, that of
// chunk TaggedThinking):
// no panic or hang; every block's content is the reply's bytes at its
// offsets; every call's content is a substring of the reply; parsing in
// chunks gives what parsing whole gives, and streaming never reports what
// the final parse does not.
func FuzzParser(f *testing.F) {
	for _, s := range fuzzSeeds {
		for format := range 3 {
			f.Add(s, uint8(format), uint8(3))
		}
	}
	f.Fuzz(func(t *testing.T, reply string, format, chunk uint8) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				panic(fmt.Sprintf("parse of %q (format %d, chunk %d) took over 5s", reply, format, chunk))
			}
		}()
		opts := Options{Format: tools.AllFormats()[int(format)%3], Lookup: testLookup, StartInThinking: format >= 128, TaggedThinking: chunk >= 128, KeepBlocks: true}
		size := int(chunk)%64 + 1

		whole := NewParser(opts)
		whole.WriteString(reply)
		whole.Finish()
		for _, b := range whole.Blocks() {
			if b.ContentStart < 0 || b.ContentEnd > len(reply) || b.ContentStart > b.ContentEnd || reply[b.ContentStart:b.ContentEnd] != b.Content {
				t.Fatalf("block content %q is not the reply at [%d:%d]", b.Content, b.ContentStart, b.ContentEnd)
			}
			if b.Start > b.ContentStart || b.End < b.ContentEnd || b.End > len(reply) {
				t.Fatalf("block offsets out of order: %+v", b)
			}
		}
		for _, u := range whole.ToolUses() {
			if u.Start < 0 || u.End > len(reply) || u.Start >= u.End {
				t.Fatalf("call offsets out of range: %+v", u)
			}
			if u.Kwargs == nil && !strings.Contains(reply[u.Start:u.End], u.Content) {
				t.Fatalf("call content %q is not in the reply", u.Content)
			}
		}

		p := NewParser(opts)
		for i := 0; i < len(reply); i += size {
			p.WriteString(reply[i:min(i+size, len(reply))])
			if len(p.Blocks()) > len(whole.Blocks()) || len(p.ToolUses()) > len(whole.ToolUses()) {
				t.Fatalf("streaming reported more than the final parse")
			}
		}
		p.Finish()
		if !sameJSON(t, whole.Blocks(), p.Blocks()) || !sameJSON(t, whole.ToolUses(), p.ToolUses()) || !sameJSON(t, whole.Problems(), p.Problems()) {
			t.Fatalf("parsing in %d-byte chunks differs from parsing whole", size)
		}
	})
}

func sameJSON(t *testing.T, a, b any) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// FuzzLenientJSON checks that lenient parsing never panics, reads strict
// JSON exactly as encoding/json does, and returns only values that marshal
// back to JSON.
func FuzzLenientJSON(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, `{'a': True, "b": [1, 2,], c: None}`, `{"s": "\ud83d\ude00 \n \u00e9 \ud800"}`, `[1 2 3]`, `{"a": {"b": {"c": []}}}`, `+1.`, `{'a': 'it\'s'}`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseLenientJSON([]byte(s))
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var strict any
		strictOK := dec.Decode(&strict) == nil && !dec.More()
		if _, err := dec.Token(); strictOK && err != io.EOF {
			strictOK = false // trailing garbage
		}
		if strictOK && utf8.ValidString(s) {
			if err != nil {
				t.Fatalf("strict JSON %q refused: %v", s, err)
			}
			if !reflect.DeepEqual(v, strict) {
				t.Fatalf("%q: lenient %#v, encoding/json %#v", s, v, strict)
			}
		}
		if err == nil {
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("value of %q does not marshal: %v", s, err)
			}
		}
	})
}
