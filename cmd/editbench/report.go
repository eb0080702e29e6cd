package main

import (
	"fmt"
	"slices"
	"strings"
)

// A cell is the results for one format and perturbation.
type cell struct {
	format, perturbation, about         string
	n, success, safe, wrong, collateral int
	hintable, hintHits                  int
	examples                            []string // wrong applies, for the report
}

func (c *cell) add(tc testCase, r result) {
	c.n++
	switch r.outcome {
	case success:
		c.success++
	case safeFail:
		c.safe++
	case wrongApply:
		c.wrong++
		c.examples = append(c.examples, tc.id+": "+shorten(r.err))
	case collateral:
		c.collateral++
		c.examples = append(c.examples, tc.id+" (collateral)")
	}
	if r.hintable && c.perturbation == "H1" {
		c.hintable++
		if r.hintHit {
			c.hintHits++
		}
	}
}

type report struct {
	profile, goVersion, manifest string
	seed                         uint64
	cells                        map[[2]string]*cell
	x1Cases, x1Partial           int
	speed                        []speedRow
	load                         string // /proc/loadavg after the speed rows
}

func (r *report) cell(format, pert string) *cell {
	k := [2]string{pert, format}
	if r.cells[k] == nil {
		r.cells[k] = &cell{format: format, perturbation: pert}
	}
	return r.cells[k]
}

func (r *report) sorted() []*cell {
	var cs []*cell
	for _, c := range r.cells {
		cs = append(cs, c)
	}
	order := map[string]int{}
	for i, p := range perturbations() {
		order[p.id] = i
	}
	slices.SortFunc(cs, func(a, b *cell) int {
		if d := order[a.perturbation] - order[b.perturbation]; d != 0 {
			return d
		}
		return strings.Compare(a.format, b.format)
	})
	return cs
}

// failures says what makes the run fail: any wrong apply, collateral
// damage or partial write.
func (r *report) failures() string {
	var bad []string
	for _, c := range r.sorted() {
		if c.wrong+c.collateral > 0 {
			bad = append(bad, fmt.Sprintf("%s/%s: %d wrong applies, %d with collateral damage", c.format, c.perturbation, c.wrong, c.collateral))
		}
	}
	if r.x1Partial > 0 {
		bad = append(bad, fmt.Sprintf("X1: %d partial writes", r.x1Partial))
	}
	return strings.Join(bad, "; ")
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# editbench (%s profile)\n\nseed %d · %s · corpus GOROOT/src manifest %s\n\n", r.profile, r.seed, r.goVersion, r.manifest)
	b.WriteString("Each case is a ground-truth edit of a file from the Go distribution, rendered as a model reply and perturbed as labelled; the engine's output is compared byte for byte with the expected file. **wrong** counts applies that gave other bytes or should have been refused; **collateral** those that also changed bytes outside the edited lines; **safe-fail** refusals of a case that could have been applied (a retry for the model, not damage). **hint** is how often a refusal of a hallucinated ORIGINAL (H1) showed the true first line with its line number.\n\n")
	b.WriteString("| perturbation | format | cases | success | safe-fail | wrong | collateral | hint@1 |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	var tot cell
	for _, c := range r.sorted() {
		hint := ""
		if c.hintable > 0 {
			hint = fmt.Sprintf("%d/%d", c.hintHits, c.hintable)
		}
		fmt.Fprintf(&b, "| %s %s | %s | %d | %d | %d | %d | %d | %s |\n", c.perturbation, c.about, c.format, c.n, c.success, c.safe, c.wrong, c.collateral, hint)
		tot.n += c.n
		tot.success += c.success
		tot.safe += c.safe
		tot.wrong += c.wrong
		tot.collateral += c.collateral
	}
	fmt.Fprintf(&b, "| **all** | | %d | %d | %d | %d | %d | |\n\n", tot.n, tot.success, tot.safe, tot.wrong, tot.collateral)
	fmt.Fprintf(&b, "X1 (patch_many whose second file fails, on a real folder): %d cases, %d partial writes.\n", r.x1Cases, r.x1Partial)
	for _, c := range r.sorted() {
		for _, ex := range c.examples {
			fmt.Fprintf(&b, "\n- wrong: %s", ex)
		}
	}
	if len(r.speed) > 0 {
		b.WriteString("\n## Speed\n\nReproduce: `go run ./cmd/editbench -profile full -out BENCH.md` (replaces this section). Each row is the median ApplyHunks call of at least 300 ms of them; times depend on the machine and its load. A row whose apply fails fails the run. Hunks that do not resolve alone in the concatenated files (a licence header repeated) are drawn again. Load average after timing: " + r.load + ".\n\n| input | file | hunks | time per apply | throughput |\n|---|---:|---:|---:|---:|\n")
		for _, s := range r.speed {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %.0f MB/s |\n", s.what, sizeLabel(s.size), s.hunks, s.per, float64(s.size)/s.per.Seconds()/1e6)
		}
	}
	b.WriteString("\n")
	return b.String()
}

func sizeLabel(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
