package main

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// editbench peers times agentls beside the real gptme and aider on the
// same inputs, each implementation in its own process, interleaved round
// by round, and prints medians, ranges and same-run ratios, with the
// machine's ceiling measured in the same run. It needs Python and PyPI, so
// it is a subcommand, never part of go test.

//go:embed peerdrivers/*.py
var peerDrivers embed.FS

// sharedDriver is what the drivers share (timing, going round a case's
// inputs, outcomes, the loop over the cases): written beside each.
const sharedDriver = "peertiming.py"

// The peers' versions: the ones issue #17 measured against. They cannot
// share a virtualenv (their pinned dependencies conflict), so each gets
// its own.
var peerPackages = []struct{ name, pkg, driver string }{
	{"gptme", "gptme==0.35.1", "gptme_driver.py"},
	{"aider", "aider-chat==0.86.2", "aider_driver.py"},
}

// nonASCIIHeader is put before a generated file to make its non-ASCII
// variant: a comment with Latin-1, BMP and astral characters, so CPython
// stores the whole text at 4 bytes a character (the case where its search
// is slowest), and Go's byte search sees multi-byte UTF-8. The patches'
// lines are the same.
const nonASCIIHeader = "// Ünïcödé: naïve café — λ→μ, “quotes”, 𝔤𝔬 𝕗𝕒𝕤𝕥 🚀\n"

type peersConfig struct {
	gen       string // peers-gen.py
	python    string
	venvs     string // where the virtualenvs are kept ("" for a temporary folder)
	rounds    int
	streamMax int // the largest reply gptme's streaming loop is run on (it is quadratic)
	out       string
	keep      string // keep the generated inputs in this folder
}

func runPeers(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("editbench peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg peersConfig
	fs.StringVar(&cfg.gen, "gen", "", "the input generator, `peers-gen.py` (../shared/research/peers-gen.py beside the project)")
	fs.StringVar(&cfg.python, "python", "python3", "the Python 3 `interpreter` that makes the virtualenvs and runs the generator")
	fs.StringVar(&cfg.venvs, "venvs", "", "keep the peers' virtualenvs in `dir` and reuse them next time (default: a temporary folder, removed after)")
	fs.IntVar(&cfg.rounds, "rounds", 9, "rounds of A B A B: each implementation runs every operation once per round, in its own process (the small cases swing between rounds: a 10 KB parse took 5 µs in some, 9 µs in others, so 5 rounds left the log-log slopes to chance)")
	fs.IntVar(&cfg.streamMax, "gptme-stream-max", 20_000, "the largest reply (bytes) gptme's streaming loop is timed on: it re-parses the whole reply at each newline (100 KB takes 12 s a call, 1 MB about 20 minutes)")
	fs.StringVar(&cfg.out, "out", "", "also write the report into `file`, replacing its peers section (BENCH.md)")
	fs.StringVar(&cfg.keep, "inputs", "", "generate the inputs into `dir` and keep them (default: a temporary folder)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.gen == "" {
		fmt.Fprintln(stderr, "editbench peers: -gen is required: the path of peers-gen.py (e.g. -gen ../shared/research/peers-gen.py)")
		return 2
	}
	if cfg.rounds < 1 {
		fmt.Fprintf(stderr, "editbench peers: -rounds %d: need at least 1\n", cfg.rounds)
		return 2
	}
	text, err := peers(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "editbench peers: %v\n", err)
		return 1
	}
	fmt.Fprint(stdout, text)
	if cfg.out != "" {
		if err := writeSection(cfg.out, "peers", text); err != nil {
			fmt.Fprintf(stderr, "editbench peers: %v\n", err)
			return 1
		}
	}
	return 0
}

// An implementation is a way to run one process for an operation.
type implementation struct {
	name string
	argv []string // then OP CASES.json
	ops  map[string]bool
}

// A peerOp is an operation timed for every implementation that has it.
type peerOp struct {
	op, label string
	cases     []peerCase
	bytes     map[string]int // input bytes per case, for MB/s
	skip      func(impl string, c peerCase) string
	// peersOf, if set, is the operation whose peers' timings this one's
	// are set beside: agentls's variant of an operation the peers have
	// one way of doing (anchors-apply-kept beside gptme's anchors-apply).
	peersOf string
}

func peers(ctx context.Context, cfg peersConfig, log io.Writer) (string, error) {
	tmp, err := os.MkdirTemp("", "editbench-peers-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	in := cfg.keep
	if in == "" {
		in = filepath.Join(tmp, "inputs")
	}
	fmt.Fprintf(log, "editbench peers: generating the inputs with %s into %s\n", cfg.gen, in)
	if err := runCmd(ctx, log, cfg.python, cfg.gen, in); err != nil {
		return "", fmt.Errorf("generate the inputs (-gen %s): %w", cfg.gen, err)
	}
	if err := runCmd(ctx, log, cfg.python, "-c", variantsScript, cfg.gen, in, strconv.Itoa(rotations)); err != nil {
		return "", fmt.Errorf("generate the small inputs' variants (-gen %s): %w", cfg.gen, err)
	}
	ops, err := peerInputs(in, filepath.Join(tmp, "work"))
	if err != nil {
		return "", err
	}
	venvs := cfg.venvs
	if venvs == "" {
		venvs = filepath.Join(tmp, "venvs")
	}
	impls := []implementation{agentlsImpl()}
	for _, p := range peerPackages {
		py, err := ensureVenv(ctx, log, cfg.python, filepath.Join(venvs, p.name), p.pkg)
		if err != nil {
			return "", fmt.Errorf("install %s: %w", p.pkg, err)
		}
		// The driver, and beside it what the drivers share, which it imports.
		for _, name := range []string{p.driver, sharedDriver} {
			src, _ := peerDrivers.ReadFile("peerdrivers/" + name)
			if err := os.WriteFile(filepath.Join(tmp, name), src, 0o644); err != nil {
				return "", err
			}
		}
		script := filepath.Join(tmp, p.driver)
		impls = append(impls, implementation{name: p.name, argv: []string{py, script}, ops: driverOps(p.name)})
	}
	for i := range ops {
		if ops[i].op == "parse-stream16" {
			ops[i].skip = func(impl string, c peerCase) string {
				if impl == "gptme" && len(mustRead(c.Reply)) > cfg.streamMax {
					return "not run"
				}
				return ""
			}
		}
	}
	res := newPeerResults(ops)
	start := time.Now()
	for round := range cfg.rounds {
		for _, op := range ops {
			order := slices.Clone(impls)
			if round%2 == 1 {
				slices.Reverse(order) // A B C, C B A: neither side always goes first
			}
			for _, im := range order {
				if !im.ops[op.op] {
					continue
				}
				var cases []peerCase
				for _, c := range op.cases {
					if op.skip == nil || op.skip(im.name, c) == "" {
						cases = append(cases, c)
					}
				}
				if len(cases) == 0 {
					continue
				}
				fmt.Fprintf(log, "editbench peers: round %d/%d: %s %s (%s so far)\n", round+1, cfg.rounds, im.name, op.op, time.Since(start).Round(time.Second))
				got, err := runDriver(ctx, tmp, im, op.op, cases)
				if err != nil {
					return "", err
				}
				for _, r := range got {
					res.add(op.op, r.Case, im.name, r.NS, r.Median, r.Outcome)
				}
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	return res.markdown(ops, impls, cfg, strings.TrimSpace(string(load))), nil
}

func mustRead(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// driverOps lists the operations each peer's driver has.
func driverOps(peer string) map[string]bool {
	if peer == "aider" {
		return map[string]bool{"patch": true, "small-edits": true}
	}
	return map[string]bool{"parse-whole": true, "parse-stream16": true, "patch": true, "patch-disk": true, "small-edits": true, "anchors-render": true, "anchors-apply": true}
}

func agentlsImpl() implementation {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	ops := map[string]bool{}
	for op := range workerOps() {
		ops[op] = true
	}
	return implementation{name: "agentls", argv: []string{exe, "peer-worker"}, ops: ops}
}

// runDriver runs one process of im for op over cases and reads its results.
func runDriver(ctx context.Context, tmp string, im implementation, op string, cases []peerCase) ([]peerResult, error) {
	data, _ := json.Marshal(cases)
	file := filepath.Join(tmp, "cases-"+op+".json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, im.argv[0], append(im.argv[1:], op, file)...)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", im.name, op, err, lastLines(stderr.String(), 15))
	}
	var rs []peerResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r peerResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s %s: a line of output is not a result (%v): %q", im.name, op, err, sc.Text())
		}
		rs = append(rs, r)
	}
	if len(rs) != len(cases) {
		return nil, fmt.Errorf("%s %s: %d results for %d cases\n%s", im.name, op, len(rs), len(cases), lastLines(stderr.String(), 15))
	}
	return rs, nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}

func runCmd(ctx context.Context, log io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, lastLines(out.String(), 20))
	}
	return nil
}

// ensureVenv returns the Python of a virtualenv at dir holding pkg
// (name==version), creating it and installing pkg from PyPI if needed.
func ensureVenv(ctx context.Context, log io.Writer, python, dir, pkg string) (string, error) {
	py := filepath.Join(dir, "bin", "python")
	name, version, _ := strings.Cut(pkg, "==")
	if _, err := os.Stat(py); err != nil {
		fmt.Fprintf(log, "editbench peers: creating a virtualenv in %s\n", dir)
		if err := runCmd(ctx, log, python, "-m", "venv", dir); err != nil {
			return "", err
		}
	}
	show, _ := exec.CommandContext(ctx, py, "-m", "pip", "show", name).Output()
	if !bytes.Contains(show, []byte("\nVersion: "+version+"\n")) {
		fmt.Fprintf(log, "editbench peers: pip install %s (from PyPI; a few minutes)\n", pkg)
		if err := runCmd(ctx, log, py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", pkg); err != nil {
			return "", err
		}
	}
	return py, nil
}

// A case of at most rotateMax bytes goes round rotations inputs of its
// size, one per timed call: timing one small input over and over lets the
// branch predictor learn it (agentls's 10 KB render took 21.5 µs on one
// file repeated, 33.9 µs going round 64 of them; at 100 KB 363 and 374
// µs), which made the small rows, and every slope from them, too fast.
const (
	rotations = 16
	rotateMax = 100_000
)

// variantsScript writes, with the generator's own functions, the inputs a
// small case goes round: the generator's reply and file for the targets
// n+1 … n+rotations-1 (another seed each, the same kind of text), as
// reply-N-vK.md and file-N-vK.go. argv: the generator, the folder, the
// number of inputs a case goes round.
const variantsScript = `
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("peersgen", sys.argv[1])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
out, rotations = sys.argv[2], int(sys.argv[3])
for n in gen.REPLY_SIZES:
    if n <= 100000:
        for k in range(1, rotations):
            open(os.path.join(out, "reply-%d-v%d.md" % (n, k)), "w").write(gen.gen_reply(n + k))
for n in gen.FILE_SIZES:
    if n <= 100000:
        for k in range(1, rotations):
            open(os.path.join(out, "file-%d-v%d.go" % (n, k)), "w").write(gen.gen_file(n + k)[0])
`

var (
	replySizes  = []int{1_000, 10_000, 100_000, 1_000_000, 10_000_000}
	patchSizes  = []int{10_000, 1_000_000, 10_000_000}
	anchorSizes = []int{10_000, 100_000, 1_000_000, 10_000_000}
)

// variants returns the inputs a case of size n goes round besides its own
// (kind-n-vK.ext, written by variantsScript), or none for a large case or
// when they were not written.
func variants(at func(string) string, kind string, n int, ext string) []string {
	if n > rotateMax {
		return nil
	}
	var vs []string
	for k := 1; k < rotations; k++ {
		v := at(fmt.Sprintf("%s-%d-v%d%s", kind, n, k, ext))
		if _, err := os.Stat(v); err != nil {
			return nil
		}
		vs = append(vs, v)
	}
	return vs
}

// anchorsCase is an anchors case on file (whose content is text): its 8
// lines to edit, and the same edits as gptme's hashline ops, written
// beside the file.
func anchorsCase(name, file, text string) (peerCase, error) {
	c := peerCase{Name: name, File: file, Ops: strings.TrimSuffix(file, filepath.Ext(file)) + ".hashline-ops.txt"}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var ops strings.Builder
	ops.WriteString("[f.go#00000000]\n")
	for k := range 8 {
		l := k*len(lines)/8 + 1
		c.Lines = append(c.Lines, l)
		fmt.Fprintf(&ops, "PUT %d.=%d:\n+%s%s\n", l, l, lines[l-1], anchorsEdit)
	}
	if err := os.WriteFile(c.Ops, []byte(ops.String()), 0o644); err != nil {
		return peerCase{}, err
	}
	return c, nil
}

// peerInputs makes, beside the generator's files in dir, the inputs it
// does not write (non-ASCII files, 16 hunks, small edits, anchored ops),
// and returns the operations to time.
func peerInputs(dir, work string) ([]peerOp, error) {
	at := func(name string) string { return filepath.Join(dir, name) }
	size := func(path string) int { st, _ := os.Stat(path); return int(st.Size()) }
	parseWhole := peerOp{op: "parse-whole", label: "parse whole reply", bytes: map[string]int{}}
	stream := peerOp{op: "parse-stream16", label: "parse streamed, 16-byte chunks", bytes: map[string]int{}}
	for _, n := range replySizes {
		c := peerCase{Name: nominal(n), Reply: at(fmt.Sprintf("reply-%d.md", n))}
		if _, err := os.Stat(c.Reply); err != nil {
			return nil, fmt.Errorf("the generator did not write %s: %w", c.Reply, err)
		}
		total := size(c.Reply)
		for _, v := range variants(at, "reply", n, ".md") {
			c.Rotate = append(c.Rotate, peerCase{Name: c.Name, Reply: v})
			total += size(v)
		}
		parseWhole.cases = append(parseWhole.cases, c)
		parseWhole.bytes[c.Name] = total / (1 + len(c.Rotate))
		stream.cases = append(stream.cases, c)
		stream.bytes[c.Name] = parseWhole.bytes[c.Name]
	}
	patch := peerOp{op: "patch", label: "patch", bytes: map[string]int{}}
	disk := peerOp{op: "patch-disk", label: "patch tool on disk", bytes: map[string]int{}}
	for _, n := range patchSizes {
		file := at(fmt.Sprintf("file-%d.go", n))
		text, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		nonASCII := at(fmt.Sprintf("nonascii-file-%d.go", n))
		if err := os.WriteFile(nonASCII, append([]byte(nonASCIIHeader), text...), 0o644); err != nil {
			return nil, err
		}
		for _, kind := range []string{"exact", "miss", "relaxed"} {
			for _, f := range []struct{ enc, path string }{{"ASCII", file}, {"non-ASCII", nonASCII}} {
				c := peerCase{Name: fmt.Sprintf("%s %s %s", kind, nominal(n), f.enc), File: f.path, Patch: at(fmt.Sprintf("patch-%s-%d.txt", kind, n))}
				patch.cases = append(patch.cases, c)
				patch.bytes[c.Name] = size(f.path)
				if kind == "exact" {
					d := c
					d.Work = work
					disk.cases = append(disk.cases, d)
					disk.bytes[d.Name] = size(f.path)
				}
			}
		}
		if n == 10_000_000 {
			p := at("patch-exact16-10000000.txt")
			if err := os.WriteFile(p, []byte(sixteenHunks(string(text))), 0o644); err != nil {
				return nil, err
			}
			c := peerCase{Name: "exact 16 hunks " + nominal(n) + " ASCII", File: file, Patch: p}
			patch.cases = append(patch.cases, c)
			patch.bytes[c.Name] = len(text)
		}
	}
	small := peerOp{op: "small-edits", label: "small edits, one patch each", bytes: map[string]int{}}
	{
		file := at("file-10000.go")
		text, _ := os.ReadFile(file)
		p := at("small-edits-10000.txt")
		if err := os.WriteFile(p, []byte(smallEdits(string(text), 16)), 0o644); err != nil {
			return nil, err
		}
		c := peerCase{Name: "16 edits 10 KB", File: file, Patch: p}
		small.cases = append(small.cases, c)
		small.bytes[c.Name] = len(text)
	}
	render := peerOp{op: "anchors-render", label: "anchors: render the whole file", bytes: map[string]int{}}
	apply := peerOp{op: "anchors-apply", label: "anchors: apply 8 line edits, anchored afresh (the CLI)", bytes: map[string]int{}}
	kept := peerOp{op: "anchors-apply-kept", label: "anchors: apply 8 line edits through the view's kept table (the server)", bytes: map[string]int{}, peersOf: apply.op}
	for _, n := range anchorSizes {
		file := at(fmt.Sprintf("file-%d.go", n))
		text, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		c, err := anchorsCase(nominal(n), file, string(text))
		if err != nil {
			return nil, err
		}
		total := len(text)
		for _, v := range variants(at, "file", n, ".go") {
			vt, err := os.ReadFile(v)
			if err != nil {
				return nil, err
			}
			vc, err := anchorsCase(c.Name, v, string(vt))
			if err != nil {
				return nil, err
			}
			c.Rotate = append(c.Rotate, vc)
			total += len(vt)
		}
		render.cases = append(render.cases, peerCase{Name: c.Name, File: c.File, Rotate: c.Rotate})
		render.bytes[c.Name] = total / (1 + len(c.Rotate))
		apply.cases = append(apply.cases, c)
		apply.bytes[c.Name] = render.bytes[c.Name]
		kept.cases = append(kept.cases, c)
		kept.bytes[c.Name] = render.bytes[c.Name]
	}
	big := at("file-10000000.go")
	ceiling := peerOp{op: "ceiling", label: "machine ceiling (Go)", bytes: map[string]int{"memmove": size(big), "indexbyte": size(big), "xxh3-lines": size(big)},
		cases: []peerCase{{Name: "memmove", File: big}, {Name: "indexbyte", File: big}, {Name: "xxh3-lines", File: big}}}
	// The disk floors write the patch-disk rows' ASCII files.
	for _, d := range disk.cases {
		if !strings.HasPrefix(d.Name, "exact ") || !strings.HasSuffix(d.Name, " ASCII") || strings.HasSuffix(d.Name, "non-ASCII") {
			continue
		}
		size := strings.TrimSuffix(strings.TrimPrefix(d.Name, "exact "), " ASCII")
		for _, how := range []string{"replace", "in-place"} {
			name := "disk-floor " + how + " " + size
			ceiling.cases = append(ceiling.cases, peerCase{Name: name, File: d.File, Work: work})
			ceiling.bytes[name] = disk.bytes[d.Name]
		}
	}
	// The render floor goes round the same inputs as the render rows.
	for _, rc := range render.cases {
		name := "render-floor " + rc.Name
		ceiling.cases = append(ceiling.cases, peerCase{Name: name, File: rc.File, Rotate: rc.Rotate})
		ceiling.bytes[name] = render.bytes[rc.Name]
	}
	return []peerOp{ceiling, parseWhole, stream, patch, disk, small, render, apply, kept}, nil
}

// floorCase names the ceiling case of renderFloor on the anchors file of
// size n.
func floorCase(n int) string { return "render-floor " + nominal(n) }

// nominal names an input by the generator's target size, in decimal
// units as the generator's file names are (its files overshoot by up to a
// block; rates use the real sizes).
func nominal(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%d MB", n/1_000_000)
	case n >= 1_000:
		return fmt.Sprintf("%d KB", n/1_000)
	}
	return fmt.Sprintf("%d B", n)
}

// conflictBlock renders hunks in gptme's conflict-marker format.
func conflictBlock(hunks [][2][]string) string {
	var b strings.Builder
	for i, h := range hunks {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("<<<<<<< ORIGINAL\n" + strings.Join(h[0], "\n") + "\n=======\n" + strings.Join(h[1], "\n") + "\n>>>>>>> UPDATED")
	}
	return b.String()
}

// sixteenHunks edits 16 functions spread over text the way the
// generator's exact patch edits one: a "func" line and the 3 after it,
// the second line edited.
func sixteenHunks(text string) string {
	lines := strings.Split(text, "\n")
	var hunks [][2][]string
	for k := range 16 {
		h := (2*k + 1) * len(lines) / 32
		for !strings.HasPrefix(lines[h], "func ") {
			h++
		}
		orig := slices.Clone(lines[h : h+4])
		upd := slices.Clone(orig)
		upd[1] += " // edited"
		hunks = append(hunks, [2][]string{orig, upd})
	}
	return conflictBlock(hunks)
}

// smallEdits returns n one-line patches of text, each a line found
// nowhere else (not even inside another line, as gptme searches), spread
// over the file, joined by smallEditSep.
func smallEdits(text string, n int) string {
	var unique []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.TrimSpace(l) != "" && strings.Count(text, l) == 1 {
			unique = append(unique, l)
		}
	}
	var blocks []string
	for k := range min(n, len(unique)) {
		l := unique[k*len(unique)/n]
		blocks = append(blocks, conflictBlock([][2][]string{{{l}, {l + " // edited"}}}))
	}
	return strings.Join(blocks, smallEditSep)
}

// peerResults are the samples of every (operation, case, implementation).
type peerResults struct {
	samples  map[string][]int64 // op/case/impl → the mean ns per call, one per round
	medians  map[string][]int64 // op/case/impl → the median ns per call, one per round
	outcomes map[string]string
	peersOf  map[string]string // op → the op whose peers' timings it is set beside (peerOp.peersOf)
}

func newPeerResults(ops []peerOp) *peerResults {
	r := &peerResults{samples: map[string][]int64{}, medians: map[string][]int64{}, outcomes: map[string]string{}, peersOf: map[string]string{}}
	for _, op := range ops {
		if op.peersOf != "" {
			r.peersOf[op.op] = op.peersOf
		}
	}
	return r
}

func key(op, c, impl string) string { return op + "\x00" + c + "\x00" + impl }

// implKey is the key of impl's samples for op: a peer's are those of the
// operation op is set beside, if any (its round-i sample ran in round i
// too, so the ratios stay same-run).
func (r *peerResults) implKey(op, c, impl string) string {
	if p, ok := r.peersOf[op]; ok && impl != "agentls" {
		op = p
	}
	return key(op, c, impl)
}

func (r *peerResults) add(op, c, impl string, mean, med int64, outcome string) {
	k := key(op, c, impl)
	r.samples[k] = append(r.samples[k], mean)
	r.medians[k] = append(r.medians[k], med)
	r.outcomes[k] = outcome
}

func median(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianF(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios returns peer/agentls per round: the same round's processes ran
// back to back, so the machine's slow phases touch both.
func (r *peerResults) ratios(op, c, peer string) []float64 {
	a, p := r.samples[key(op, c, "agentls")], r.samples[r.implKey(op, c, peer)]
	var out []float64
	for i := range min(len(a), len(p)) {
		out = append(out, float64(p[i])/float64(a[i]))
	}
	return out
}

func fmtNS(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", ns)
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.2f s", float64(ns)/1e9)
}

func (r *peerResults) cell(op, c, impl string) string {
	k := r.implKey(op, c, impl)
	s := r.samples[k]
	if len(s) == 0 {
		return ""
	}
	lo, hi := slices.Min(s), slices.Max(s)
	out := fmt.Sprintf("%s (%s–%s)", fmtNS(median(s)), fmtNS(lo), fmtNS(hi))
	if m := r.medians[k]; len(m) > 0 {
		out += fmt.Sprintf("; median %s", fmtNS(median(m)))
	}
	if o := r.outcomes[k]; strings.HasPrefix(o, "refused") && !strings.HasPrefix(c, "miss") {
		out += " refused"
	}
	return out
}

func (r *peerResults) ratioCell(op, c, peer string) string {
	if o := r.outcomes[r.implKey(op, c, peer)]; strings.HasPrefix(o, "refused") && !strings.HasPrefix(c, "miss") {
		return "" // a refusal's time is no comparison
	}
	rs := r.ratios(op, c, peer)
	if len(rs) == 0 {
		return ""
	}
	return fmt.Sprintf("**%.1f×** (%.1f–%.1f)", medianF(rs), slices.Min(rs), slices.Max(rs))
}

// agreement says whether the implementations that applied an edit made the
// same bytes, and which refused.
func (r *peerResults) agreement(op, c string, impls []implementation) string {
	var applied []string
	shas := map[string]bool{}
	var refused []string
	for _, im := range impls {
		o, ok := r.outcomes[r.implKey(op, c, im.name)]
		switch {
		case !ok:
		case strings.HasPrefix(o, "applied:"):
			applied = append(applied, im.name)
			shas[o] = true
		case strings.HasPrefix(o, "refused"):
			refused = append(refused, im.name)
		}
	}
	var parts []string
	if len(applied) > 1 {
		if len(shas) == 1 {
			parts = append(parts, "same bytes")
		} else {
			parts = append(parts, "**different bytes**")
		}
	}
	if len(refused) > 0 {
		parts = append(parts, "refused: "+strings.Join(refused, ", "))
	}
	return strings.Join(parts, "; ")
}

// whatIsTimed says, per operation, what each side's timed call holds:
// the drivers (peerwork.go, peerdrivers/*.py) time exactly this and
// compute every outcome (a hash of the result) after the timed calls.
var whatIsTimed = []struct{ op, agentls, gptme, aider string }{
	{"ceiling", "memmove: copy of the 10 MB file into a kept buffer; indexbyte: bytes.IndexByte for a byte it lacks; xxh3-lines: strings.IndexByte per line + xxh3 of each line; render-floor: os.ReadFile + a minimal one-core render (renderFloor: lines found 8 bytes at a time, xxh3, a 6-character token, appends into a fresh buffer; no duplicate counting, no widening), going round the same 16 inputs as the anchors rows up to 100 KB; disk-floor: the system calls alone of a patch tool on disk (workDiskFloor: open, read, close the file, then replace: create a temporary file, write, close, rename it over the file, as agentls writes; in-place: open truncating, write, close, as gptme writes), the file put back untimed before each call", "", ""},
	{"parse-whole", "parse.ToolUses(reply) on the reply in memory", "list(ToolUse.iter_from_content(reply))", ""},
	{"parse-stream16", "a new parse.Parser fed the reply in 16-byte chunks, then Finish", "gptme's _reply_stream loop: append each character, re-parse the whole output with iter_from_content(streaming=True) at each newline", ""},
	{"patch", "edits.ParseConflict(block) + ResolveHunks + the whole new text written into a buffer kept from call to call (ApplyHunksTo); same bytes as the peers' result", "gptme.tools.patch.apply(block, content) → a new str", "find_original_update_blocks + do_replace → a new str"},
	{"patch-disk", "the CLI's patch tool: edittool.Batch over DiskSource (os.Root open, read) + Batch.Patch (parse, resolve) + edits.ApplyToDisk (re-read and compare, temporary file, write, rename; no fsync on ext4, the filesystem here, where the rename orders the data before it — it syncs on filesystems that do not, like xfs); the file put back untimed before each call", "execute_patch_impl(block, path) (what execute_patch runs once confirmed): read, apply, file_newline (a second read), write in place; the file put back untimed before each call", ""},
	{"small-edits", "16 × (ParseConflict + ApplyHunks → a new string), each on the last one's result; per patch", "16 × apply(block, content); per patch", "16 × (find_original_update_blocks + do_replace); per patch"},
	{"anchors-render", "os.ReadFile + anchored.RenderText of the whole file", "read tool's _read_one(path): read, decode, number the lines (hashline_edit is not loaded, so no [path#tag] header and no SHA-256 of the content: its plain numbered view)", ""},
	{"anchors-apply", "anchored afresh (the CLI's patch_anchored, and the server's on a text no kept view showed): anchored.ParseOps(8 ops as JSON) + anchored.Apply (the lines found, hashed and anchored again) → the new text", "hashline_edit._parse_operations(8 PUT ops) + _apply_operations → the new text (its tag check and write left out)", ""},
	{"anchors-apply-kept", "the server's patch_anchored on the text its view_anchored showed: the view rendered untimed through an anchored.Views, as the server keeps one per file; timed: anchored.ParseOps(8 ops as JSON) + Views.ApplyKept on a byte-identical copy of the text (another string, so the check that it is the text viewed compares it in full) + the ops resolved through the view's kept anchor table → the new text, the same bytes as anchors-apply", "its anchors-apply row, the same samples (there is one way: it has no table to keep)", ""},
}

func (r *peerResults) markdown(ops []peerOp, impls []implementation, cfg peersConfig, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Side by side with gptme and aider\n\n")
	fmt.Fprintf(&b, "Reproduce (needs Python 3 and PyPI, so it is not part of `go test`): `go run ./cmd/editbench peers -gen ../shared/research/peers-gen.py -venvs ~/.cache/agenteval/venvs -out BENCH.md`\n\n")
	fmt.Fprintf(&b, "gptme 0.35.1 and aider-chat 0.86.2 from PyPI, each in its own virtualenv; inputs from peers-gen.py (non-ASCII: the same file after one comment line with astral characters); a parse, anchors or render-floor case of at most 100 KB goes round %d inputs of its size (the generator's for the targets n … n+%d), one per timed call, so that a small row is not one input the branch predictor has learned. Each implementation runs in its own process on one core (agentls with GOMAXPROCS=1, as CPython is); a process calls each case once untimed, then calls it until the timed calls add up to %d ms (at least once), and reports the **mean** call (garbage collection and page faults included) and the median call; only the call is timed (below: what each side's timed call holds), outcomes are hashed after. Every cell is the median over %d rounds of the mean (min–max over rounds), with the median call beside it; each round runs every implementation once per operation, alternating which goes first. Ratios are peer ÷ agentls of the means within a round, median (min–max over rounds); slopes use each size's fastest round. Load average at the end: %s.\n\n", rotations, rotations-1, defaultBudget/1e6, cfg.rounds, load)
	b.WriteString("**Machine load.** This machine has 2 cores shared with other engineers compiling; absolute times swing between rounds (see the min–max), and only the same-run, round-by-round ratios are meant to be compared. An independent re-measurement on the same machine kind should agree on the ratios, not on the times.\n\n")
	b.WriteString("What is timed:\n\n| operation | agentls | gptme | aider |\n|---|---|---|---|\n")
	for _, w := range whatIsTimed {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", w.op, w.agentls, w.gptme, w.aider)
	}
	b.WriteString("\n| path | input | agentls mean (min–max) | MB/s | gptme mean (min–max) | × gptme | aider mean (min–max) | × aider | outcome |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, op := range ops {
		for _, c := range op.cases {
			a := r.samples[key(op.op, c.Name, "agentls")]
			if len(a) == 0 {
				continue
			}
			mbs := float64(op.bytes[c.Name]) / (float64(median(a)) / 1e9) / 1e6
			g := r.cell(op.op, c.Name, "gptme")
			if g == "" && impls[1].ops[op.op] && op.skip != nil && op.skip("gptme", c) != "" {
				g = "not run (quadratic)"
			}
			label := op.label
			if strings.HasPrefix(c.Name, "render-floor") {
				label += " (a reference, not a bound)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n", label, c.Name, r.cell(op.op, c.Name, "agentls"), mbs,
				g, r.ratioCell(op.op, c.Name, "gptme"), r.cell(op.op, c.Name, "aider"), r.ratioCell(op.op, c.Name, "aider"), r.agreement(op.op, c.Name, impls))
		}
	}
	b.WriteString("\n")
	b.WriteString(r.targets(ops))
	return b.String()
}

// targets checks issue #28's targets against this run: ratios of the
// means taken round by round.
func (r *peerResults) targets(ops []peerOp) string {
	bytesOf := map[string]int{}
	for _, op := range ops {
		for c, n := range op.bytes {
			bytesOf[op.op+"\x00"+c] = n
		}
	}
	fastest := func(op, c, impl string) float64 {
		s := r.samples[key(op, c, impl)]
		if len(s) == 0 {
			return math.NaN()
		}
		return float64(slices.Min(s))
	}
	ratio := func(op, c string) float64 {
		rs := r.ratios(op, c, "gptme")
		if len(rs) == 0 {
			return math.NaN()
		}
		return medianF(rs)
	}
	// within is agentls's time on case a ÷ case b, round by round (one
	// process ran both, one after the other), the median.
	within := func(opA, a, opB, b string) float64 {
		as, bs := r.samples[key(opA, a, "agentls")], r.samples[key(opB, b, "agentls")]
		var rs []float64
		for i := range min(len(as), len(bs)) {
			rs = append(rs, float64(as[i])/float64(bs[i]))
		}
		if len(rs) == 0 {
			return math.NaN()
		}
		return medianF(rs)
	}
	slope := func(op string, sizes []int) (string, float64) {
		lo, hi := nominal(sizes[0]), nominal(sizes[len(sizes)-1])
		x := math.Log(fastest(op, hi, "agentls")/fastest(op, lo, "agentls")) / math.Log(float64(bytesOf[op+"\x00"+hi])/float64(bytesOf[op+"\x00"+lo]))
		return lo + " → " + hi, x
	}
	var b strings.Builder
	b.WriteString("| target | measured (same-run ratios of the means) | met |\n|---|---|---|\n")
	row := func(target, measured string, ok bool) {
		mark := "yes"
		if !ok {
			mark = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", target, measured, mark)
	}
	// measure checks a ratio at each case; a case the peer refused (gptme's
	// read tool refuses a 10 MB file) has no ratio and is named as such.
	measure := func(op string, names, labels []string, want float64) (string, bool) {
		var ms []string
		ok := true
		for i, c := range names {
			if o := r.outcomes[r.implKey(op, c, "gptme")]; strings.HasPrefix(o, "refused") && !strings.HasPrefix(c, "miss") {
				ms = append(ms, labels[i]+" (gptme refuses it)")
				continue
			}
			x := ratio(op, c)
			ms = append(ms, fmt.Sprintf("%s %.2f×", labels[i], x))
			ok = ok && x >= want
		}
		return strings.Join(ms, ", "), ok
	}
	atLeast := func(target, op string, names, labels []string, want float64) {
		measured, ok := measure(op, names, labels, want)
		row(target, measured, ok)
	}
	for _, enc := range []string{"ASCII", "non-ASCII"} {
		var names, labels []string
		for _, n := range patchSizes {
			names = append(names, fmt.Sprintf("exact %s %s", nominal(n), enc))
			labels = append(labels, nominal(n))
		}
		atLeast("exact patch ≥ 2× gptme, "+enc, "patch", names, labels, 2)
		atLeast("patch tool on disk ≥ 2× gptme, "+enc, "patch-disk", names, labels, 2)
	}
	for _, enc := range []string{"ASCII", "non-ASCII"} {
		var names, labels []string
		for _, n := range patchSizes[1:] {
			names = append(names, fmt.Sprintf("miss %s %s", nominal(n), enc))
			labels = append(labels, nominal(n))
		}
		atLeast("miss ≥ 10× gptme at 1 MB and 10 MB, "+enc, "patch", names, labels, 10)
	}
	{
		var ms []string
		ok := true
		for _, n := range patchSizes {
			c := nominal(n) + " ASCII"
			x := within("patch", "relaxed "+c, "patch", "exact "+c)
			ms = append(ms, fmt.Sprintf("%s %.1f×", nominal(n), x))
			ok = ok && x <= 2
		}
		row("relaxed tier within 2× of the exact tier", strings.Join(ms, ", "), ok)
	}
	x := within("patch", "exact 16 hunks 10 MB ASCII", "patch", "exact 10 MB ASCII")
	row("16 hunks on 10 MB within 1.5× of one hunk", fmt.Sprintf("%.2f×", x), x <= 1.5)
	var names, labels []string
	for _, n := range anchorSizes {
		names = append(names, nominal(n))
		labels = append(labels, nominal(n))
	}
	// The target is the server's path: patch_anchored after the
	// view_anchored whose anchors the model copied resolves them through
	// the table that view kept. The CLI's path, anchoring afresh, is
	// shown beside it against the same 2×.
	atLeast("anchors apply ≥ 2× gptme's hashline_edit (the server's path: through the view's kept table, anchors-apply-kept)", "anchors-apply-kept", names, labels, 2)
	{
		measured, ok := measure("anchors-apply", names, labels, 2)
		mark := "reference: ≥ 2× at every size"
		if !ok {
			mark = "reference: under 2× at some size"
		}
		fmt.Fprintf(&b, "| anchors apply anchored afresh (the CLI's path, anchors-apply) beside gptme's hashline_edit, not the target | %s | %s |\n", measured, mark)
	}
	atLeast("anchors render ≥ 10× gptme's numbered view", "anchors-render", names, labels, 10)
	{
		var ms []string
		ok := true
		for _, n := range anchorSizes {
			x := within("anchors-render", nominal(n), "ceiling", floorCase(n))
			ms = append(ms, fmt.Sprintf("%s %.2f×", nominal(n), x))
			ok = ok && x <= 1.5
		}
		row("anchors render within 1.5× of the one-core render floor (same inputs, same rotation)", strings.Join(ms, ", "), ok)
	}
	for _, op := range []string{"anchors-render", "anchors-apply", "anchors-apply-kept"} {
		span, x := slope(op, anchorSizes)
		row(op+" log-log slope ≤ 1.05, "+span+" (fastest rounds)", fmt.Sprintf("%.3f", x), x <= 1.05)
	}
	for _, op := range []string{"parse-whole", "parse-stream16"} {
		var ms []string
		ok := true
		for _, n := range replySizes {
			x := ratio(op, nominal(n))
			if math.IsNaN(x) {
				continue
			}
			ms = append(ms, fmt.Sprintf("%s %.0f×", nominal(n), x))
			ok = ok && x >= 30
		}
		row(op+" ≥ 30× gptme", strings.Join(ms, ", "), ok)
		span, x := slope(op, replySizes[1:])
		row(op+" linear: log-log slope "+span+" (fastest rounds)", fmt.Sprintf("%.3f", x), x <= 1.05)
	}
	return b.String()
}

// writeSection replaces the part of file between <!-- editbench:name -->
// and <!-- /editbench:name --> with text, or appends it with the markers,
// so that each of editbench's reports can be regenerated without touching
// the others'.
func writeSection(file, name, text string) error {
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	open, end := "<!-- editbench:"+name+" -->\n", "<!-- /editbench:"+name+" -->\n"
	section := open + text + end
	s := string(old)
	i := strings.Index(s, open)
	j := strings.Index(s, end)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + section + s[j+len(end):]
	case i >= 0 || j >= 0:
		return fmt.Errorf("write %s: it has only one of the markers %q and %q; fix or remove it", file, strings.TrimSpace(open), strings.TrimSpace(end))
	default:
		if s != "" && !strings.HasSuffix(s, "\n\n") {
			s += "\n"
		}
		s += section
	}
	return os.WriteFile(file, []byte(s), 0o644)
}
