package policy

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// Expansions that run code or change variables although no command is
// named. bash evaluates an arithmetic expression recursively: a variable
// or a command's output used in one is itself parsed as an expression,
// and an array subscript inside that runs its `$(…)`:
//
//	echo $(( $(echo 'a[$(id)]') ))
//
// runs id although echo is the only command in the line. The same holds
// for array subscripts (`${a[$x]}`), slice offsets (`${a:$x}`), the names
// of indirect expansions (`${!x}` with x='a[$(id)]'), and prompt expansion
// (`${x@P}` runs the `$(…)` in x's value). `${x:=v}`, `${x=v}` and
// assignments inside arithmetic (`$((PATH=0))`) change the shell's
// variables for the commands after them.
//
// So these ask, unless they are provably inert: arithmetic over literal
// numbers only (`$((1+2))`, `${a[0]}`, `${s:2:3}`), and the `@`/`*`
// subscripts that list an array.

// expansion checks a parameter or arithmetic expansion anywhere in the
// line, including inside words, double quotes and unquoted heredocs.
func (a *analyzer) expansion(sc *scope, n syntax.Node) {
	ask := func(format string, args ...any) {
		a.add(sc.pos(n), Ask, fmt.Sprintf("`%s` ", sc.snippet(n))+fmt.Sprintf(format, args...))
	}
	switch n := n.(type) {
	case *syntax.ArithmExp:
		if !inertArithm(n.X) {
			ask("evaluates arithmetic, which can run commands (through array subscripts) and set variables")
		}
	case *syntax.ParamExp:
		if n.Param != nil && secretVariable(n.Param.Value) {
			ask("expands %s, which may hold a secret", n.Param.Value)
			return
		}
		switch {
		case n.Excl && n.Names == 0 && !listsKeys(n):
			ask("expands the variable named by another one's value, which can run commands")
		case n.Index != nil && !inertSubscript(n.Index):
			ask("evaluates an array subscript, which can run commands and set variables")
		case n.Slice != nil && !(inertArithm(n.Slice.Offset) && inertArithm(n.Slice.Length)):
			ask("evaluates arithmetic in its offset, which can run commands and set variables")
		case n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull):
			ask("assigns to %s, which changes the shell's variables", n.Param.Value)
		case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && wordLit(n.Exp.Word) == "P":
			ask("expands the value as a prompt, which runs the commands in it")
		}
	}
}

// listsKeys reports `${!a[@]}` and `${!a[*]}`: the keys of an array, not
// an indirection.
func listsKeys(n *syntax.ParamExp) bool {
	if n.Index == nil {
		return false
	}
	v := arithmLit(n.Index)
	return v == "@" || v == "*"
}

// inertSubscript reports an array subscript that cannot run anything: a
// literal number, `@` or `*`.
func inertSubscript(x syntax.ArithmExpr) bool {
	if v := arithmLit(x); v == "@" || v == "*" {
		return true
	}
	return inertArithm(x)
}

// inertArithm reports an arithmetic expression (nil: none) made only of
// literal numbers and operators: with no variable in it, nothing is
// evaluated recursively and nothing can be assigned.
func inertArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.BinaryArithm:
		return inertArithm(x.X) && inertArithm(x.Y)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && inertArithm(x.X)
	case *syntax.ParenArithm:
		return inertArithm(x.X)
	case *syntax.Word:
		return literalNumber(wordLit(x))
	}
	return false
}

// literalNumber reports a number as bash's arithmetic reads it (10, 0x1f,
// 2#101, 64#_@): it starts with a digit, so it is never a variable name.
func literalNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '#' || c == '_' || c == '@') {
			return false
		}
	}
	return true
}

// arithmLit is the text of an arithmetic expression that is one literal
// word, or "".
func arithmLit(x syntax.ArithmExpr) string {
	if w, ok := x.(*syntax.Word); ok {
		return wordLit(w)
	}
	return ""
}

// wordLit is the text of a word that is one unquoted literal, or "".
func wordLit(w *syntax.Word) string {
	if w == nil || len(w.Parts) != 1 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok {
		return l.Value
	}
	return ""
}
