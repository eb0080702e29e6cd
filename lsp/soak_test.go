package lsp_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// soakFull makes TestSoak run at full size: go test ./lsp -run TestSoak -args -soak
var soakFull = flag.Bool("soak", false, "run TestSoak at full size (1,000 applies, 200 agent turns, bursts of 50 concurrent applies)")

// soakProfiles, if set, is a folder TestSoak writes heap profiles to, at
// the start, after each round and at the end (go tool pprof -base
// start.heap end.heap shows what grew), with every allocation sampled.
var soakProfiles = flag.String("soak.profiles", "", "folder for TestSoak's heap profiles (start.heap, round-NN.heap, end.heap)")

// A soakSize is how much work one session of TestSoak does: rounds of
// sequential applies, agent turns and one burst of concurrent applies.
type soakSize struct {
	rounds     int
	applies    int // sequential agentls.applyReply per round
	turns      int // agent turns per round
	concurrent int // applies at once in each round's burst
}

func (z soakSize) ops() int { return z.applies + z.turns + z.concurrent }

// Bounds on growth between the warmed-up start and the end of the soak.
const (
	soakGoroutineSlack = 20
	soakFDSlack        = 10
	// soakHeapSlack is what the heap may grow whatever the length of the
	// session: caches filling, the journal reaching its bound (200 edits).
	soakHeapSlack = 4 << 20
	// soakHeapPerOp is what the heap may grow per operation beyond what
	// the harness itself holds (the fake editor's messages, logs and
	// buffers, the fake model's requests), which is measured and taken
	// off. With every finished job kept (3.6 KB each here) the slope was
	// 522 B/op at full size; with procs/jobs bounded (50 finished jobs)
	// it is about 100 B/op, the whole growth about 200 B/op.
	soakHeapPerOp = 256
	// soakSettle bounds the wait for goroutines, descriptors and processes
	// to go back to their start after the work (a bg job's 0.1 s sleep, a
	// didChange on its way).
	soakSettle = 20 * time.Second
)

// TestSoak runs one long session against the real server — applies of
// multi-file replies (a patch to an open buffer, a new file, a patch to a
// file not open), agent turns that patch, run commands and start a bg job,
// bursts of concurrent applies on different files — and fails when the
// heap, the goroutines, the open descriptors or the child processes grow
// beyond the bounds above between the warmed-up start and the end, or when
// any process a command started is left once the session is over. Not in
// parallel: it counts the process's heap, goroutines, descriptors and
// children, which other tests' servers would add to.
func TestSoak(t *testing.T) {
	size := soakSize{rounds: 2, applies: 30, turns: 5, concurrent: 10}
	if *soakFull {
		size = soakSize{rounds: 10, applies: 100, turns: 20, concurrent: 50}
	}
	warmup := soakSize{rounds: 1, applies: 10, turns: 2, concurrent: size.concurrent}
	start := time.Now()
	// The heap profile tells the harness's allocations from the server's:
	// one sample per 4 KB allocated (every allocation for -soak.profiles).
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 4096
	if *soakProfiles != "" {
		runtime.MemProfileRate = 1
	}
	beforeSession := soakProcesses(t)
	s := startSoak(t, size, warmup)
	for range warmup.rounds {
		s.round(warmup)
	}
	base := s.sample("start")
	writeHeapProfile(t, "start.heap")
	var samples []soakSample
	for range size.rounds {
		s.round(size)
		samples = append(samples, s.sample(fmt.Sprintf("round %d", len(samples)+1)))
		writeHeapProfile(t, fmt.Sprintf("round-%02d.heap", len(samples)))
	}
	end := s.settle(base)
	writeHeapProfile(t, "end.heap")

	ops := size.rounds * size.ops()
	heapGrowth := int64(end.heapAlloc) - int64(base.heapAlloc)
	harnessGrowth := int64(end.harness) - int64(base.harness)
	serverGrowth := heapGrowth - harnessGrowth
	t.Logf("size: %d rounds of %d applies, %d agent turns and %d applies at once (%d operations, %d concurrent) after a warm-up of %d, %d and %d",
		size.rounds, size.applies, size.turns, size.concurrent, ops, size.rounds*size.concurrent, warmup.applies, warmup.turns, warmup.concurrent)
	t.Logf("heap (live, after GC): %s at the start, %s at the end: %+.2f MB, of which the harness's own %+.2f MB; the rest %+.2f MB (%.0f B/op)",
		mb(base.heapAlloc), mb(end.heapAlloc), float64(heapGrowth)/(1<<20), float64(harnessGrowth)/(1<<20), float64(serverGrowth)/(1<<20), float64(serverGrowth)/float64(ops))
	if len(samples) >= 4 {
		half := samples[len(samples)/2-1:]
		slope := soakSlope(half, size.ops())
		t.Logf("heap growth fitted over rounds %d-%d (less the harness's): %.0f B/op", len(samples)-len(half)+1, len(samples), slope)
		if slope > soakHeapPerOp {
			t.Errorf("the heap grows %.0f B per operation in the second half of the session, more than %d", slope, soakHeapPerOp)
		}
	}
	t.Logf("goroutines: %d at the start, %d at the end", base.goroutines, end.goroutines)
	t.Logf("open descriptors: %d at the start, %d at the end", base.fds, end.fds)
	t.Logf("child processes: %d at the start %v, %d at the end %v", len(base.children), describeProcs(base.children), len(end.children), describeProcs(end.children))
	if limit := int64(soakHeapSlack + soakHeapPerOp*ops); serverGrowth > limit {
		t.Errorf("the heap grew %.2f MB (less the harness's) over %d operations, more than %.2f MB", float64(serverGrowth)/(1<<20), ops, float64(limit)/(1<<20))
	}
	if end.goroutines > base.goroutines+soakGoroutineSlack {
		t.Errorf("goroutines grew from %d to %d (bound +%d); those running:\n%s", base.goroutines, end.goroutines, soakGoroutineSlack, goroutineDump())
	}
	if end.fds > base.fds+soakFDSlack {
		t.Errorf("open descriptors grew from %d to %d (bound +%d): %s", base.fds, end.fds, soakFDSlack, strings.Join(openFDs(), ", "))
	}
	if extra := newProcs(base.children, end.children); len(extra) > 0 {
		t.Errorf("child processes left after the work settled: %v", describeProcs(extra))
	}

	// Once the session is over, nothing it started may be left: no child,
	// nothing in a session one of its children led, none of the processes
	// the commands and jobs recorded.
	s.e.Shutdown()
	var left []string
	soakAwait(soakSettle, func() bool {
		left = s.leftProcesses(beforeSession)
		return len(left) == 0
	})
	if len(left) > 0 {
		t.Errorf("processes left after the session ended: %s", strings.Join(left, "; "))
	}
	cmds, bgs := s.recorded()
	t.Logf("processes the commands recorded: %d shell commands, %d bg jobs; none left: %v", cmds, bgs, len(left) == 0)
	if cmds != s.turns || bgs != s.turns {
		t.Errorf("the commands recorded %d shell and %d bg processes, want %d each (one per turn)", cmds, bgs, s.turns)
	}
	t.Logf("wall time: %s", time.Since(start).Round(time.Millisecond))
}

// TestSoakRequestsHoldNothing: answered requests leave nothing behind.
// Editors send one codeAction request per cursor move, so what each
// keeps adds up over a day: jsonrpc2 v0.10's CancelHandler derived a
// context per request from the session's and never cancelled it, which
// kept every answered request registered with the session (about 130
// bytes each, for as long as the session lasted). Not in parallel: it
// measures the process's live heap.
func TestSoakRequestsHoldNothing(t *testing.T) {
	const requests = 2000
	const bound = 64 << 10 // 32 bytes a request: a fixed 32 KB seen at any count, not a leak
	root := writeFiles(t, map[string]string{"a.go": "package p\n\nvar applied = 0\n"})
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	ask := func(n int) {
		for range n {
			e.CodeActions("a.go", protocol.Range{End: protocol.Position{Line: 1}})
		}
	}
	ask(200) // warm-up: pools, caches, the document's first join
	before := liveHeap()
	ask(requests)
	after := liveHeap()
	growth := int64(after) - int64(before)
	t.Logf("live heap: %s before %d codeAction requests, %s after (%+d B, %.1f B a request)", mb(before), requests, mb(after), growth, float64(growth)/requests)
	if growth > bound {
		t.Errorf("%d answered requests left %d bytes on the heap (%.0f each), more than %d in all", requests, growth, float64(growth)/requests, bound)
	}
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A soakSession is the editor, the model and the counts of what was done.
type soakSession struct {
	t     *testing.T
	e     *lsptest.Editor
	model *modeltest.Server
	root  string

	seq      int // sequential applies done
	reported int // applies the server reported applied
	turns    int // agent turns done
	bursts   int
	sessions map[int]bool // session ids our children led, seen in samples
}

// startSoak writes the workspace, starts the server with commands allowed
// unasked and opens the buffers (the model comes with each round).
func startSoak(t *testing.T, size, warmup soakSize) *soakSession {
	files := map[string]string{
		"a.go":    "package p\n\nvar applied = 0\n",
		"b.go":    "package p\n\nvar alsoApplied = 0\n",
		"turn.go": "package p\n\nvar turns = 0\n",
	}
	for i := range max(size.concurrent, warmup.concurrent) {
		files[fmt.Sprintf("c%02d.go", i)] = "package p\n\nvar c = 0\n"
	}
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"approvalPolicy": "allow", "saveDocuments": true}), lsptest.SavesDocuments())
	e.OpenFile("a.go", "go")
	e.OpenFile("turn.go", "go")
	for i := range max(size.concurrent, warmup.concurrent) {
		if i%2 == 0 { // half the burst's files are open buffers
			e.OpenFile(fmt.Sprintf("c%02d.go", i), "go")
		}
	}
	s := &soakSession{t: t, e: e, root: e.Root, sessions: map[int]bool{}}
	t.Cleanup(func() {
		if s.model != nil {
			s.model.Close()
		}
	})
	return s
}

// scriptTurns points the server at a fake model scripted for the next n
// turns, and closes the one before. A model per round keeps what the fake
// model records of its requests (some 30 KB a turn) to one round's, the
// same at every sample; connections a turn leaves open still show, since
// each round is measured before its model is closed.
func (s *soakSession) scriptTurns(n int) {
	var replies []modeltest.Reply
	for k := s.turns + 1; k <= s.turns+n; k++ {
		replies = append(replies,
			modeltest.Text(fmt.Sprintf("```patch turn.go\n<<<<<<< ORIGINAL\nvar turns = %d\n=======\nvar turns = %d\n>>>>>>> UPDATED\n```\n", k-1, k), 64),
			// Each process records its /proc stat line (pid and start
			// time), so the end can tell it from a later process that got
			// the same pid.
			modeltest.Text("```shell\n"+
				"sh -c 'read l < /proc/$$/stat; echo \"$l\" >> cmd.pids'\n"+
				"echo hi > out.txt\n"+
				"bg sh -c 'read l < /proc/$$/stat; echo \"$l\" >> bg.pids; exec sleep 0.1'\n"+
				"```\n", 64),
			modeltest.Text("Done.", 64),
		)
	}
	if s.model != nil {
		s.model.Close()
	}
	s.model = modeltest.New(replies...) // closed by the next, or startSoak's cleanup
	s.e.ChangeSettings(map[string]any{"agentls": map[string]any{"model": "m", "baseUrl": s.model.URL}})
}

// round does one round of work of a size, each step awaited.
func (s *soakSession) round(size soakSize) {
	s.t.Helper()
	for range size.applies {
		s.apply()
	}
	s.scriptTurns(size.turns)
	for range size.turns {
		s.turn()
	}
	s.burst(size.concurrent)
}

// apply applies one three-file reply and waits for the server's report.
func (s *soakSession) apply() {
	s.t.Helper()
	s.seq++
	k := s.seq
	reply := fmt.Sprintf("```patch a.go\n<<<<<<< ORIGINAL\nvar applied = %d\n=======\nvar applied = %d\n>>>>>>> UPDATED\n```\n\n"+
		"```save gen/f%04d.go\npackage gen\n```\n\n"+
		"```patch b.go\n<<<<<<< ORIGINAL\nvar alsoApplied = %d\n=======\nvar alsoApplied = %d\n>>>>>>> UPDATED\n```\n", k-1, k, k, k-1, k)
	if err := s.e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
		s.t.Fatalf("apply %d: %v", k, err)
	}
	s.awaitApplied(1, lsptest.BufferContent("a.go", fmt.Sprintf("package p\n\nvar applied = %d\n", k)))
}

// turn runs one agent turn (a patch, a shell block with a bg job, the
// last words) and waits until it is done.
func (s *soakSession) turn() {
	s.t.Helper()
	s.turns++
	// Applies are turns too: the id is the one agentls.ask returns.
	var started struct{ Turn int }
	if err := s.e.Call("workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "bump the turn count and run the checks"}}}, &started); err != nil {
		s.t.Fatalf("turn %d: %v", s.turns, err)
	}
	s.e.Await(
		lsptest.ShownMessage(fmt.Sprintf("agent turn %d done (", started.Turn)),
		lsptest.BufferContent("turn.go", fmt.Sprintf("package p\n\nvar turns = %d\n", s.turns)),
		// The first error ends the soak at once, with what the editor saw.
		lsptest.NoShownMessageOfType(protocol.MessageTypeError),
	)
}

// burst applies n replies at once, each to its own file, and waits for
// them all.
func (s *soakSession) burst(n int) {
	s.t.Helper()
	s.bursts++
	r := s.bursts
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			reply := fmt.Sprintf("```patch c%02d.go\n<<<<<<< ORIGINAL\nvar c = %d\n=======\nvar c = %d\n>>>>>>> UPDATED\n```\n", i, r-1, r)
			if err := s.e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
				errs <- fmt.Errorf("concurrent apply to c%02d.go: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		s.t.Fatal(err)
	}
	s.awaitApplied(n)
}

// awaitApplied waits for n more "applied" reports, and what else is
// given.
func (s *soakSession) awaitApplied(n int, also ...lsptest.Expectation) {
	s.t.Helper()
	s.reported += n
	s.e.Await(append(also,
		lsptest.ShownMessages(s.reported, "agentls: applied "),
		// The first error ends the soak at once, with what the editor saw
		// (the output channel's last lines among it).
		lsptest.NoShownMessageOfType(protocol.MessageTypeError),
	)...)
}

// A soakSample is the process's figures at one point.
type soakSample struct {
	heapAlloc  uint64 // live heap after a GC
	harness    uint64 // of it, what the fake editor and model hold (harnessHeap)
	goroutines int
	fds        int
	children   map[int]procStat // our descendants, by pid
}

// sample measures once the goroutines and processes of the work just done
// have had a chance to end (a bg job's sleep, a didChange on its way).
func (s *soakSession) sample(label string) soakSample {
	s.t.Helper()
	s.awaitRecordedGone()
	m := s.measure()
	s.t.Logf("%s: heap %s (the harness's %s), %d goroutines, %d descriptors, %d child processes",
		label, mb(m.heapAlloc), mb(m.harness), m.goroutines, m.fds, len(m.children))
	var warnings []string
	for _, msg := range s.e.Messages() {
		if msg.Type == protocol.MessageTypeWarning {
			warnings = append(warnings, msg.Message)
		}
	}
	if len(warnings) > 0 {
		s.t.Logf("%s: %d warnings shown so far, the first: %s", label, len(warnings), warnings[0])
	}
	return m
}

// awaitRecordedGone waits until every process the commands and bg jobs
// recorded has ended: a bg job's sleep outlives its turn by 0.1 s.
func (s *soakSession) awaitRecordedGone() {
	s.t.Helper()
	var running []string
	ok := soakAwait(soakSettle, func() bool {
		all := soakProcesses(s.t)
		running = running[:0]
		for _, name := range []string{"cmd.pids", "bg.pids"} {
			for _, r := range s.recordedFile(name) {
				if p, ok := all[r.pid]; ok && p.start == r.start {
					running = append(running, p.String())
				}
			}
		}
		return len(running) == 0
	})
	if !ok {
		s.t.Errorf("processes the commands started still run %s after their turn: %v", soakSettle, running)
	}
}

// settle waits until goroutines, descriptors and child processes are
// back within bounds of base (or soakSettle passed) and measures.
func (s *soakSession) settle(base soakSample) soakSample {
	var m soakSample
	soakAwait(soakSettle, func() bool {
		m = s.measureCounts()
		return m.goroutines <= base.goroutines+soakGoroutineSlack && m.fds <= base.fds+soakFDSlack && len(newProcs(base.children, m.children)) == 0
	})
	return s.measure()
}

func (s *soakSession) measure() soakSample {
	heap := liveHeap()
	m := s.measureCounts()
	m.heapAlloc = heap
	m.harness = harnessHeap()
	return m
}

func (s *soakSession) measureCounts() soakSample {
	m := soakSample{goroutines: runtime.NumGoroutine(), fds: countFDs(s.t)}
	m.children = descendants(soakProcesses(s.t), os.Getpid())
	for _, p := range m.children {
		if p.sid != p.pid {
			continue
		}
		s.sessions[p.sid] = true
	}
	return m
}

// harnessHeap is the live heap the harness allocated — the fake editor's
// records and buffers, the fake model's requests — from the heap profile:
// the samples whose stack passes through lsptest or modeltest, scaled up
// by their sampling rate as pprof does. Call it after liveHeap (the
// profile is as of the last collections).
func harnessHeap() uint64 {
	var recs []runtime.MemProfileRecord
	for n := 1024; ; n *= 2 {
		recs = make([]runtime.MemProfileRecord, n)
		if got, ok := runtime.MemProfile(recs, false); ok {
			recs = recs[:got]
			break
		}
	}
	rate := float64(runtime.MemProfileRate)
	var total float64
	for _, r := range recs {
		if r.InUseObjects() == 0 || !harnessStack(r.Stack()) {
			continue
		}
		scale := 1.0
		if rate > 1 {
			avg := float64(r.AllocBytes) / float64(r.AllocObjects)
			scale = 1 / (1 - math.Exp(-avg/rate))
		}
		total += float64(r.InUseBytes()) * scale
	}
	return uint64(total)
}

// harnessStack reports whether an allocation was made by the fake editor
// or the fake model.
func harnessStack(stack []uintptr) bool {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "/lsp/lsptest.") || strings.Contains(f.Function, "/agent/modeltest.") {
			return true
		}
		if !more {
			return false
		}
	}
}

// soakSlope fits the heap, less the harness's records, against operations
// done (least squares) and returns bytes per operation.
func soakSlope(samples []soakSample, opsPerRound int) float64 {
	var sx, sy, sxx, sxy float64
	for i, m := range samples {
		x := float64(i * opsPerRound)
		y := float64(int64(m.heapAlloc) - int64(m.harness))
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	n := float64(len(samples))
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// recorded counts the processes the commands and bg jobs recorded.
func (s *soakSession) recorded() (cmds, bgs int) {
	return len(s.recordedFile("cmd.pids")), len(s.recordedFile("bg.pids"))
}

func (s *soakSession) recordedFile(name string) []procStat {
	data, err := os.ReadFile(filepath.Join(s.root, name))
	if err != nil {
		s.t.Errorf("the commands' pids: %v", err)
		return nil
	}
	var ps []procStat
	for line := range strings.Lines(string(data)) {
		p, err := parseProcStat(strings.TrimSpace(line))
		if err != nil {
			s.t.Errorf("%s: %v", name, err)
			continue
		}
		ps = append(ps, p)
	}
	return ps
}

// leftProcesses names what is left of the session: our descendants not
// there before it, processes in a session one of them led, and recorded
// processes still there (the same pid and start time).
func (s *soakSession) leftProcesses(before map[int]procStat) []string {
	all := soakProcesses(s.t)
	var left []string
	children := descendants(all, os.Getpid())
	for pid, p := range children {
		if _, ok := before[pid]; !ok {
			left = append(left, "child "+p.String())
		}
	}
	for _, p := range all {
		if _, child := children[p.pid]; s.sessions[p.sid] && !child {
			left = append(left, fmt.Sprintf("in session %d: %s", p.sid, p))
		}
	}
	for _, name := range []string{"cmd.pids", "bg.pids"} {
		for _, r := range s.recordedFile(name) {
			if p, ok := all[r.pid]; ok && p.start == r.start {
				left = append(left, fmt.Sprintf("recorded in %s: %s", name, p))
			}
		}
	}
	slices.Sort(left)
	return slices.Compact(left)
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	pid, ppid, pgrp, sid int
	state                string
	comm                 string
	start                uint64 // clock ticks after boot
}

func (p procStat) String() string {
	return fmt.Sprintf("%d %s (%s, parent %d, session %d)", p.pid, p.comm, p.state, p.ppid, p.sid)
}

// parseProcStat reads a /proc/PID/stat line: the command name is in
// parentheses and may hold spaces and parentheses itself.
func parseProcStat(line string) (procStat, error) {
	open, closing := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || closing < open {
		return procStat{}, fmt.Errorf("not a stat line: %q", line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return procStat{}, fmt.Errorf("stat line %q: pid: %w", line, err)
	}
	f := strings.Fields(line[closing+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("stat line %q: %d fields after the name, want 20 or more", line, len(f))
	}
	p := procStat{pid: pid, comm: line[open+1 : closing], state: f[0]}
	for i, v := range []*int{&p.ppid, &p.pgrp, &p.sid} {
		if *v, err = strconv.Atoi(f[1+i]); err != nil {
			return procStat{}, fmt.Errorf("stat line %q: field %d: %w", line, 5+i, err)
		}
	}
	if p.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("stat line %q: start time: %w", line, err)
	}
	return p, nil
}

// soakProcesses reads every process on the machine.
func soakProcesses(t *testing.T) map[int]procStat {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to count processes: %v", err)
	}
	all := map[int]procStat{}
	for _, en := range entries {
		if _, err := strconv.Atoi(en.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", en.Name(), "stat"))
		if err != nil {
			continue // it ended meanwhile
		}
		if p, err := parseProcStat(strings.TrimSpace(string(data))); err == nil {
			all[p.pid] = p
		}
	}
	return all
}

// descendants returns the processes whose chain of parents leads to pid.
func descendants(all map[int]procStat, pid int) map[int]procStat {
	children := map[int][]int{}
	for _, p := range all {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	found := map[int]procStat{}
	queue := children[pid]
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if _, seen := found[c]; seen {
			continue
		}
		found[c] = all[c]
		queue = append(queue, children[c]...)
	}
	return found
}

// newProcs returns the processes of after not in before (by pid and start
// time).
func newProcs(before, after map[int]procStat) map[int]procStat {
	extra := map[int]procStat{}
	for pid, p := range after {
		if b, ok := before[pid]; !ok || b.start != p.start {
			extra[pid] = p
		}
	}
	return extra
}

func describeProcs(ps map[int]procStat) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	slices.Sort(out)
	return out
}

func countFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd to count descriptors: %v", err)
	}
	return len(entries)
}

// openFDs names what each open descriptor is.
func openFDs() []string {
	entries, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, en := range entries {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", en.Name()))
		out = append(out, en.Name()+"→"+target)
	}
	return out
}

// writeHeapProfile writes the heap profile to name in -soak.profiles, if
// set.
func writeHeapProfile(t *testing.T, name string) {
	t.Helper()
	if *soakProfiles == "" {
		return
	}
	runtime.GC()
	var b bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
		t.Fatalf("heap profile: %v", err)
	}
	path := filepath.Join(*soakProfiles, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatalf("heap profile: %v", err)
	}
	t.Logf("heap profile: %s", path)
}

func goroutineDump() string {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	return b.String()
}

// soakAwait polls cond until it holds or the deadline passes; what it
// waits for (processes, goroutines) sends no event to wait on.
func soakAwait(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

func mb(n uint64) string { return fmt.Sprintf("%.2f MB", float64(n)/(1<<20)) }
