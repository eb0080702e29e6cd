package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/parse"
)

// A peerCase is one input of an operation, as the drivers of every
// implementation read it (cases.json): file names, not contents, so that
// each process reads the same bytes.
type peerCase struct {
	Name   string `json:"name"`
	Reply  string `json:"reply,omitempty"`
	File   string `json:"file,omitempty"`
	Patch  string `json:"patch,omitempty"`
	Ops    string `json:"ops,omitempty"`    // gptme's hashline ops
	Lines  []int  `json:"lines,omitempty"`  // the 1-based lines anchors-apply edits
	Budget int64  `json:"budget,omitempty"` // ns to time for; 0 means one timed call
	// Rotate holds other inputs of the same size: the timed calls go round
	// the case and these in turn (one timing the same small input over
	// and over lets the branch predictor learn it). The outcome is the
	// case's own.
	Rotate []peerCase `json:"rotate,omitempty"`
}

// A peerResult is a driver's line of output for one case.
type peerResult struct {
	Case    string `json:"case"`
	NS      int64  `json:"ns"`
	Outcome string `json:"outcome"`
}

// defaultBudget is how long each process times a case (after one call
// that is not timed): long enough that a fast call is averaged over many.
const defaultBudget = int64(100 * time.Millisecond)

// runPeerWorker is agentls's driver: `editbench peer-worker OP CASES.json`,
// run in its own process like gptme's and aider's, timing the product's
// own paths on the same files.
func runPeerWorker(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "editbench peer-worker: usage: editbench peer-worker OP CASES.json (run by editbench peers)")
		return 2
	}
	op, ok := workerOps()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "editbench peer-worker: unknown operation %q\n", args[0])
		return 2
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "editbench peer-worker: %v\n", err)
		return 1
	}
	var cases []peerCase
	if err := json.Unmarshal(data, &cases); err != nil {
		fmt.Fprintf(stderr, "editbench peer-worker: read %s: %v\n", args[1], err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	for _, c := range cases {
		ns, outcome, err := op(c)
		if err != nil {
			fmt.Fprintf(stderr, "editbench peer-worker: %s %s: %v\n", args[0], c.Name, err)
			return 1
		}
		enc.Encode(peerResult{Case: c.Name, NS: ns, Outcome: outcome})
	}
	return 0
}

type workerOp func(c peerCase) (ns int64, outcome string, err error)

func workerOps() map[string]workerOp {
	return map[string]workerOp{
		"parse-whole":    workParseWhole,
		"parse-stream16": workParseStream,
		"patch":          workPatch,
		"small-edits":    workSmallEdits,
		"anchors-render": workAnchorsRender,
		"anchors-apply":  workAnchorsApply,
		"ceiling":        workCeiling,
	}
}

// timeCalls calls fn once untimed, then until budget ns have passed (at
// least once), and returns the median time of a call: on a loaded
// machine a mean counts the other processes' time slices as well.
func timeCalls(budget int64, fn func()) int64 {
	fn()
	var ts []int64
	for start := time.Now(); len(ts) == 0 || time.Since(start).Nanoseconds() < budget; {
		t := time.Now()
		fn()
		ts = append(ts, time.Since(t).Nanoseconds())
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

// timeRotating prepares the case and each of its Rotate inputs (prepare
// returns the call to time and, for the case itself, its outcome or the
// error that fails it), then
// times calls going round them in turn, the case first: timeCalls's
// untimed first call is the case's, so its outcome is known after.
func timeRotating(c peerCase, prepare func(v peerCase) (call func(), outcome func() (string, error), err error)) (int64, string, error) {
	var calls []func()
	var outcome func() (string, error)
	for i, v := range append([]peerCase{c}, c.Rotate...) {
		call, out, err := prepare(v)
		if err != nil {
			return 0, "", err
		}
		if i == 0 {
			outcome = out
		}
		calls = append(calls, call)
	}
	k := 0
	ns := timeCalls(budgetOf(c), func() {
		calls[k%len(calls)]()
		k++
	})
	out, err := outcome()
	return ns, out, err
}

func budgetOf(c peerCase) int64 {
	if c.Budget > 0 {
		return c.Budget
	}
	return defaultBudget
}

func readString(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func parseOptions() parse.Options {
	return parse.Options{Format: tools.FormatMarkdown, Lookup: builtin.Registry().Lookup}
}

func workParseWhole(c peerCase) (int64, string, error) {
	opts := parseOptions()
	return timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
		reply, err := readString(v.Reply)
		if err != nil {
			return nil, nil, err
		}
		n := 0
		return func() { n = len(parse.ToolUses(reply, opts)) }, func() (string, error) { return fmt.Sprintf("parsed:%d", n), nil }, nil
	})
}

// workParseStream feeds the reply in 16-byte chunks, as a model's stream
// arrives: the parser finds each tool use as its block closes.
func workParseStream(c peerCase) (int64, string, error) {
	opts := parseOptions()
	return timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
		data, err := os.ReadFile(v.Reply)
		if err != nil {
			return nil, nil, err
		}
		n := 0
		return func() {
			p := parse.NewParser(opts)
			for i := 0; i < len(data); i += 16 {
				p.Write(data[i:min(i+16, len(data))])
			}
			p.Finish()
			n = len(p.ToolUses())
		}, func() (string, error) { return fmt.Sprintf("parsed:%d", n), nil }, nil
	})
}

// applyPatch is the patch tool's path (tools/edittool/patch.go): the
// conflict-marker block parsed, its hunks applied to the file's text.
func applyPatch(block, content string) (string, error) {
	hunks, err := edits.ParseConflict(block)
	if err != nil {
		return "", err
	}
	return edits.ApplyHunks(content, hunks)
}

func outcomeOf(out string, err error) string {
	if err != nil {
		return "refused: " + shorten(err)
	}
	return "applied:" + sha(out)
}

func workPatch(c peerCase) (int64, string, error) {
	content, err := readString(c.File)
	if err != nil {
		return 0, "", err
	}
	block, err := readString(c.Patch)
	if err != nil {
		return 0, "", err
	}
	ns := timeCalls(budgetOf(c), func() { applyPatch(block, content) })
	return ns, outcomeOf(applyPatch(block, content)), nil
}

// smallEditSep separates the patches of the small-edits input, applied one
// after the other.
const smallEditSep = "\n%%%%\n"

func workSmallEdits(c peerCase) (int64, string, error) {
	content, err := readString(c.File)
	if err != nil {
		return 0, "", err
	}
	all, err := readString(c.Patch)
	if err != nil {
		return 0, "", err
	}
	blocks := strings.Split(all, smallEditSep)
	run := func() (string, error) {
		cur := content
		for i, b := range blocks {
			if cur, err = applyPatch(b, cur); err != nil {
				return "", fmt.Errorf("edit %d: %w", i+1, err)
			}
		}
		return cur, nil
	}
	ns := timeCalls(budgetOf(c), func() { run() })
	return ns / int64(len(blocks)), outcomeOf(run()), nil
}

// workAnchorsRender is view_anchored's one-shot render of a whole file
// (the CLI's path; the server also keeps the line hashes per buffer).
func workAnchorsRender(c peerCase) (int64, string, error) {
	return timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
		text, err := readString(v.File)
		if err != nil {
			return nil, nil, err
		}
		var out string
		return func() { out, err = anchored.RenderText(text, 0, 0, anchored.Options{}) },
			func() (string, error) { return fmt.Sprintf("rendered:%d", len(out)), err }, nil
	})
}

// anchorsEdit is the edit anchors-apply makes to each of its lines, the
// same for every implementation.
const anchorsEdit = " // x"

// workAnchorsApply is patch_anchored: a batch of guarded replace ops, each
// anchor resolved against the text and the new text written. The anchors
// come from a view made before timing, as the model saw it.
func workAnchorsApply(c peerCase) (int64, string, error) {
	return timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
		text, err := readString(v.File)
		if err != nil {
			return nil, nil, err
		}
		view, err := anchored.View(text, 0, 0, anchored.Options{})
		if err != nil {
			return nil, nil, err
		}
		var ops []anchored.Op
		for _, l := range v.Lines {
			if l < 1 || l > len(view) {
				return nil, nil, fmt.Errorf("line %d is not in %s's %d lines", l, v.File, len(view))
			}
			line := view[l-1]
			newText, expected := line.Text+anchorsEdit, line.Text
			ops = append(ops, anchored.Op{Anchor: line.Anchor, Op: "replace", Text: &newText, Expected: &expected})
		}
		var res anchored.Result
		return func() { res, err = anchored.Apply(text, ops, anchored.Options{}) }, func() (string, error) { return outcomeOf(res.Text, err), nil }, nil
	})
}

// workCeiling measures the machine in the same run: copying the file
// (memmove, what building a new text of its size costs at least),
// searching it for a byte it does not hold (bytes.IndexByte, what one
// pass of finding costs at least), finding each of its lines with
// strings.IndexByte and hashing it with xxh3 on one core (DESIGN §5
// hashes every line; the call per line costs more than the hash of a
// 20-byte line, which anchored avoids by finding line ends eight bytes at
// a time), and the least a render of the file does (renderFloor).
func workCeiling(c peerCase) (int64, string, error) {
	data, err := os.ReadFile(c.File)
	if err != nil {
		return 0, "", err
	}
	switch c.Name {
	case "memmove":
		dst := make([]byte, len(data))
		return timeCalls(budgetOf(c), func() { copy(dst, data) }), "copied", nil
	case "indexbyte":
		at := 0
		ns := timeCalls(budgetOf(c), func() { at = bytes.IndexByte(data, 0x01) })
		return ns, fmt.Sprintf("found:%d", at), nil
	case "xxh3-lines":
		text := string(data)
		var sum uint64
		ns := timeCalls(budgetOf(c), func() {
			for at := 0; at < len(text); {
				end := len(text)
				if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
					end = at + i
				}
				sum += xxh3.HashString(text[at:end])
				at = end + 1
			}
		})
		return ns, fmt.Sprintf("hashed:%d", sum&1), nil
	}
	if strings.HasPrefix(c.Name, "render-floor") {
		render := renderFloor(string(data))
		var n int
		ns := timeCalls(budgetOf(c), func() { n = render() })
		return ns, fmt.Sprintf("wrote:%d", n), nil
	}
	return 0, "", fmt.Errorf("unknown ceiling %q (memmove, indexbyte, xxh3-lines or render-floor …)", c.Name)
}

// renderFloor returns a render of text that does only what every render
// of it must, on one core, with its scratch kept from call to call as
// anchored's is: find each line (eight bytes at a time) and hash it with
// xxh3, count how often each hash comes (an open-addressed table), and
// write each line after a six-character token into a new buffer. It
// widens no repeated line and writes no longer token for one: it is what
// the anchors rows are read against. At 10 KB, where everything fits in
// the caches and a second core costs more to wake than it saves, no
// render can beat it; from 100 KB its plain tables miss the caches, which
// anchored's partitioned key index and second core avoid, so there it is
// a reference, not a bound. It returns how many bytes it wrote.
func renderFloor(text string) func() int {
	lines := strings.Count(text, "\n") + 1
	hs, ends := make([]uint64, lines), make([]int, lines)
	size := 1
	for size < 2*lines {
		size <<= 1
	}
	keys, counts := make([]uint64, size), make([]uint32, size)
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	return func() int {
		n, at, i := 0, 0, 0
		for ; i+8 <= len(text); i += 8 {
			w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
				uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
			x := w ^ 0x0a0a0a0a0a0a0a0a
			for m := (x - 0x0101010101010101) &^ x & 0x8080808080808080; m != 0; m &= m - 1 {
				e := i + bits.TrailingZeros64(m)>>3
				hs[n], ends[n] = xxh3.HashString(text[at:e]), e+1
				at, n = e+1, n+1
			}
		}
		for ; i < len(text); i++ {
			if text[i] == '\n' {
				hs[n], ends[n] = xxh3.HashString(text[at:i]), i+1
				at, n = i+1, n+1
			}
		}
		if at < len(text) {
			hs[n], ends[n] = xxh3.HashString(text[at:]), len(text)
			n++
		}
		clear(keys)
		clear(counts)
		mask := uint64(size - 1)
		for _, h := range hs[:n] {
			h |= 1
			p := (h * 0x9e3779b97f4a7c15) >> 32 & mask
			for keys[p] != 0 && keys[p] != h {
				p = (p + 1) & mask
			}
			keys[p] = h
			counts[p]++
		}
		out := make([]byte, 0, len(text)+n*len("xxxxxx│ "))
		at = 0
		for j, h := range hs[:n] {
			out = append(out, alphabet[h&31], alphabet[h>>5&31], alphabet[h>>10&31], alphabet[h>>15&31], alphabet[h>>20&31], alphabet[h>>25&31])
			out = append(out, "│ "...)
			out = append(out, text[at:ends[j]]...)
			at = ends[j]
		}
		return len(out)
	}
}
