package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
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
	Work   string `json:"work,omitempty"`   // patch-disk: a folder each implementation patches its own copy of File in
	// Rotate holds other inputs of the same size: the timed calls go round
	// the case and these in turn (one timing the same small input over
	// and over lets the branch predictor learn it). The outcome is the
	// case's own.
	Rotate []peerCase `json:"rotate,omitempty"`
}

// A peerResult is a driver's line of output for one case.
type peerResult struct {
	Case    string `json:"case"`
	NS      int64  `json:"ns"`     // the mean call
	Median  int64  `json:"median"` // the median call
	Outcome string `json:"outcome"`
}

// defaultBudget is how long each process times a case (after one call
// that is not timed): the timed calls add up to at least this, so that a
// fast call is averaged over many and a slow one over several.
const defaultBudget = int64(300 * time.Millisecond)

// runPeerWorker is agentls's driver: `editbench peer-worker OP CASES.json`,
// run in its own process like gptme's and aider's, timing the product's
// own paths on the same files. It runs on one core (GOMAXPROCS=1), as
// CPython does: the garbage collector's work is then in the calls' time,
// not on a second core the peers do not get.
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
	runtime.GOMAXPROCS(1)
	enc := json.NewEncoder(stdout)
	for _, c := range cases {
		t, outcome, err := op(c)
		if err != nil {
			fmt.Fprintf(stderr, "editbench peer-worker: %s %s: %v\n", args[0], c.Name, err)
			return 1
		}
		enc.Encode(peerResult{Case: c.Name, NS: t.mean, Median: t.median, Outcome: outcome})
	}
	return 0
}

// A timing is a case's mean and median time per call, in ns.
type timing struct{ mean, median int64 }

// div is t per item, for a call that does n of them.
func (t timing) div(n int) timing { return timing{t.mean / int64(n), t.median / int64(n)} }

type workerOp func(c peerCase) (t timing, outcome string, err error)

func workerOps() map[string]workerOp {
	return map[string]workerOp{
		"parse-whole":        workParseWhole,
		"parse-stream16":     workParseStream,
		"patch":              workPatch,
		"patch-disk":         workPatchDisk,
		"small-edits":        workSmallEdits,
		"anchors-render":     workAnchorsRender,
		"anchors-apply":      workAnchorsApply,
		"anchors-apply-kept": workAnchorsApplyKept,
		"ceiling":            workCeiling,
	}
}

// timeCalls calls fn once untimed, then until the timed calls add up to
// budget ns (at least once), and returns the mean call (what a user waits
// for on average: garbage collection and page faults land in some calls
// and not others) and the median beside it. The drivers of the peers
// (peertiming.py) time the same way.
func timeCalls(budget int64, fn func()) timing { return timeCallsReset(budget, nil, fn) }

// timeCallsReset is timeCalls with reset, if not nil, run untimed before
// every call (putting back a file the call rewrote).
func timeCallsReset(budget int64, reset func() error, fn func()) timing {
	if reset != nil {
		reset()
	}
	fn()
	var ts []int64
	var total int64
	for len(ts) == 0 || total < budget {
		if reset != nil {
			reset()
		}
		t := time.Now()
		fn()
		d := time.Since(t).Nanoseconds()
		ts = append(ts, d)
		total += d
	}
	mean := total / int64(len(ts))
	slices.Sort(ts)
	return timing{mean: mean, median: ts[len(ts)/2]}
}

// timeRotating prepares the case and each of its Rotate inputs (prepare
// returns the call to time and, for the case itself, its outcome or the
// error that fails it), then
// times calls going round them in turn, the case first: timeCalls's
// untimed first call is the case's, so its outcome is known after.
func timeRotating(c peerCase, prepare func(v peerCase) (call func(), outcome func() (string, error), err error)) (timing, string, error) {
	var calls []func()
	var outcome func() (string, error)
	for i, v := range append([]peerCase{c}, c.Rotate...) {
		call, out, err := prepare(v)
		if err != nil {
			return timing{}, "", err
		}
		if i == 0 {
			outcome = out
		}
		calls = append(calls, call)
	}
	k := 0
	t := timeCalls(budgetOf(c), func() {
		calls[k%len(calls)]()
		k++
	})
	out, err := outcome()
	return t, out, err
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

func workParseWhole(c peerCase) (timing, string, error) {
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
func workParseStream(c peerCase) (timing, string, error) {
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

// applyPatchTo is applyPatch writing the new text into dst, a buffer kept
// from call to call, as gptme's apply returns the new text: the same
// bytes, without a fresh copy of the file per call.
func applyPatchTo(dst []byte, block, content string) ([]byte, error) {
	hunks, err := edits.ParseConflict(block)
	if err != nil {
		return dst, err
	}
	return edits.ApplyHunksTo(dst, content, hunks)
}

func outcomeOf(out string, err error) string {
	if err != nil {
		return "refused: " + shorten(err)
	}
	return "applied:" + sha(out)
}

func workPatch(c peerCase) (timing, string, error) {
	content, err := readString(c.File)
	if err != nil {
		return timing{}, "", err
	}
	block, err := readString(c.Patch)
	if err != nil {
		return timing{}, "", err
	}
	var buf []byte
	t := timeCalls(budgetOf(c), func() { buf, _ = applyPatchTo(buf[:0], block, content) })
	buf, err = applyPatchTo(buf[:0], block, content)
	return t, outcomeOf(string(buf), err), nil
}

// workPatchDisk is the patch tool end to end on disk, as the CLI runs it:
// a Batch reading the file through DiskSource, the patch resolved
// (Batch.Patch), and the change written by ApplyToDisk (which reads the
// file again to check it did not change, writes a temporary file and
// renames it over the file; on ext4, the filesystem here, without an
// fsync, as gptme's patch tool, since ext4 writes the data before the
// rename commits). Before each call, untimed, the file is put back as it
// was. It works on its own copy of the input.
func workPatchDisk(c peerCase) (timing, string, error) {
	ctx := context.Background()
	orig, err := os.ReadFile(c.File)
	if err != nil {
		return timing{}, "", err
	}
	block, err := readString(c.Patch)
	if err != nil {
		return timing{}, "", err
	}
	root := filepath.Join(c.Work, "agentls")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return timing{}, "", err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return timing{}, "", err
	}
	name := filepath.Base(c.File)
	path := filepath.Join(root, name)
	defer os.Remove(path)
	reset := func() error { return os.WriteFile(path, orig, 0o644) }
	run := func() error {
		b := &edittool.Batch{Root: root, Source: edittool.DiskSource{Root: root}}
		if _, err := b.Patch(ctx, name, block); err != nil {
			return err
		}
		return edits.ApplyToDisk(root, &b.Changes)
	}
	t := timeCallsReset(budgetOf(c), reset, func() { run() })
	if err := reset(); err != nil {
		return timing{}, "", err
	}
	if err := run(); err != nil {
		return t, outcomeOf("", err), nil
	}
	out, err := readString(path)
	return t, outcomeOf(out, err), nil
}

// smallEditSep separates the patches of the small-edits input, applied one
// after the other.
const smallEditSep = "\n%%%%\n"

func workSmallEdits(c peerCase) (timing, string, error) {
	content, err := readString(c.File)
	if err != nil {
		return timing{}, "", err
	}
	all, err := readString(c.Patch)
	if err != nil {
		return timing{}, "", err
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
	t := timeCalls(budgetOf(c), func() { run() })
	return t.div(len(blocks)), outcomeOf(run()), nil
}

// workAnchorsRender is view_anchored's one-shot render of a whole file
// (the CLI's path; the server also keeps the line hashes per buffer),
// the file read inside the timed call as gptme's read tool reads it.
func workAnchorsRender(c peerCase) (timing, string, error) {
	return timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
		var out string
		var err error
		return func() {
				var data []byte
				if data, err = os.ReadFile(v.File); err == nil {
					out, err = anchored.RenderText(unsafe.String(unsafe.SliceData(data), len(data)), 0, 0, anchored.Options{})
				}
			},
			func() (string, error) { return fmt.Sprintf("rendered:%d", len(out)), err }, nil
	})
}

// anchorsEdit is the edit anchors-apply makes to each of its lines, the
// same for every implementation.
const anchorsEdit = " // x"

// workAnchorsApply is patch_anchored: a batch of guarded replace ops
// (parsed from their JSON inside the timed call, as gptme parses its
// ops), each anchor resolved against the text and the new text written.
// The anchors come from a view made before timing, as the model saw it;
// the text is anchored afresh, as the CLI does (and the server for a text
// no kept view showed).
func workAnchorsApply(c peerCase) (timing, string, error) { return timeAnchorsApply(c, false) }

// workAnchorsApplyKept is the server's patch_anchored on the text its
// view_anchored showed: the view rendered before timing through an
// anchored.Views (the server's, kept per file), then, timed, the ops parsed
// and applied through the anchor table that view kept (Views.ApplyKept) to
// a copy of the text read again, byte for byte the same but not the same
// string, so that the check that it is the text viewed compares it in
// full, as it does when a buffer is read anew for the patch.
func workAnchorsApplyKept(c peerCase) (timing, string, error) { return timeAnchorsApply(c, true) }

// timeAnchorsApply times the anchors-apply calls of c and its rotation,
// afresh or through kept views, and returns c's own outcome.
func timeAnchorsApply(c peerCase, kept bool) (timing, string, error) {
	t, _, err := timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
		call, _, err := anchorsApplyCall(v, kept)
		return call, func() (string, error) { return "", nil }, err
	})
	if err != nil {
		return timing{}, "", err
	}
	_, result, err := anchorsApplyCall(c, kept)
	if err != nil {
		return timing{}, "", err
	}
	return t, outcomeOf(result()), nil
}

// errNotKept is a kept anchors-apply call that found no kept view of its
// text: it would have timed the fresh path under the kept row's name.
var errNotKept = errors.New("the text viewed was not resolved through its kept view")

// anchorsApplyCall prepares the anchors-apply call of v, and its result:
// with kept, through the table of a view rendered now, untimed.
func anchorsApplyCall(v peerCase, kept bool) (func(), func() (string, error), error) {
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
	data, err := json.Marshal(ops)
	if err != nil {
		return nil, nil, err
	}
	opsJSON := string(data)
	var res anchored.Result
	call := func() {
		var parsed []anchored.Op
		if parsed, err = anchored.ParseOps(opsJSON); err == nil {
			res, err = anchored.Apply(text, parsed, anchored.Options{})
		}
	}
	if kept {
		views := new(anchored.Views) // one per input: a rotation has more than the server keeps
		if _, err := views.Render(v.File, text, 0, 0, anchored.Options{}); err != nil {
			return nil, nil, err
		}
		again, readErr := readString(v.File) // the same bytes in another string
		if readErr != nil {
			return nil, nil, readErr
		}
		call = func() {
			var parsed []anchored.Op
			if parsed, err = anchored.ParseOps(opsJSON); err == nil {
				var ok bool
				if res, ok, err = views.ApplyKept(v.File, again, parsed, anchored.Options{}); !ok {
					err = errNotKept
				}
			}
		}
		if call(); errors.Is(err, errNotKept) {
			return nil, nil, fmt.Errorf("%s: %w", v.File, err)
		}
	}
	return call, func() (string, error) { call(); return res.Text, err }, nil
}

// workCeiling measures the machine in the same run: copying the file
// (memmove, what building a new text of its size costs at least),
// searching it for a byte it does not hold (bytes.IndexByte, what one
// pass of finding costs at least), finding each of its lines with
// strings.IndexByte and hashing it with xxh3 on one core, and a minimal
// render of the anchors files (renderFloor), going round the same inputs
// as the anchors rows; and the least the patch tool on disk can do, by
// the operating system's calls alone (workDiskFloor).
func workCeiling(c peerCase) (timing, string, error) {
	if strings.HasPrefix(c.Name, "render-floor") {
		var n int
		t, _, err := timeRotating(c, func(v peerCase) (func(), func() (string, error), error) {
			return func() {
				data, err := os.ReadFile(v.File)
				if err == nil {
					n = len(renderFloor(unsafe.String(unsafe.SliceData(data), len(data))))
				}
			}, func() (string, error) { return "", nil }, nil
		})
		return t, fmt.Sprintf("wrote:%d", n), err
	}
	if how, ok := strings.CutPrefix(c.Name, "disk-floor "); ok {
		return workDiskFloor(c, strings.Fields(how)[0])
	}
	data, err := os.ReadFile(c.File)
	if err != nil {
		return timing{}, "", err
	}
	switch c.Name {
	case "memmove":
		dst := make([]byte, len(data))
		return timeCalls(budgetOf(c), func() { copy(dst, data) }), "copied", nil
	case "indexbyte":
		at := 0
		t := timeCalls(budgetOf(c), func() { at = bytes.IndexByte(data, 0x01) })
		return t, fmt.Sprintf("found:%d", at), nil
	case "xxh3-lines":
		text := string(data)
		var sum uint64
		t := timeCalls(budgetOf(c), func() {
			for at := 0; at < len(text); {
				end := len(text)
				if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
					end = at + i
				}
				sum += xxh3.HashString(text[at:end])
				at = end + 1
			}
		})
		return t, fmt.Sprintf("hashed:%d", sum&1), nil
	}
	return timing{}, "", fmt.Errorf("unknown ceiling %q (memmove, indexbyte, xxh3-lines or render-floor …)", c.Name)
}

// renderFloor is a minimal render of text, a reference for the anchors
// rows and not a bound on them: on one core, it finds each line eight
// bytes at a time, hashes it with xxh3, and writes a six-character token
// from the hash, a separator and the line into a new buffer (appends,
// which copy words). It does not count repeated lines, widen their
// tokens, check the text or keep anything for a later call, all of which
// RenderText does.
func renderFloor(text string) []byte {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	out := make([]byte, 0, len(text)+len(text)/4+64)
	line := func(at, end int) {
		h := xxh3.HashString(text[at:end])
		out = append(out, alphabet[h&31], alphabet[h>>5&31], alphabet[h>>10&31], alphabet[h>>15&31], alphabet[h>>20&31], alphabet[h>>25&31])
		out = append(out, "│ "...)
		out = append(out, text[at:min(end+1, len(text))]...)
	}
	at, i := 0, 0
	for ; i+8 <= len(text); i += 8 {
		w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		x := w ^ 0x0a0a0a0a0a0a0a0a
		for m := (x - 0x0101010101010101) &^ x & 0x8080808080808080; m != 0; m &= m - 1 {
			e := i + bits.TrailingZeros64(m)>>3
			line(at, e)
			at = e + 1
		}
	}
	for ; i < len(text); i++ {
		if text[i] == '\n' {
			line(at, i)
			at = i + 1
		}
	}
	if at < len(text) {
		line(at, len(text))
	}
	return out
}
