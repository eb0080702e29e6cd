package shell

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string
	}{
		{"empty", "", nil},
		{"blank", "  \n\t\n", nil},
		{"comment only", "# nothing to do\n", nil},
		{"one", "ls -la", []string{"ls -la"}},
		{"trimmed, prompt removed", "\n  $ go test ./...  \n", []string{"go test ./..."}},
		{"newlines split", "cd sub\npwd\n\nls", []string{"cd sub", "pwd", "ls"}},
		{"semicolon stays", "cd sub; pwd\nls", []string{"cd sub; pwd", "ls"}},
		{"and/or stay", "make && ./run || echo failed", []string{"make && ./run || echo failed"}},
		{"operator at line end continues", "make &&\n  ./run", []string{"make &&\n  ./run"}},
		{"pipeline", "ps aux |\n grep go | wc -l", []string{"ps aux |\n grep go | wc -l"}},
		{"comments vanish", "# build\ngo build # fast\n# test\ngo test", []string{"go build", "go test"}},
		{"comment inside a compound stays", "if true; then\n  # say it\n  echo y\nfi", []string{"if true; then\n  # say it\n  echo y\nfi"}},
		{"line continuation", "echo a \\\n  b\necho c", []string{"echo a \\\n  b", "echo c"}},
		{"background", "sleep 10 &\necho $!", []string{"sleep 10 &", "echo $!"}},
		{"trailing semicolon kept", "echo a;\necho b", []string{"echo a;", "echo b"}},
		{"heredoc", "cat > f.txt <<EOF\nline 1\n\nline 3\nEOF\ncat f.txt", []string{"cat > f.txt <<EOF\nline 1\n\nline 3\nEOF", "cat f.txt"}},
		{"quoted heredoc", "cat <<'EOF'\n$HOME `x`\nEOF\necho done", []string{"cat <<'EOF'\n$HOME `x`\nEOF", "echo done"}},
		{"heredoc into a pipe", "cat <<EOF | grep b\na\nb\nEOF\necho after", []string{"cat <<EOF | grep b\na\nb\nEOF", "echo after"}},
		{"heredoc then a statement on its line", "cat <<EOF; echo hi\nbody\nEOF\necho next", []string{"cat <<EOF; echo hi\nbody\nEOF", "echo next"}},
		{"two heredocs", "cat <<A <<B\na\nA\nb\nB\necho z", []string{"cat <<A <<B\na\nA\nb\nB", "echo z"}},
		// Found by FuzzSplit: an empty-delimiter here-document ends at the
		// first empty line, and the next one's body starts right after it.
		{"two empty-bodied heredocs after an empty delimiter", "cat <<'' <<E\n\nE\necho z", []string{"cat <<'' <<E\n\nE", "echo z"}},
		{"dash heredoc", "cat <<-EOF\n\tx\n\tEOF\necho z", []string{"cat <<-EOF\n\tx\n\tEOF", "echo z"}},
		{"empty heredoc", "cat <<EOF\nEOF\necho z", []string{"cat <<EOF\nEOF", "echo z"}},
		{"empty quoted heredoc", "cat <<\"END\"\nEND\necho z", []string{"cat <<\"END\"\nEND", "echo z"}},
		{"heredoc looking like a comment", "cat <<EOF\n# not a comment\nEOF", []string{"cat <<EOF\n# not a comment\nEOF"}},
		{"function", "greet() {\n  echo hi\n}\ngreet", []string{"greet() {\n  echo hi\n}", "greet"}},
		{"for loop", "for f in *.go; do\n  gofmt -l \"$f\"\ndone", []string{"for f in *.go; do\n  gofmt -l \"$f\"\ndone"}},
		{"multi-line quote", "echo 'a\nb'\necho c", []string{"echo 'a\nb'", "echo c"}},
		{"command substitution over lines", "x=$(\n  date\n)\necho $x", []string{"x=$(\n  date\n)", "echo $x"}},
		{"time and coproc parse", "time ls\ncoproc cat", []string{"time ls", "coproc cat"}},
		{"subshell and group", "(cd /tmp && ls)\n{ echo a; echo b; }", []string{"(cd /tmp && ls)", "{ echo a; echo b; }"}},
		{"crlf", "echo a\r\necho b\r\n", []string{"echo a", "echo b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.script)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q) (-want +got):\n%s", tt.script, diff)
			}
		})
	}
}

func TestSplitSyntaxErrors(t *testing.T) {
	for _, script := range []string{
		"echo 'unterminated",
		"echo \"unterminated",
		"if true; then echo x",
		"for x in; do",
		"echo $((1 +",
		"cat <<EOF\nno end",
		"echo a |",
		"(echo a",
		"done",
	} {
		_, err := Split(script)
		var syntaxErr *SyntaxError
		if !errors.As(err, &syntaxErr) {
			t.Errorf("Split(%q): err = %v, want a *SyntaxError", script, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "Shell syntax error: ") || !strings.HasSuffix(msg, "\nPlease fix the syntax or use a different approach.") {
			t.Errorf("Split(%q): message %q", script, msg)
		}
	}
}
