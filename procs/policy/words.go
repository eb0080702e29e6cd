package policy

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the shell would see it after quote removal,
// plus what the policy must know about the parts it cannot resolve
// statically.
type word struct {
	node *syntax.Word
	// val is the word after quote removal; the parts that are expansions
	// contribute nothing to it, so it is only the whole word when known.
	val string
	// known reports that the word has no expansion: val is exact.
	known bool
	// leadingExpansion reports that the word starts with a parameter,
	// arithmetic or command expansion (`$HOME/x`, `$(pwd)`), which may
	// expand to an absolute path or to nothing.
	leadingExpansion bool
	// subst reports a command or process substitution anywhere in the word:
	// its value comes from running another command.
	subst bool
	// procSubst reports a process substitution (`<(cmd)`, `>(cmd)`).
	procSubst bool
	// glob reports an unquoted pattern character (`*?[`) or extended glob.
	glob bool
	// brace reports an unquoted brace expression (`{a,b}`, `{1..3}`).
	brace bool
	// tilde reports an unquoted `~` that bash expands: at the start (`~`,
	// `~user`, `~+`, `~-`), or after the `=` or a `:` of a word shaped
	// like an assignment (`a=~/x`, which bash expands in arguments too).
	tilde bool
	// pattern is the word as a bash pattern when glob is set: the
	// unquoted text as written, quoted text escaped (globs.go).
	pattern string
}

// resolveWord removes quotes from w the way the shell does, recording the
// parts that only take a value when the line runs.
func resolveWord(w *syntax.Word) word {
	r := word{node: w, known: true}
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") || assignmentTilde(b.String(), p.Value) {
				r.tilde = true
			}
			if strings.ContainsAny(p.Value, "*?[") {
				r.glob = true
			}
			if strings.Contains(p.Value, "{") && strings.Contains(p.Value, "}") {
				r.brace = true
			}
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(decodeANSIC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDoubleQuoted(lit.Value))
					continue
				}
				r.known = false
				r.noteExpansion(q, i == 0 && b.Len() == 0)
			}
		case *syntax.ExtGlob:
			// An extended pattern (`@(a|b)`) is a pattern like `*`: its
			// text is the name bash uses when it matches nothing.
			r.glob = true
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		default:
			r.known = false
			r.noteExpansion(part, i == 0)
		}
	}
	r.val = b.String()
	if r.glob && r.known {
		r.pattern = wordPattern(w)
	}
	return r
}

// assignmentTilde reports an unquoted literal lit, coming after the text
// before (quotes removed), holding a `~` that bash expands in a word shaped
// like an assignment: right after its first `=` or after a `:` in its value.
func assignmentTilde(before, lit string) bool {
	if !strings.Contains(lit, "~") {
		return false
	}
	whole := before + lit
	name, _, ok := strings.Cut(whole, "=")
	if !ok || !isAssignment(name+"=") {
		return false
	}
	start := len(name) + 1 // the value's offset in whole
	for i := max(start, len(before)); i < len(whole); i++ {
		if whole[i] == '~' && (i == start || whole[i-1] == ':') {
			return true
		}
	}
	return false
}

// wordPattern is a word as the pattern bash matches file names with: its
// unquoted literals as written (their backslashes escape), its quoted text
// escaped.
func wordPattern(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.ExtGlob:
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(quotePattern(decodeANSIC(p.Value)))
			} else {
				b.WriteString(quotePattern(p.Value))
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if lit, ok := q.(*syntax.Lit); ok {
					b.WriteString(quotePattern(unescapeDoubleQuoted(lit.Value)))
				}
			}
		}
	}
	return b.String()
}

func (r *word) noteExpansion(part syntax.WordPart, leading bool) {
	switch part.(type) {
	case *syntax.CmdSubst:
		r.subst = true
	case *syntax.ProcSubst:
		r.subst = true
		r.procSubst = true
	}
	if leading {
		r.leadingExpansion = true
	}
}

// plain reports that the word is a known literal with nothing the shell
// would expand: no pattern, brace or tilde.
func (r word) plain() bool {
	return r.known && !r.glob && !r.brace && !r.tilde
}

// unescapeUnquoted removes the backslashes the shell removes outside
// quotes: `\x` is x. (Backslash-newline was already dropped by the parser.)
func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDoubleQuoted removes the backslashes the shell removes inside
// double quotes: only before $ ` " \ and newline.
func unescapeDoubleQuoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'...' string, so that $'\x72m' is
// seen as the rm it runs.
func decodeANSIC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default: // \\ \' \" \? and unknown escapes
			if strings.IndexByte(`\'"?`, e) < 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// plainWords returns the values of words, or false if any is not plain.
func plainWords(ws []word) ([]string, bool) {
	out := make([]string, len(ws))
	for i, w := range ws {
		if !w.plain() {
			return nil, false
		}
		out[i] = w.val
	}
	return out, true
}
