package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
)

// TestSpeedRowRefusesErrors: a timed row whose apply fails must fail the
// run, not report the error path's time as the apply's (editbench's 10 MB
// row once timed a hunk that matched twice in the concatenated files).
func TestSpeedRowRefusesErrors(t *testing.T) {
	text := "func a() {\n\treturn 1\n}\n"
	for _, tc := range []struct {
		name    string
		text    string
		h       edits.Hunk
		wantErr bool
		fails   bool
	}{
		{"ambiguous hunk timed as an apply", text + text, edits.Hunk{Original: []string{"\treturn 1"}, Updated: []string{"\treturn 2"}}, false, true},
		{"missing hunk timed as an apply", text, edits.Hunk{Original: []string{"\treturn 3"}, Updated: []string{"x"}}, false, true},
		{"an apply timed as a miss", text, edits.Hunk{Original: []string{"\treturn 1"}, Updated: []string{"\treturn 2"}}, true, true},
		{"an apply", text, edits.Hunk{Original: []string{"\treturn 1"}, Updated: []string{"\treturn 2"}}, false, false},
		{"a miss", text, edits.Hunk{Original: []string{"\treturn 3"}, Updated: []string{"x"}}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := timeOne(tc.name, tc.text, []edits.Hunk{tc.h}, tc.wantErr)
			if (err != nil) != tc.fails {
				t.Fatalf("timeOne: err = %v, want failure %v", err, tc.fails)
			}
		})
	}
}

// TestTimeHunksSkipsAmbiguousEdits: hunks drawn for a speed row from a
// text with a repeated block are drawn again until each resolves alone.
func TestTimeHunksSkipsAmbiguousEdits(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("// Copyright header\n// repeated in every file\n")
		for j := range 10 {
			b.WriteString("x" + strings.Repeat("y", i) + string(rune('a'+j)) + " := 1\n")
		}
	}
	for _, k := range []int{1, 16} {
		row, err := timeHunks(&rng{s: 3}, "t", b.String(), k)
		if err != nil {
			t.Fatalf("%d hunks: %v", k, err)
		}
		if row.hunks == 0 {
			t.Fatalf("%d hunks: none drawn", k)
		}
	}
}

// TestWriteSection: each report replaces its own section of BENCH.md and
// leaves the rest; a file with one marker of a pair is refused, unchanged.
func TestWriteSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "BENCH.md")
	steps := []struct {
		name, text string
		want       string
	}{
		{"full", "full 1\n", "<!-- editbench:full -->\nfull 1\n<!-- /editbench:full -->\n"},
		{"peers", "peers 1\n", "<!-- editbench:full -->\nfull 1\n<!-- /editbench:full -->\n\n<!-- editbench:peers -->\npeers 1\n<!-- /editbench:peers -->\n"},
		{"full", "full 2\n", "<!-- editbench:full -->\nfull 2\n<!-- /editbench:full -->\n\n<!-- editbench:peers -->\npeers 1\n<!-- /editbench:peers -->\n"},
	}
	for _, s := range steps {
		if err := writeSection(file, s.name, s.text); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(file)
		if string(got) != s.want {
			t.Fatalf("after writing %s:\n%s\nwant:\n%s", s.name, got, s.want)
		}
	}
	broken := "<!-- editbench:full -->\nno end marker\n"
	os.WriteFile(file, []byte(broken), 0o644)
	if err := writeSection(file, "full", "x\n"); err == nil || !strings.Contains(err.Error(), "only one of the markers") {
		t.Fatalf("a file with one marker: err = %v", err)
	}
	if got, _ := os.ReadFile(file); string(got) != broken {
		t.Fatalf("the refused file changed: %q", got)
	}
}

// TestPeerInputs: the inputs editbench adds beside the generator's apply
// with agentls as the peers' drivers are told they do, and the worker
// reports them in the drivers' format.
func TestPeerInputs(t *testing.T) {
	var f strings.Builder
	for i := range 400 {
		f.WriteString("func parse" + strings.Repeat("x", i%7) + string(rune('A'+i%26)) + itoa(i) + "(ctx context.Context) error {\n\tif err := step(ctx); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n")
	}
	text := f.String()
	// 16 hunks in one patch, and 16 one-line patches one after the other.
	if _, err := applyPatch(sixteenHunks(text), text); err != nil {
		t.Fatalf("16 hunks: %v", err)
	}
	blocks := strings.Split(smallEdits(text, 16), smallEditSep)
	if len(blocks) != 16 {
		t.Fatalf("%d small edits, want 16", len(blocks))
	}
	cur := text
	for i, b := range blocks {
		var err error
		if cur, err = applyPatch(b, cur); err != nil {
			t.Fatalf("small edit %d: %v", i+1, err)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f.go")
	os.WriteFile(file, []byte(text), 0o644)
	patch := filepath.Join(dir, "p.txt")
	os.WriteFile(patch, []byte(sixteenHunks(text)), 0o644)
	miss := filepath.Join(dir, "miss.txt")
	os.WriteFile(miss, []byte("<<<<<<< ORIGINAL\nnowhere\n=======\nx\n>>>>>>> UPDATED"), 0o644)
	cases, _ := json.Marshal([]peerCase{{Name: "hit", File: file, Patch: patch, Budget: 1}, {Name: "miss", File: file, Patch: miss, Budget: 1}})
	cf := filepath.Join(dir, "cases.json")
	os.WriteFile(cf, cases, 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"peer-worker", "patch", cf}, &out, &errb); code != 0 {
		t.Fatalf("peer-worker: exit %d: %s", code, errb.String())
	}
	var got []peerResult
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r peerResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not a result: %q", l)
		}
		got = append(got, r)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0].Outcome, "applied:") || !strings.HasPrefix(got[1].Outcome, "refused: ") || got[0].NS <= 0 || got[0].Median <= 0 {
		t.Fatalf("results: %+v", got)
	}
	// The patch tool on disk makes the same bytes, on its own copy of the
	// file, which it leaves as it was.
	work := filepath.Join(dir, "work")
	cases, _ = json.Marshal([]peerCase{{Name: "hit", File: file, Patch: patch, Budget: 1, Work: work}, {Name: "miss", File: file, Patch: miss, Budget: 1, Work: work}})
	os.WriteFile(cf, cases, 0o644)
	out.Reset()
	if code := run([]string{"peer-worker", "patch-disk", cf}, &out, &errb); code != 0 {
		t.Fatalf("peer-worker patch-disk: exit %d: %s", code, errb.String())
	}
	for i, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r peerResult
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Outcome != got[i].Outcome && !(i == 1 && strings.HasPrefix(r.Outcome, "refused: ")) {
			t.Errorf("patch-disk %d: %q, want the outcome %q", i, l, got[i].Outcome)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != text {
		t.Error("the input file changed")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestPeerWorkerRotates: a case with inputs to go round times them all
// (a bad one fails the case) and reports the outcome of its own input,
// not of the last one timed.
func TestPeerWorkerRotates(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.md", "Saving.\n\n```save a.txt\nx\n```\n")
	two := write("two.md", "Two.\n\n```save a.txt\nx\n```\n\n```save b.txt\ny\n```\n")
	runWorker := func(op string, cases []peerCase) ([]peerResult, error) {
		data, _ := json.Marshal(cases)
		cf := write(op+"-cases.json", string(data))
		var out, errb bytes.Buffer
		if code := run([]string{"peer-worker", op, cf}, &out, &errb); code != 0 {
			return nil, fmt.Errorf("exit %d: %s", code, errb.String())
		}
		var got []peerResult
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var r peerResult
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				return nil, fmt.Errorf("not a result: %q", l)
			}
			got = append(got, r)
		}
		return got, nil
	}
	for _, op := range []string{"parse-whole", "parse-stream16"} {
		got, err := runWorker(op, []peerCase{{Name: "c", Reply: one, Budget: 1_000_000, Rotate: []peerCase{{Reply: two}, {Reply: two}}}})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if len(got) != 1 || got[0].Outcome != "parsed:1" || got[0].NS <= 0 {
			t.Errorf("%s: %+v, want the case's own outcome parsed:1", op, got)
		}
	}
	if _, err := runWorker("parse-whole", []peerCase{{Name: "c", Reply: one, Rotate: []peerCase{{Reply: filepath.Join(dir, "missing.md")}}}}); err == nil {
		t.Error("a rotation input that cannot be read was not refused")
	}
	var f strings.Builder
	for i := range 40 {
		fmt.Fprintf(&f, "func f%d() {\n\treturn\n}\n\n", i)
	}
	a := write("a.go", f.String())
	b := write("b.go", strings.ReplaceAll(f.String(), "return", "panic(0)"))
	lines := []int{1, 5, 9}
	want := f.String()
	for _, l := range lines {
		old := strings.Split(f.String(), "\n")[l-1]
		want = strings.Replace(want, old+"\n", old+anchorsEdit+"\n", 1)
	}
	// Afresh and through the view's kept table: the same bytes.
	for _, op := range []string{"anchors-apply", "anchors-apply-kept"} {
		got, err := runWorker(op, []peerCase{{Name: "c", File: a, Lines: lines, Budget: 1_000_000, Rotate: []peerCase{{File: b, Lines: lines}}}})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if len(got) != 1 || got[0].Outcome != "applied:"+sha(want) {
			t.Errorf("%s: %+v, want the case's own result", op, got)
		}
	}
}

// TestKeptApplySetBesideGptme: the anchors-apply-kept row, which gptme
// does not run, is set beside gptme's anchors-apply samples of the same
// rounds, and the 2× target is checked on it; the fresh row stays, as a
// reference.
func TestKeptApplySetBesideGptme(t *testing.T) {
	fresh := peerOp{op: "anchors-apply", label: "fresh", bytes: map[string]int{}}
	kept := peerOp{op: "anchors-apply-kept", label: "kept", bytes: map[string]int{}, peersOf: fresh.op}
	for _, n := range anchorSizes {
		c := peerCase{Name: nominal(n)}
		fresh.cases, kept.cases = append(fresh.cases, c), append(kept.cases, c)
		fresh.bytes[c.Name], kept.bytes[c.Name] = n, n
	}
	ops := []peerOp{fresh, kept}
	r := newPeerResults(ops)
	for _, n := range anchorSizes {
		c := nominal(n)
		for round := range 3 {
			ns := int64(n) / 10 // gptme: 10 bytes/ns
			r.add(fresh.op, c, "gptme", ns, ns, "applied:x")
			r.add(fresh.op, c, "agentls", ns*2/3, ns*2/3, "applied:x") // 1.5×
			r.add(kept.op, c, "agentls", ns/(4+int64(round)), ns/4, "applied:x")
		}
	}
	targets := r.targets(ops)
	for _, want := range []string{
		"| anchors apply ≥ 2× gptme's hashline_edit (the server's path: through the view's kept table, anchors-apply-kept) | 10 KB 5.00×, 100 KB 5.00×, 1 MB 5.00×, 10 MB 5.00× | yes |",
		"(the CLI's path, anchors-apply) beside gptme's hashline_edit, not the target | 10 KB 1.50×, 100 KB 1.50×, 1 MB 1.50×, 10 MB 1.50× | reference: under 2× at some size |",
	} {
		if !strings.Contains(targets, want) {
			t.Errorf("the targets lack\n%s\nin\n%s", want, targets)
		}
	}
	impls := []implementation{{name: "agentls", ops: map[string]bool{fresh.op: true, kept.op: true}}, {name: "gptme", ops: map[string]bool{fresh.op: true}}}
	md := r.markdown(ops, impls, peersConfig{rounds: 3}, "0")
	if !strings.Contains(md, "| kept | 10 MB | ") || !strings.Contains(md, "| **5.0×** (4.0–6.0) |") || !strings.Contains(md, "| same bytes |") {
		t.Errorf("the kept row is not set beside gptme's:\n%s", md)
	}
	if !strings.Contains(md, "| anchors-apply-kept | ") {
		t.Error("what is timed does not say what the kept row holds")
	}
}

// TestRenderFloor: the floor writes each line after a token as long as
// the real view's shortest, so its rate is comparable, and no more than
// the view does (which writes a longer token for a line repeated past
// widening); it keeps nothing from call to call.
func TestRenderFloor(t *testing.T) {
	const token = len("xxxxxx│ ")
	for _, text := range []string{"x\n", "a\nb\na\n", "func f() {\n\treturn\n}\n\n}\n", "no newline", strings.Repeat("}\n\n\treturn nil\n", 1000)} {
		view, err := anchored.RenderText(text, 0, 0, anchored.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
		for call := range 2 {
			if got := len(renderFloor(text)); got != len(text)+lines*token || got > len(view) {
				t.Errorf("%.20q… (%d lines), call %d: the floor wrote %d bytes, want %d, at most the view's %d", text, lines, call, got, len(text)+lines*token, len(view))
			}
		}
	}
}

// TestDiskFloor: the disk floors write the file changed by one byte, in
// their own folder under the work folder, each way, and leave the input
// as it was.
func TestDiskFloor(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the disk floor is measured on Linux only")
	}
	dir := t.TempDir()
	text := strings.Repeat("package a\n", 1000)
	file := filepath.Join(dir, "f.go")
	os.WriteFile(file, []byte(text), 0o644)
	work := filepath.Join(dir, "work")
	cases, _ := json.Marshal([]peerCase{{Name: "disk-floor replace 10 KB", File: file, Budget: 1, Work: work}, {Name: "disk-floor in-place 10 KB", File: file, Budget: 1, Work: work}})
	cf := filepath.Join(dir, "cases.json")
	os.WriteFile(cf, cases, 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"peer-worker", "ceiling", cf}, &out, &errb); code != 0 {
		t.Fatalf("peer-worker ceiling: exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("results: %q", out.String())
	}
	for _, l := range lines {
		var r peerResult
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Outcome != "wrote:"+itoa(len(text)) || r.NS <= 0 {
			t.Errorf("result %q", l)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != text {
		t.Error("the input file changed")
	}
}
