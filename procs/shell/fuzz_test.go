package shell

import (
	"errors"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzSplit checks that Split never panics, fails only with a
// *SyntaxError, and cuts a script into commands that each parse and that,
// joined by newlines, parse again.
func FuzzSplit(f *testing.F) {
	for _, seed := range []string{
		"ls", "cd sub; pwd\nls", "a && b || c", "echo a \\\n b", "cat <<EOF\nx\nEOF\necho y",
		"cat <<EOF; echo hi\nbody\nEOF", "cat <<-'E'\n\tE\n", "cat <<A <<B\na\nA\nB", "f() {\n echo\n}\nf",
		"# c\nx=$(\n date\n)", "sleep 1 &\necho $!", "$ go test", "echo 'a\nb'", "if true; then\n :\nfi",
		"echo \"unterminated", "a\r\nb\r\n", "cat <<EOF\nEOF", "echo ${x:-y} $((1+2)) <(ls)",
	} {
		f.Add(seed)
	}
	parse := func(s string) error {
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
		return err
	}
	f.Fuzz(func(t *testing.T, script string) {
		commands, err := Split(script)
		if err != nil {
			var syntaxErr *SyntaxError
			if !errors.As(err, &syntaxErr) {
				t.Fatalf("Split(%q): %v is not a *SyntaxError", script, err)
			}
			return
		}
		for _, c := range commands {
			if c == "" {
				t.Fatalf("Split(%q) returned an empty command", script)
			}
			if err := parse(c); err != nil {
				t.Fatalf("Split(%q): command %q does not parse: %v", script, c, err)
			}
		}
		if err := parse(strings.Join(commands, "\n")); err != nil {
			t.Fatalf("Split(%q): joined commands do not parse: %v", script, err)
		}
	})
}
