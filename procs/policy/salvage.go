package policy

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A line that does not parse is never allowed, but it is not merely
// asked about either: bash's eval runs a script statement by statement,
// so `rm -rf ~` runs before the `)` on the next line stops it. The line is
// denied when anything it may hold is denied: a statement of the prefix
// that parses, or any of its lines taken alone.

// placeholder stands for each byte that is not UTF-8 while the line is
// parsed (mvdan.cc/sh refuses them; bash takes them as ordinary
// characters). It is a control character the parser also takes as
// ordinary, and the literals are given their real bytes back after.
const placeholder = '\x01'

// parseBash parses src as bash, bytes that are not UTF-8 included.
func parseBash(src string) (*syntax.File, error) {
	if utf8.ValidString(src) {
		return parse(src)
	}
	f, err := parse(validBytes(src))
	if err != nil {
		return nil, err
	}
	restoreLiterals(f, src)
	return f, nil
}

// validBytes replaces every byte of s that is not part of a UTF-8
// sequence with the placeholder, keeping all offsets.
func validBytes(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			b[i] = placeholder
		}
		i += size
	}
	return string(b)
}

// restoreLiterals gives the literals of f, parsed from validBytes(src),
// their bytes from src: every literal is a slice of the source.
func restoreLiterals(f *syntax.File, src string) {
	slice := func(from, to syntax.Pos) (string, bool) {
		i, j := from.Offset(), to.Offset()
		if i > j || j > uint(len(src)) {
			return "", false
		}
		return src[i:j], true
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Lit:
			if strings.IndexByte(n.Value, placeholder) >= 0 {
				if v, ok := slice(n.ValuePos, n.ValueEnd); ok && len(v) == len(n.Value) {
					n.Value = v
				}
			}
		case *syntax.SglQuoted:
			if strings.IndexByte(n.Value, placeholder) >= 0 {
				start := n.Left.Offset() + 1
				if n.Dollar {
					start++
				}
				if start+uint(len(n.Value)) <= uint(len(src)) {
					n.Value = src[start : start+uint(len(n.Value))]
				}
			}
		}
		return true
	})
}

// salvage collects what is denied in a script that does not parse: in
// the statements before the error, and in each line that parses alone.
func (a *analyzer) salvage(src string, depth int) {
	take := func(inner *analyzer, offset uint) {
		for _, f := range inner.findings {
			if f.decision == Deny {
				f.pos += offset
				a.findings = append(a.findings, f)
			}
		}
	}
	prefix := &syntax.File{}
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	failed := false
	// No break: mvdan.cc/sh v3.14.1's iterator may yield again after its
	// loop body returned false (a panic), so the rest is skipped instead.
	for st, err := range parser.StmtsSeq(strings.NewReader(validBytes(src))) {
		failed = failed || err != nil
		if !failed && st != nil {
			prefix.Stmts = append(prefix.Stmts, st)
		}
	}
	if len(prefix.Stmts) > 0 {
		restoreLiterals(prefix, src)
		inner := a.inner()
		inner.walk(&scope{src: src, depth: depth, nested: true}, prefix)
		take(inner, 0)
	}
	offset := uint(0)
	for line := range strings.SplitAfterSeq(src, "\n") {
		if f, err := parseBash(line); err == nil {
			inner := a.inner()
			inner.walk(&scope{src: line, depth: depth, nested: true}, f)
			take(inner, offset)
		}
		offset += uint(len(line))
	}
}
