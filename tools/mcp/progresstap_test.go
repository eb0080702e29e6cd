package mcp

import (
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestTaps: the taps pass the stream through byte for byte and count
// the progress notifications in it, whatever the reads' sizes; other
// messages, and lines too long to be one, are not counted.
func TestTaps(t *testing.T) {
	progress := func(token string) string {
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":1}}`
	}
	long := `{"jsonrpc":"2.0","id":3,"result":{"text":"` + strings.Repeat("notifications/progress ", maxTapLine/20) + `"}}`
	cases := []struct {
		name   string
		tap    func(io.ReadCloser, func(string)) io.ReadCloser
		stream string
		want   []string
	}{
		{"stdio", tapStdio, progress(`"a-1"`) + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + progress("7") + "\n", []string{"a-1", "7"}},
		{"stdio, a result that mentions the method", tapStdio, `{"jsonrpc":"2.0","id":2,"result":{"text":"notifications/progress"}}` + "\n", nil},
		{"stdio, a long line", tapStdio, long + "\n" + progress(`"b"`) + "\n", []string{"b"}},
		{"stdio, no token", tapStdio, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` + "\n", nil},
		// The SDK drops these, so their calls must not wait for them.
		{"stdio, the token's name in another case", tapStdio, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"ProgressToken":"f","progress":1}}` + "\n", nil},
		{"stdio, no progress: the SDK reads 0", tapStdio, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"g"}}` + "\n", []string{"g"}},
		{"stdio, progress not a number", tapStdio, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"h","progress":"half"}}` + "\n", nil},
		{"sse", tapSSE, "event: message\nid: 1\ndata: " + progress(`"c"`) + "\n\nevent: message\ndata:" + progress(`"d"`) + "\n\n", []string{"c", "d"}},
		{"sse, not data", tapSSE, ": " + progress(`"e"`) + "\n\n", nil},
	}
	for _, c := range cases {
		for _, reads := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"byte by byte", iotest.OneByteReader}, {"halves", iotest.HalfReader}} {
			t.Run(c.name+", "+reads.name, func(t *testing.T) {
				var got []string
				r := c.tap(io.NopCloser(reads.wrap(strings.NewReader(c.stream))), func(token string) { got = append(got, token) })
				b, err := io.ReadAll(r)
				if err != nil || string(b) != c.stream {
					t.Errorf("passed %q, %v; want the stream unchanged", b, err)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("counted %q, want %q", got, c.want)
				}
			})
		}
	}
}
