package shell

import (
	"io"
	"strings"
	"testing"
)

// chunkReader returns its text n bytes per Read, so that markers arrive
// split at every possible place.
type chunkReader struct {
	text string
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.text)
	r.text = r.text[n:]
	return n, nil
}

func TestDemuxFindsTheSentinelInAnyChunking(t *testing.T) {
	s := newSentinel()
	other := newSentinel()
	trailer := func(s *sentinel, rest string) string { return string(s.end) + rest + string(s.close) }
	tests := []struct {
		name, stream, output, stale string
		trailer                     bool
		status                      int
		dir                         string
	}{
		{
			name:    "plain",
			stream:  string(s.begin) + "hello\n" + trailer(s, "0 /work"),
			output:  "hello\n",
			trailer: true, dir: "/work",
		},
		{
			name:    "no final newline, status, dir with spaces",
			stream:  string(s.begin) + "abc" + trailer(s, "3 /my dir/x"),
			output:  "abc",
			trailer: true, status: 3, dir: "/my dir/x",
		},
		{
			name:    "background output around the command",
			stream:  "late from before\n" + string(s.begin) + "out" + trailer(s, "0 /") + "early for later",
			output:  "out",
			stale:   "late from before\nearly for later",
			trailer: true, dir: "/",
		},
		{
			name: "look-alikes are output",
			stream: string(s.begin) + "\n" + s.token[:10] + "\n" + string(other.begin) + trailer(other, "0 /x") +
				string(s.end[:len(s.end)-1]) + ">" + "\n" + trailer(s, "1 /y"),
			output:  "\n" + s.token[:10] + "\n" + string(other.begin) + trailer(other, "0 /x") + string(s.end[:len(s.end)-1]) + ">\n",
			trailer: true, status: 1, dir: "/y",
		},
		{
			name:   "end of file before the trailer",
			stream: string(s.begin) + "partial\n",
			output: "partial\n",
		},
		{
			name:   "end of file inside the trailer",
			stream: string(s.begin) + "x" + string(s.end) + "0 /",
			output: "x",
		},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 5, 8, 13, 40, 1 << 20} {
			var stale strings.Builder
			d := newDemux("stdout", func(cmd int, stream string, p []byte) {
				if cmd == 0 {
					stale.Write(p)
				}
			})
			job := newStreamJob(1, s, 1<<20, 1<<20, nil)
			d.start(job)
			d.run(&chunkReader{text: tt.stream, n: n})
			<-job.done
			got, _ := job.keep.text()
			if got != tt.output || stale.String() != tt.stale || job.trailer != tt.trailer || job.status != tt.status || job.dir != tt.dir {
				t.Errorf("%s, %d-byte reads: got output %q stale %q trailer %v status %d dir %q\nwant output %q stale %q trailer %v status %d dir %q",
					tt.name, n, got, stale.String(), job.trailer, job.status, job.dir, tt.output, tt.stale, tt.trailer, tt.status, tt.dir)
			}
		}
	}
}

func TestDemuxAfterEOF(t *testing.T) {
	d := newDemux("stderr", nil)
	d.run(strings.NewReader(""))
	job := newStreamJob(1, newSentinel(), 10, 10, nil)
	d.start(job)
	select {
	case <-job.done:
	default:
		t.Error("a job on a dead pipe must finish at once")
	}
}

func TestKeeper(t *testing.T) {
	tests := []struct {
		name       string
		head, tail int
		writes     []string
		want       string
		gap        Gap
	}{
		{"fits", 4, 4, []string{"abc", "def"}, "abcdef", Gap{}},
		{"exactly", 3, 3, []string{"abcdef"}, "abcdef", Gap{}},
		{"one big write", 2, 3, []string{"0123456789"}, "01789", Gap{At: 2, Bytes: 5}},
		{"many small writes", 2, 3, strings.Split("0123456789", ""), "01789", Gap{At: 2, Bytes: 5}},
		{"ring wraps", 1, 4, []string{"abc", "def", "ghi", "j"}, "aghij", Gap{At: 1, Bytes: 5}},
		{"no tail", 3, 0, []string{"abcdef"}, "abc", Gap{At: 3, Bytes: 3}},
		{"no head", 0, 2, []string{"abc", "de"}, "de", Gap{At: 0, Bytes: 3}},
		{"empty", 5, 5, nil, "", Gap{}},
	}
	for _, tt := range tests {
		k := keeper{headMax: tt.head, tailMax: tt.tail}
		for _, w := range tt.writes {
			k.write([]byte(w))
		}
		got, gap := k.text()
		if got != tt.want || gap != tt.gap {
			t.Errorf("%s: got %q %+v, want %q %+v", tt.name, got, gap, tt.want, tt.gap)
		}
	}
}
