package edits

import (
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// The sampled search finds several hunks' ORIGINALs in a large text in
// one pass that reads it about once, however many hunks there are:
// scanning for each hunk's rare byte costs a pass over the text per
// distinct byte (16 hunks on 10 MB chose 8, and every byte of Go source
// is on every few hundred bytes), where this one looks at 8 bytes every
// stride bytes and checks only where those 8 bytes are some hunk's.
//
// Every needle (a hunk's ORIGINAL joined) is at least stride+7 bytes
// long, and each picks a region of stride consecutive offsets; its
// 8-grams starting at those offsets go into a table. The text is sampled
// at multiples of stride: an occurrence of a needle at s covers exactly
// one sample p with p-s in its region, and the 8 bytes there are the
// needle's 8-gram at p-s, so looking them up names the occurrence once.
// Whether it is one (whole lines, the same bytes) is checked as scanRare
// checks its hits, charging the same budget, so the outcome for every
// needle is scanRare's: its one place, or none.

// gram is how many bytes the sampled search looks at a sample.
const gram = 8

// minSampledNeedle is the shortest needle the sampled search takes: a
// shorter one would make every needle's stride short, and the samples
// many. Shorter needles are scanned for by their rare bytes.
const minSampledNeedle = 48

// maxStride bounds the stride: a longer one saves few samples and makes
// the table (needles × stride entries) large.
const maxStride = 256

// sampledText is the size from which exactStarts uses the sampled
// search: below it a pass over the text costs less than the table.
const sampledText = 256 << 10

// A gramEntry is one 8-gram of a needle at offset at, chained with the
// others of its bucket.
type gramEntry struct {
	key    uint64
	needle int32 // index in the needles searched
	at     int32
	next   int32 // the next entry of the bucket, or -1
}

// load64 returns the 8 bytes of s at p as a little-endian number (the
// compiler makes it one load).
func load64(s string, p int) uint64 {
	b := s[p : p+8] // one bounds check for the eight bytes
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// maxSampledPrefix is how much of a needle the sampled search takes its
// grams from: any stretch of it finds its occurrences, and a hunk of
// thousands of lines would make the tables as large.
const maxSampledPrefix = 4 << 10

// sampledGrams is how many grams of needle the sampled search weighs:
// those starting in its first maxSampledPrefix bytes.
func sampledGrams(needle string) int { return min(len(needle), maxSampledPrefix) - gram + 1 }

// sampledEligible reports whether the sampled search can take needle.
func sampledEligible(needle string) bool { return len(needle) >= minSampledNeedle }

// scanSampled finds each needle's unique whole-line place in the text, or
// none, as scanRare does, in one sampled pass. Every needle must be
// sampledEligible.
func (d *doc) scanSampled(ns []rareNeedle, budget *int) {
	d.scanSampledBy(ns, budget, 0, sampledParts(len(d.text)))
}

// sampledHalves is the size of text from which the sampled pass runs on
// two cores, each taking half of the samples: the pass reads the whole
// text, like building the new one, and on one core 16 hunks in 10 MB took
// 1.6–2 ms of a 4 ms apply. Halves took 1.34 ms of one part's 2.41 at
// 10 MB, 0.51 of 0.89 at 4 MB, and 205 µs of 198 at 1 MB, where waking
// the second core costs what it saves.
const sampledHalves = 2 << 20

// sampledParts is how many parts the sampled pass over a text of n bytes
// is split into.
func sampledParts(n int) int {
	if n >= sampledHalves && runtime.GOMAXPROCS(0) > 1 {
		return 2
	}
	return 1
}

// scanSampledBy is scanSampled at the given stride, or the one
// chooseStride picks when it is 0, its samples split into parts (1 or 2)
// that run at once (tests try every stride, and both).
func (d *doc) scanSampledBy(ns []rareNeedle, budget *int, stride, parts int) {
	text := d.text
	if len(ns) == 0 || len(text) < gram {
		return
	}
	est := d.gramCounts(ns)
	if stride == 0 {
		stride = chooseStride(est, len(text))
	}
	sm := newSampler(d, ns, est, stride)
	samples := (len(text)-gram)/stride + 1
	if parts < 2 || samples < 2 {
		sm.scan(0, len(text), ns, budget)
		return
	}
	// Each occurrence meets exactly one sample, which one part takes:
	// the parts' finds add up. Each part has half the budget; a needle
	// that runs out of it goes the general way, as it would have.
	mid := samples / 2 * stride
	second := slices.Clone(ns)
	half := *budget / 2
	firstBudget, secondBudget := *budget-half, half
	var wg sync.WaitGroup
	wg.Go(func() { sm.scan(mid, len(text), second, &secondBudget) })
	sm.scan(0, mid, ns, &firstBudget)
	wg.Wait()
	for k := range ns {
		a, b := &ns[k], second[k]
		if a.found == 0 {
			a.start = b.start
		}
		a.found = min(a.found+b.found, 2)
	}
	*budget = firstBudget + secondBudget
}

// A sampler is the sampled search's tables for some needles at a stride:
// for each needle and residue of the stride, the 8-gram at its rarest
// offset with that residue, bucketed, and a filter of them all.
type sampler struct {
	d       *doc
	stride  int
	entries []gramEntry
	heads   []int32
	shift   int
	// filter has a bit per 16-bit hash: it tells almost every sample
	// that is no gram of a needle from the few that may be, without a
	// look at the buckets, so the loop's branch is predicted and the
	// text's loads overlap.
	filter gramFilter
	// Each needle's rarest gram is compared before the needle is: a
	// sample that holds one of a needle's common grams (a "\tif err "
	// every function has) is told apart by a load.
	checkAt  []int
	checkKey []uint64
}

func newSampler(d *doc, ns []rareNeedle, est [][]int, stride int) *sampler {
	// The table: buckets a power of two, at least twice the entries.
	sm := &sampler{d: d, stride: stride, entries: make([]gramEntry, 0, len(ns)*stride), shift: 64 - bits.Len(uint(2*len(ns)*stride)),
		checkAt: make([]int, len(ns)), checkKey: make([]uint64, len(ns))}
	sm.heads = make([]int32, 1<<(64-sm.shift))
	for i := range sm.heads {
		sm.heads[i] = -1
	}
	for k, n := range ns {
		for j, c := range est[k] {
			if c < est[k][sm.checkAt[k]] {
				sm.checkAt[k] = j
			}
		}
		sm.checkKey[k] = load64(n.needle, sm.checkAt[k])
		for r := range stride {
			j := rarestAt(est[k], r, stride)
			key := load64(n.needle, j)
			h := key * gramHash >> sm.shift
			sm.filter.add(key)
			sm.entries = append(sm.entries, gramEntry{key: key, needle: int32(k), at: int32(j), next: sm.heads[h]})
			sm.heads[h] = int32(len(sm.entries) - 1)
		}
	}
	return sm
}

// scan looks at the samples from from (a multiple of the stride) up to
// to, counting in ns the needles' places found there and charging budget.
func (sm *sampler) scan(from, to int, ns []rareNeedle, budget *int) {
	text, stride := sm.d.text, sm.stride
	live := len(ns)
	for p := sm.filter.next(text, from, to, stride); p >= 0 && live > 0; p = sm.filter.next(text, p+stride, to, stride) {
		key := load64(text, p)
		for e := sm.heads[key*gramHash>>sm.shift]; e >= 0; e = sm.entries[e].next {
			en := &sm.entries[e]
			if en.key != key {
				continue
			}
			n := &ns[en.needle]
			if n.found > 1 {
				continue
			}
			// Each look costs a unit, each whole comparison the needle's
			// length: a text of one repeated line matches every sample.
			s := p - int(en.at)
			c := s + sm.checkAt[en.needle]
			*budget--
			maybe := c >= 0 && c+gram <= len(text) && load64(text, c) == sm.checkKey[en.needle]
			if maybe {
				*budget -= len(n.needle)
			}
			if *budget < 0 {
				n.found = 2
				live--
				continue
			}
			if maybe && sm.d.alignedAt(s, n.needle) {
				n.found++
				n.start = s
				if n.found > 1 {
					live--
				}
			}
		}
	}
}

// gramHash spreads a gram over the table's buckets (Fibonacci hashing:
// the top bits of the product are taken).
const gramHash = 0x9E3779B97F4A7C15

// A gramFilter holds a bit for each 16-bit hash of a set of grams: a gram
// whose bit is clear is not in the set.
type gramFilter [1 << 16 / 64]uint64

func (f *gramFilter) add(key uint64) {
	h := key * gramHash >> 48
	f[h/64] |= 1 << (h % 64)
}

func (f *gramFilter) has(key uint64) bool {
	h := key * gramHash >> 48
	return f[h/64]&(1<<(h%64)) != 0
}

// next returns the first sample of text from p on, before end, every
// stride bytes, whose gram may be in the set, or -1: the sampled search's
// loop, on its own so that its few variables stay in registers.
func (f *gramFilter) next(text string, p, end, stride int) int {
	end = min(end, len(text)-gram+1)
	for ; p < end; p += stride {
		if f.has(load64(text, p)) {
			return p
		}
	}
	return -1
}

// countPieces is how many places of the text gramCounts samples, and
// countPiece how many bytes at each: spread out, so that a file whose
// parts differ is judged by all of them.
const (
	countPieces = 16
	countPiece  = 512
)

// gramCounts returns, for each needle and offset, about how many times
// the needle's gram there occurs in the text, counted in samples of it
// (8 KB at most): the grams that a text's lines share by the thousand
// (indentation, "return err") show, and the sampled search keeps away
// from them.
func (d *doc) gramCounts(ns []rareNeedle) [][]int {
	// The needles' distinct grams, open-addressed, and their counts.
	distinct := 0
	for _, n := range ns {
		distinct += sampledGrams(n.needle)
	}
	shift := 64 - bits.Len(uint(2*distinct))
	keys, counts, used := make([]uint64, 1<<(64-shift)), make([]int32, 1<<(64-shift)), make([]bool, 1<<(64-shift))
	slot := func(key uint64) int {
		mask := len(keys) - 1
		for i := int(key * gramHash >> shift); ; i = (i + 1) & mask {
			if !used[i] || keys[i] == key {
				return i
			}
		}
	}
	var filter gramFilter
	for _, n := range ns {
		for j := range sampledGrams(n.needle) {
			key := load64(n.needle, j)
			i := slot(key)
			keys[i], used[i] = key, true
			filter.add(key)
		}
	}
	text := d.text
	piece := min(countPiece, len(text)/countPieces)
	scale := 1
	if piece >= gram {
		scale = len(text) / (piece * countPieces)
		for k := range countPieces {
			at := k * (len(text) - piece) / (countPieces - 1)
			for p := at; p+gram <= at+piece; p++ {
				key := load64(text, p)
				if !filter.has(key) {
					continue
				}
				if i := slot(key); used[i] {
					counts[i]++
				}
			}
		}
	}
	est := make([][]int, len(ns))
	for k, n := range ns {
		est[k] = make([]int, sampledGrams(n.needle))
		for j := range est[k] {
			est[k][j] = int(counts[slot(load64(n.needle, j))]) * scale
		}
	}
	return est
}

// sampleCost and checkCost are what a sample and a check of a needle's
// gram cost, roughly, in the same unit (measured on 10 MB of Go): the
// stride is chosen to make samples × sampleCost + checks × checkCost
// least.
const (
	sampleCost = 1
	checkCost  = 16
)

// chooseStride returns the stride of the sampled search, for needles whose
// grams are counted in est (gramCounts). Each needle looks up, for each
// residue of the stride, the offset with that residue whose gram is
// rarest (rarestAt): its offsets cover every residue once, so each of its
// occurrences meets exactly one sample at one of them, and a sample that
// lands on a gram every function has is seldom looked up.
func chooseStride(est [][]int, textLen int) int {
	shortest := len(est[0])
	for _, e := range est {
		shortest = min(shortest, len(e))
	}
	best, bestCost := 0, 0
	for _, s := range [...]int{16, 24, 32, 48, 64, 96, 128, 192, maxStride} {
		if s > shortest {
			break
		}
		checks := 0
		for _, e := range est {
			for r := range s {
				checks += e[rarestAt(e, r, s)]
			}
		}
		cost := textLen/s*sampleCost + checks/s*checkCost
		if best == 0 || cost < bestCost {
			best, bestCost = s, cost
		}
	}
	if best == 0 {
		best = shortest
	}
	return best
}

// rarestAt returns the offset with residue r modulo stride whose count in
// est is least (the first of them).
func rarestAt(est []int, r, stride int) int {
	best := r
	for j := r + stride; j < len(est); j += stride {
		if est[j] < est[best] {
			best = j
		}
	}
	return best
}
