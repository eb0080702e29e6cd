package edits

import "strings"

// An indentMap re-bases the model's indentation onto the file's, for a hunk
// matched with a uniform indentation shift: the model dropped or added a
// level everywhere (F1), or wrote spaces where the file has tabs (F2). New
// lines then get the file's indentation, never the model's.
type indentMap struct {
	// Same style: the model's prefix from becomes the file's prefix to.
	from, to string
	// Converted style (tabs ⇄ spaces): indentation in levels.
	convert          bool
	fromUnit         int  // spaces per level on the model's side; 0 when it uses tabs
	toUnit           int  // spaces per level in the file; 0 when it uses tabs
	levelShift       int  // file level = model level + levelShift
	fromTabs, toTabs bool // which side uses tabs
}

// leadingSpace returns the indentation of s.
func leadingSpace(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}

func isBlankLine(s string) bool { return strings.TrimSpace(s) == "" }

// commonPrefix returns the longest common prefix of ss.
func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		n := 0
		for n < len(p) && n < len(s) && p[n] == s[n] {
			n++
		}
		p = p[:n]
	}
	return p
}

// deriveIndentMap finds the uniform shift that maps the model's indents
// (model) onto the file's (file), pair by pair, or reports there is none.
// updated are the indents of the model's new lines, which help tell its
// indentation unit.
func deriveIndentMap(file, model, updated []string) (indentMap, bool) {
	F, H := commonPrefix(file), commonPrefix(model)
	same := true
	for i := range file {
		if file[i][len(F):] != model[i][len(H):] {
			same = false
			break
		}
	}
	if same {
		return indentMap{from: H, to: F}, true
	}
	// Tabs on one side, spaces on the other: compare in levels.
	fileTabs, fileSpaces := pureIndents(file)
	modelTabs, modelSpaces := pureIndents(append(append([]string{}, model...), updated...))
	var m indentMap
	switch {
	case fileTabs && modelSpaces:
		m = indentMap{convert: true, fromUnit: spaceUnit(append(append([]string{}, model...), updated...)), toTabs: true}
	case fileSpaces && modelTabs:
		m = indentMap{convert: true, toUnit: spaceUnit(file), fromTabs: true}
	default:
		return indentMap{}, false
	}
	if (m.toTabs && m.fromUnit == 0) || (m.fromTabs && m.toUnit == 0) {
		return indentMap{}, false
	}
	for i := range file {
		fl, ok1 := level(file[i], m.toUnit)
		ml, ok2 := level(model[i], m.fromUnit)
		if !ok1 || !ok2 {
			return indentMap{}, false
		}
		if i == 0 {
			m.levelShift = fl - ml
		} else if fl-ml != m.levelShift {
			return indentMap{}, false
		}
	}
	return m, true
}

// apply returns the file's indentation for a model line's indent.
func (m indentMap) apply(indent string) (string, bool) {
	if !m.convert {
		if rest, ok := strings.CutPrefix(indent, m.from); ok {
			return m.to + rest, true
		}
		// Less indented than the hunk's base: remove the same text from
		// the file's base, if it ends with it.
		if removed, ok := strings.CutPrefix(m.from, indent); ok {
			if base, ok := strings.CutSuffix(m.to, removed); ok {
				return base, true
			}
		}
		return "", false
	}
	l, ok := level(indent, m.fromUnit)
	if !ok || l+m.levelShift < 0 {
		return "", false
	}
	if m.toTabs {
		return strings.Repeat("\t", l+m.levelShift), true
	}
	return strings.Repeat(" ", (l+m.levelShift)*m.toUnit), true
}

// pureIndents reports whether every indent is tabs only, or spaces only
// (empty indents count as both).
func pureIndents(indents []string) (tabs, spaces bool) {
	tabs, spaces = true, true
	for _, s := range indents {
		if strings.Trim(s, "\t") != "" {
			tabs = false
		}
		if strings.Trim(s, " ") != "" {
			spaces = false
		}
	}
	return tabs, spaces
}

// spaceUnit returns the width of one indentation level in space-indented
// lines: the greatest common divisor of the indent widths, or 0 if no line
// is indented.
func spaceUnit(indents []string) int {
	g := 0
	for _, s := range indents {
		g = gcd(g, len(s))
	}
	return g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// level returns an indent's depth: its tabs when unit is 0, else its
// spaces divided by unit, which must divide them.
func level(indent string, unit int) (int, bool) {
	if unit == 0 {
		return len(indent), strings.Trim(indent, "\t") == ""
	}
	return len(indent) / unit, len(indent)%unit == 0 && strings.Trim(indent, " ") == ""
}
