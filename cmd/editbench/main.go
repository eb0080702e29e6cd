// Command editbench measures agentls's edit engine without a model
// (editbench.md §3): it draws edits from the Go distribution's own source,
// renders them as model replies in each edit format, perturbs them the ways
// models and files go wrong, and scores what the engine does against the
// exact expected bytes.
//
//	go run ./cmd/editbench                      # the smoke profile: seconds
//	go run ./cmd/editbench -profile full -out BENCH.md
//	go run ./cmd/editbench peers -gen ../shared/research/peers-gen.py -out BENCH.md
//
// It exits 1 if any case was applied wrongly, damaged bytes outside the
// edited lines, or left a partial write, or if a timed operation failed.
// With -out, each report replaces only its own section of the file.
//
// peers (peers.go) times agentls beside gptme and aider installed from
// PyPI; it needs Python and the network, so no test runs it. Each
// implementation runs each operation in its own process (agentls's is
// `editbench peer-worker`, the others small Python drivers calling the
// peers' own functions); rounds alternate which goes first; a small case
// goes round 16 inputs of its size, since one input timed over and over is
// a loop the branch predictor learns. The report gives medians over the
// rounds, same-run ratios, each edit's outcome and the machine's ceiling.
//
// The smoke profile runs in the tests (TestSmoke) and fails on any wrong
// apply, collateral damage or partial write; TestPeerInputs checks what
// peers feeds the implementations.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentls/agentls/tools/builtin"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// A profile is how much to run.
type profile struct {
	name       string
	perCell    int   // cases per format × perturbation
	maxFile    int64 // largest corpus file drawn
	throughput bool  // also measure speed by size and hunk count
}

func profiles() map[string]profile {
	return map[string]profile{
		"smoke": {name: "smoke", perCell: 12, maxFile: 24 << 10},
		"full":  {name: "full", perCell: 200, maxFile: 160 << 10, throughput: true},
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "peers":
			return runPeers(context.Background(), args[1:], stdout, stderr)
		case "peer-worker":
			return runPeerWorker(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("editbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prof := fs.String("profile", "smoke", "`smoke` (seconds, for CI) or full")
	seed := fs.Uint64("seed", 1, "the seed: the same seed, corpus and Go version give the same cases")
	out := fs.String("out", "", "also write the report (Markdown) to `file`")
	corpusDir := fs.String("corpus", filepath.Join(runtime.GOROOT(), "src"), "the corpus: a folder of .go files")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	p, ok := profiles()[*prof]
	if !ok {
		fmt.Fprintf(stderr, "editbench: unknown profile %q (smoke or full)\n", *prof)
		return 2
	}
	c, err := loadCorpus(*corpusDir)
	if err != nil {
		fmt.Fprintf(stderr, "editbench: %v\n", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "editbench-")
	if err != nil {
		fmt.Fprintf(stderr, "editbench: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	rep, err := bench(p, *seed, c, tmp)
	if err != nil {
		fmt.Fprintf(stderr, "editbench: %v\n", err)
		return 1
	}
	text := rep.markdown()
	fmt.Fprint(stdout, text)
	if *out != "" {
		if err := writeSection(*out, p.name, text); err != nil {
			fmt.Fprintf(stderr, "editbench: %v\n", err)
			return 1
		}
	}
	if bad := rep.failures(); bad != "" {
		fmt.Fprintf(stderr, "editbench: %s\n", bad)
		return 1
	}
	return 0
}

// bench runs a profile.
func bench(p profile, seed uint64, c *corpus, tmp string) (*report, error) {
	r := &rng{s: seed}
	reg := builtin.Registry()
	rep := &report{profile: p.name, seed: seed, goVersion: runtime.Version(), manifest: c.manifest(), cells: map[[2]string]*cell{}}
	for _, pt := range perturbations() {
		for _, f := range allFormats() {
			formats := pt.formats
			if formats == nil {
				formats = textFormats()
			}
			if !contains(formats, f) {
				continue
			}
			cl := rep.cell(f, pt.id)
			cl.about = pt.about
			for tries := 0; cl.n < p.perCell && tries < p.perCell*20; tries++ {
				file, text, err := c.pick(r, 512, p.maxFile)
				if err != nil {
					return nil, err
				}
				lines, final := splitFile(text)
				e, ok := genEdit(r, lines)
				if !ok {
					continue
				}
				tc, ok := pt.make(base{path: "f.go", lines: lines, final: final, e: e, r: r}, f)
				if !ok {
					continue
				}
				tc.id = fmt.Sprintf("%s/%s/%s#%d", f, pt.id, file.path, cl.n)
				cl.add(tc, tc.run(reg))
			}
		}
	}
	n, partial, err := diskAtomicity(tmp, r, c, reg)
	if err != nil {
		return nil, err
	}
	rep.x1Cases, rep.x1Partial = n, partial
	if p.throughput {
		if rep.speed, err = measureSpeed(c); err != nil {
			return nil, err
		}
		load, _ := os.ReadFile("/proc/loadavg")
		rep.load = strings.TrimSpace(string(load))
	}
	return rep, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// shorten keeps the first line of an error for the report.
func shorten(err error) string {
	if err == nil {
		return ""
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
