package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// bash expands braces before anything else, and each word it makes is a
// separate argument: `.{.,}` is the two arguments `..` and `.`, `{rm,-rf,/}`
// is `rm -rf /`, `{~,x}` is `~` and `x` (and that `~` is then the home
// directory). So the words of every simple command and redirection are
// brace-expanded first (mvdan.cc/sh's SplitBraces and BracesSeq, which
// follow bash's rules: quoted and escaped braces stay, `{x}` and broken
// sequences are literal) and the policy judges the words that result,
// with their tildes and patterns. A word that would make more than
// maxBraceWords words is not expanded: its command asks.

// maxBraceWords bounds the words one word may expand to and still be
// judged one by one.
const maxBraceWords = 256

// expandWords resolves the words of a command or redirection as bash
// will see them after brace expansion. It returns a problem, and no
// words, when a word expands to too many.
func expandWords(ws []*syntax.Word) ([]word, string) {
	out := make([]word, 0, len(ws))
	for _, w := range ws {
		if !mayHaveBraces(w) {
			out = append(out, resolveWord(w))
			continue
		}
		var problem string
		if out, problem = appendBraces(out, w); problem != "" {
			return nil, problem
		}
	}
	return out, ""
}

// appendBraces appends the words w brace-expands to. (Apart from
// expandWords, so that the common word without braces allocates nothing
// for the loop below.)
func appendBraces(out []word, w *syntax.Word) ([]word, string) {
	split := *w
	split.Parts = slices.Clone(w.Parts)
	// SplitBraces leaves nested expressions inside the outer one.
	if !syntax.SplitBraces(&split) || !slices.ContainsFunc(split.Parts, isBraceExp) {
		return append(out, resolveWord(w)), ""
	}
	n := 0
	for e, err := range expand.BracesSeq(nil, &split) {
		n++
		if err != nil || n > maxBraceWords {
			return out, fmt.Sprintf("`%s` is a brace expansion of more than %d words, too many to check", shorten(wordText(w)), maxBraceWords)
		}
		if nullWord(e) {
			continue // an unquoted empty word is dropped
		}
		r := resolveWord(e)
		r.node = w
		out = append(out, r)
	}
	return out, ""
}

// mayHaveBraces reports an unquoted `{` in w: the cheap test before
// splitting.
func mayHaveBraces(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

func isBraceExp(p syntax.WordPart) bool {
	_, ok := p.(*syntax.BraceExp)
	return ok
}

// nullWord reports a word that expands to nothing and is dropped: only
// unquoted literals, all empty.
func nullWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || l.Value != "" {
			return false
		}
	}
	return true
}

// wordText is a word's source, for a reason.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}
