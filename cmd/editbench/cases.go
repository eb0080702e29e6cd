package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/anchored"
)

// The formats a case is rendered in.
const (
	fmtConflict      = "conflict"      // ```patch path with ORIGINAL/UPDATED hunks
	fmtV4A           = "v4a"           // ```apply_patch with *** Begin Patch
	fmtSearchReplace = "searchreplace" // path line, fence, SEARCH/REPLACE
	fmtAnchored      = "anchored"      // ```patch_anchored with ops on anchors from a view
)

func allFormats() []string { return []string{fmtConflict, fmtV4A, fmtSearchReplace, fmtAnchored} }

// textFormats are the formats that carry the text to find.
func textFormats() []string { return []string{fmtConflict, fmtV4A, fmtSearchReplace} }

// What the engine should do with a case.
const (
	expectApply  = "apply"  // apply, giving exactly the target
	expectReject = "reject" // refuse, changing nothing
	expectEither = "either" // either is right
)

// A testCase is one request against one file, with what must come of it.
type testCase struct {
	id           string
	format       string
	perturbation string
	expect       string
	path         string // the file's path in the workspace
	disk         string // the file as it is on disk
	reply        string // the model's reply
	target       string // the file after a correct apply
	// region is the byte range of the edited lines in disk; trueLine the
	// 1-based line where they start (an error that shows this line with
	// its number points the model at the right place).
	region   [2]int
	trueLine int
	lineText string
}

// anEdit is a ground-truth edit of a file: the lines [first, first+n) of
// the file (context included) become upd.
type anEdit struct {
	first, n int
	orig     []string
	upd      []string
	ctx      int    // context lines on each side
	scope    string // the nearest "func " line above, for V4A's @@
}

// splitFile splits a file into lines and tells whether it ends with "\n".
func splitFile(text string) ([]string, bool) {
	final := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	return lines, final
}

func joinFile(lines []string, final bool) string {
	s := strings.Join(lines, "\n")
	if final {
		s += "\n"
	}
	return s
}

// countWhole counts the places where the lines orig stand in lines.
func countWhole(lines, orig []string) int {
	n := 0
	for i := 0; i+len(orig) <= len(lines); i++ {
		match := true
		for j := range orig {
			if lines[i+j] != orig[j] {
				match = false
				break
			}
		}
		if match {
			n++
		}
	}
	return n
}

// genEdit draws a unique, non-trivial edit of lines.
func genEdit(r *rng, lines []string) (anEdit, bool) {
	for range 200 {
		ctx := r.intn(3) + 1
		k := r.intn(4) + 1
		if len(lines) < k+2*ctx+2 {
			return anEdit{}, false
		}
		i := ctx + r.intn(len(lines)-k-2*ctx)
		region := lines[i : i+k]
		if strings.TrimSpace(strings.Join(region, "")) == "" || hasMarkupLine(lines[i-ctx:i+k+ctx]) {
			continue
		}
		var mutated []string
		switch r.intn(4) {
		case 0: // modify one line
			mutated = append([]string{}, region...)
			j := r.intn(k)
			if strings.TrimSpace(mutated[j]) == "" {
				continue
			}
			mutated[j] += " // editbench"
		case 1: // insert lines
			j := r.intn(k)
			ind := leading(region[j])
			mutated = append(append([]string{}, region[:j+1]...), ind+fmt.Sprintf("editbench%d()", r.intn(1000)))
			if r.intn(2) == 0 {
				mutated = append(mutated, ind+"editbenchMore()")
			}
			mutated = append(mutated, region[j+1:]...)
		case 2: // delete a line
			if k < 2 {
				continue
			}
			j := r.intn(k)
			mutated = append(append([]string{}, region[:j]...), region[j+1:]...)
		case 3: // replace the block
			ind := leading(region[0])
			mutated = []string{ind + fmt.Sprintf("editbenchReplaced(%d)", r.intn(1000))}
		}
		orig := lines[i-ctx : i+k+ctx]
		upd := append(append(append([]string{}, lines[i-ctx:i]...), mutated...), lines[i+k:i+k+ctx]...)
		if strings.Join(orig, "\n") == strings.Join(upd, "\n") || countWhole(lines, orig) != 1 {
			continue
		}
		scope := ""
		for j := i - ctx - 1; j >= 0; j-- {
			if strings.HasPrefix(lines[j], "func ") {
				scope = lines[j]
				break
			}
		}
		return anEdit{first: i - ctx, n: k + 2*ctx, orig: orig, upd: upd, ctx: ctx, scope: scope}, true
	}
	return anEdit{}, false
}

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// apply returns lines with the edit made.
func (e anEdit) apply(lines []string) []string {
	out := append([]string{}, lines[:e.first]...)
	out = append(out, e.upd...)
	return append(out, lines[e.first+e.n:]...)
}

// render writes the edit as a model reply in a format. view is the file
// the model saw, for anchors.
func (e anEdit) render(format, path string, view []string) string {
	switch format {
	case fmtAnchored:
		return e.renderAnchored(path, view)
	case fmtV4A:
		var b strings.Builder
		b.WriteString("```apply_patch\n*** Begin Patch\n*** Update File: " + path + "\n")
		if e.scope != "" {
			b.WriteString("@@ " + e.scope + "\n")
		}
		for _, l := range e.orig[:e.ctx] {
			b.WriteString(" " + l + "\n")
		}
		for _, l := range e.orig[e.ctx : len(e.orig)-e.ctx] {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range e.upd[e.ctx : len(e.upd)-e.ctx] {
			b.WriteString("+" + l + "\n")
		}
		for _, l := range e.orig[len(e.orig)-e.ctx:] {
			b.WriteString(" " + l + "\n")
		}
		b.WriteString("*** End Patch\n```\n")
		return b.String()
	case fmtSearchReplace:
		return path + "\n```go\n<<<<<<< SEARCH\n" + strings.Join(e.orig, "\n") + "\n=======\n" + strings.Join(e.upd, "\n") + "\n>>>>>>> REPLACE\n```\n"
	default:
		return "```patch " + path + "\n" + conflictHunk(e.orig, e.upd) + "\n```\n"
	}
}

func conflictHunk(orig, upd []string) string {
	return "<<<<<<< ORIGINAL\n" + strings.Join(orig, "\n") + "\n=======\n" + strings.Join(upd, "\n") + "\n>>>>>>> UPDATED"
}

// hasMarkupLine reports whether a line would read as a fence or a marker
// of the formats a case is rendered in; such regions are not drawn.
func hasMarkupLine(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		for _, p := range []string{"```", "***", "<<<<<<<", ">>>>>>>", "=======", "@@"} {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
	}
	return false
}

// renderAnchored replaces the edited lines (between the context lines) as
// one range op, guarded by the first and last lines' text, with the anchors
// a view of the file shows.
func (e anEdit) renderAnchored(path string, view []string) string {
	v, err := anchored.View(strings.Join(view, "\n")+"\n", 0, 0, anchored.Options{})
	if err != nil || len(v) < e.first+e.n {
		return "```patch_anchored " + path + "\n[]\n```\n"
	}
	a, b := e.first+e.ctx, e.first+e.n-e.ctx-1
	mid := e.upd[e.ctx : len(e.upd)-e.ctx]
	newText := strings.Join(mid, "\n") + "\n" // a final newline adds no line
	if len(mid) == 0 {
		newText = ""
	}
	op := map[string]any{
		"anchor": v[a].Anchor, "end": v[b].Anchor, "op": "replace", "text": newText,
		"expected": v[a].Text, "end_expected": v[b].Text,
	}
	if newText == "" {
		op = map[string]any{"anchor": v[a].Anchor, "end": v[b].Anchor, "op": "delete", "expected": v[a].Text, "end_expected": v[b].Text}
	}
	ops, _ := json.Marshal([]any{op})
	return "```patch_anchored " + path + "\n" + string(ops) + "\n```\n"
}
