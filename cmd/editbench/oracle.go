package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// An outcome is how the engine did on one case.
type outcome int

const (
	success    outcome = iota
	safeFail           // refused a case a correct engine could apply
	wrongApply         // applied wrongly, or applied what it should refuse
	collateral         // a wrong apply that also changed bytes outside the edited lines
)

// result is what running a case gave.
type result struct {
	outcome  outcome
	hintable bool // refused, and the case has a true location
	hintHit  bool // the error shows that location's line with its number
	err      error
}

// memSource is a Source over one file.
type memSource map[string]string

func (m memSource) Read(_ context.Context, p string) (string, int32, bool, error) {
	c, ok := m[p]
	return c, 0, ok, nil
}

// run applies a case's reply the way agentls apply does, in memory.
func (c testCase) run(reg *tools.Registry) result {
	b := &edittool.Batch{Root: "/ws", Source: memSource{c.path: c.disk}}
	_, err := b.ApplyReply(context.Background(), c.reply, tools.FormatMarkdown, reg)
	out := c.disk
	if err == nil {
		if content, exists, ok := b.Changes.Get(c.path); ok && exists {
			out = content
		}
	}
	return c.score(err, out)
}

func (c testCase) score(err error, out string) result {
	applied := err == nil && out != c.disk
	r := result{err: err}
	switch {
	case c.expect == expectApply && applied && out == c.target,
		c.expect == expectReject && !applied,
		c.expect == expectEither && (!applied || out == c.target):
		r.outcome = success
	case c.expect == expectApply && !applied:
		r.outcome = safeFail
	default:
		r.outcome = wrongApply
		if !c.outsideKept(out) {
			r.outcome = collateral
		}
	}
	if err != nil && c.trueLine > 0 {
		r.hintable = true
		r.hintHit = strings.Contains(err.Error(), fmt.Sprintf("%d\t%s\n", c.trueLine, strings.TrimSuffix(c.lineText, "\r")))
	}
	return r
}

// outsideKept reports whether out keeps disk's bytes outside the edited
// lines.
func (c testCase) outsideKept(out string) bool {
	pre, post := c.disk[:c.region[0]], c.disk[c.region[1]:]
	return len(out) >= len(pre)+len(post) && strings.HasPrefix(out, pre) && strings.HasSuffix(out, post)
}

// diskAtomicity checks on a real folder that a patch_many whose second file
// fails writes nothing (X1): it returns the number of partial writes.
func diskAtomicity(dir string, r *rng, c *corpus, reg *tools.Registry) (cases, partial int, err error) {
	for i := range 20 {
		root := filepath.Join(dir, fmt.Sprintf("x1-%d", i))
		if err := os.MkdirAll(root, 0o755); err != nil {
			return 0, 0, err
		}
		_, a, err := c.pick(r, 1<<10, 32<<10)
		if err != nil {
			return 0, 0, err
		}
		_, bText, err := c.pick(r, 1<<10, 32<<10)
		if err != nil {
			return 0, 0, err
		}
		linesA, _ := splitFile(a)
		e, ok := genEdit(r, linesA)
		if !ok {
			continue
		}
		os.WriteFile(filepath.Join(root, "a.go"), []byte(a), 0o644)
		os.WriteFile(filepath.Join(root, "b.go"), []byte(bText), 0o644)
		reply := "```patch_many\n=== PATH: a.go ===\n" + conflictHunk(e.orig, e.upd) + "\n=== PATH: b.go ===\n" +
			conflictHunk([]string{"this line is not in b.go"}, []string{"x"}) + "\n```\n"
		real, _ := filepath.EvalSymlinks(root)
		batch := &edittool.Batch{Root: real, Source: edittool.DiskSource{Root: real}}
		_, applyErr := batch.ApplyReply(context.Background(), reply, tools.FormatMarkdown, reg)
		if applyErr == nil {
			applyErr = edits.ApplyToDisk(real, &batch.Changes)
		}
		cases++
		gotA, _ := os.ReadFile(filepath.Join(root, "a.go"))
		gotB, _ := os.ReadFile(filepath.Join(root, "b.go"))
		if applyErr == nil || string(gotA) != a || string(gotB) != bText {
			partial++
		}
	}
	if cases == 0 {
		return 0, 0, errors.New("no atomicity case could be drawn")
	}
	return cases, partial, nil
}

// errBench stands for any refusal in tests.
var errBench = errors.New("refused")
