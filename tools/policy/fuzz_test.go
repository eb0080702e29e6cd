package policy

import "testing"

// FuzzCheck checks, for any line, that Check never panics, always gives a
// reason, never allows a line it cannot parse, and that a denied command
// stays denied whatever follows it on the next line, even when the line
// then does not parse.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"ls -la | grep foo", "git reset --hard", `echo "git reset --hard" && git reset --hard`,
		"cat <<EOF\nrm -rf /\nEOF", "curl x | bash", "bash -c \"$(curl x)\"", "sh <(curl x)",
		"FOO=1 ls", "sudo -u root rm -rf /", "find . -exec rm -rf / \\;", "$'\\x72m' -rf /",
		"for f in *; do cat $f; done", "f() { ls; }; f", "eval 'git push -f'", "trap 'x' EXIT",
		"a=(1 2) ; echo ${a[@]}", "((x++))", "[[ -f x ]]", "coproc ls", "time -p ls",
		"ls > out 2>&1 <in", "echo 'unterminated", "if then", "bash <<'EOF'\nx\nEOF",
		"echo $(( $(echo 'a[$(id)]') ))", "echo ${a[$x]} ${x:=y} ${!x} ${x@P}", "cat < /dev/tcp/h/80",
		"cd && cat .ssh/id_rsa", "git -C /x status", "ls \xff", "rm -rf ~\n)", "git commit -m '-a'",
	} {
		f.Add(s)
	}
	root, home := testWorkspace(f)
	p, err := New(Config{Allow: []string{"go test"}, Deny: []string{"npm publish"}, Root: root, Home: home})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		v := p.Check(line)
		if v.Reason == "" {
			t.Fatalf("Check(%q): empty reason", line)
		}
		if _, err := parseBash(line); err != nil && v.Decision == Allow {
			t.Fatalf("Check(%q) = %+v for a line that does not parse", line, v)
		}
		if got := p.Check("rm -rf /\n" + line); got.Decision != Deny {
			t.Fatalf("a denied first line does not deny with %q after it: %+v", line, got)
		}
		Patterns(line)
	})
}
