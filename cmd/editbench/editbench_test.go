package main

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSmoke runs the smoke profile, as CI does: no case may be applied
// wrongly, damage bytes outside its lines, or leave a partial write.
func TestSmoke(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-profile", "smoke", "-out", filepath.Join(t.TempDir(), "BENCH.md")}, &out, &errb)
	if code != 0 {
		t.Fatalf("editbench failed (exit %d): %s\n%s", code, errb.String(), out.String())
	}
	if !strings.Contains(out.String(), "| **all** |") {
		t.Errorf("no summary row:\n%s", out.String())
	}
}

// TestScore keeps the oracle honest: it must call a wrong apply wrong.
func TestScore(t *testing.T) {
	tc := testCase{expect: expectApply, disk: "a\nb\nc\n", target: "a\nB\nc\n", region: [2]int{2, 4}}
	for _, x := range []struct {
		out  string
		want outcome
	}{
		{"a\nB\nc\n", success},
		{"a\nb\nc\n", safeFail},
		{"a\nX\nc\n", wrongApply},
		{"A\nB\nc\n", collateral},
	} {
		var err error
		if x.out == tc.disk {
			err = errBench
		}
		if got := tc.score(err, x.out).outcome; got != x.want {
			t.Errorf("score(%q) = %v, want %v", x.out, got, x.want)
		}
	}
	rej := testCase{expect: expectReject, disk: "a\n", region: [2]int{0, 2}}
	if got := rej.score(nil, "b\n").outcome; got != wrongApply {
		t.Errorf("an apply of a reject case scored %v", got)
	}
	if got := rej.score(errBench, "a\n").outcome; got != success {
		t.Errorf("a refusal of a reject case scored %v", got)
	}
}

func TestDeterministic(t *testing.T) {
	c, err := loadCorpus(filepath.Join(runtime.GOROOT(), "src"))
	if err != nil {
		t.Skip(err)
	}
	p := profile{name: "tiny", perCell: 2, maxFile: 8 << 10}
	a, err := bench(p, 7, c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := bench(p, 7, c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if a.markdown() != b.markdown() {
		t.Error("the same seed gave different reports")
	}
}
