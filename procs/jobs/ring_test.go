package jobs

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRing(t *testing.T) {
	tests := []struct {
		name    string
		cap     int
		writes  []string
		want    string
		dropped int64
	}{
		{"empty", 4, nil, "", 0},
		{"under capacity", 8, []string{"ab", "cd"}, "abcd", 0},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd", 0},
		{"wraps", 4, []string{"abc", "def"}, "cdef", 2},
		{"wraps twice", 4, []string{"abc", "def", "ghi"}, "fghi", 5},
		{"write larger than capacity", 4, []string{"abcdefgh"}, "efgh", 4},
		{"large write after partial", 4, []string{"ab", "cdefgh"}, "efgh", 4},
		{"exact-capacity write on full ring", 3, []string{"ab", "c", "xyz"}, "xyz", 3},
		{"single bytes", 3, []string{"a", "b", "c", "d", "e"}, "cde", 2},
		{"empty writes", 3, []string{"", "ab", "", "cd", ""}, "bcd", 1},
		{"capacity one", 1, []string{"abc", "d"}, "d", 3},
		{"zero capacity means one", 0, []string{"xy"}, "y", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing(tt.cap)
			var total int64
			for _, w := range tt.writes {
				n, err := r.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += int64(len(w))
			}
			if got := string(r.Bytes()); got != tt.want {
				t.Errorf("Bytes() = %q, want %q", got, tt.want)
			}
			if got := r.Dropped(); got != tt.dropped {
				t.Errorf("Dropped() = %d, want %d", got, tt.dropped)
			}
			if r.Written() != total || r.Len() != len(tt.want) {
				t.Errorf("Written() = %d, Len() = %d; want %d, %d", r.Written(), r.Len(), total, len(tt.want))
			}
			for n := -1; n <= len(tt.want)+1; n++ {
				want := tt.want
				if n > 0 && n < len(want) {
					want = want[len(want)-n:]
				}
				if got := string(r.Last(n)); got != want {
					t.Errorf("Last(%d) = %q, want %q", n, got, want)
				}
			}
		})
	}
}

// TestRingMatchesModel checks random write sequences against the obvious
// implementation: keep everything, look at the tail.
func TestRingMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		capacity := 1 + rng.IntN(64)
		r := NewRing(capacity)
		var all []byte
		for w := 0; w < 1+rng.IntN(20); w++ {
			p := make([]byte, rng.IntN(2*capacity+2))
			for k := range p {
				p[k] = byte('a' + rng.IntN(26))
			}
			r.Write(p)
			all = append(all, p...)
			want := all[max(0, len(all)-capacity):]
			if got := r.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("cap %d after %d bytes: Bytes() = %q, want %q", capacity, len(all), got, want)
			}
			n := rng.IntN(capacity + 2)
			wantLast := want
			if n > 0 && n < len(want) {
				wantLast = want[len(want)-n:]
			}
			if got := r.Last(n); !bytes.Equal(got, wantLast) {
				t.Fatalf("cap %d: Last(%d) = %q, want %q", capacity, n, got, wantLast)
			}
		}
	}
}

// TestRingMemoryBounded: the ring grows with its contents and never
// holds more than its capacity.
func TestRingMemoryBounded(t *testing.T) {
	r := NewRing(100_000)
	if cap(r.buf) != 0 {
		t.Errorf("new ring holds %d bytes", cap(r.buf))
	}
	r.Write([]byte("hello"))
	if c := cap(r.buf); c > 4096 {
		t.Errorf("ring holding 5 bytes has capacity %d", c)
	}
	chunk := []byte(strings.Repeat("x", 7000))
	for range 100 {
		r.Write(chunk)
		if c := cap(r.buf); c > 100_000 {
			t.Fatalf("capacity %d exceeds the limit", c)
		}
	}
}
