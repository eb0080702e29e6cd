// Package policy decides whether a shell command line the agent wants to
// run may run without asking (allow), needs the user's approval (ask), or
// is refused (deny).
//
// The decision is made on the syntax tree of the whole line, parsed as bash
// by mvdan.cc/sh, never on its raw text: every simple command anywhere in
// it (pipelines, lists, subshells, blocks, command and process
// substitutions, loop and function bodies, and the scripts handed to
// `bash -c`, `eval` or `trap`) is checked, quoted text and heredoc bodies are
// data, and a command name is what the shell would run after removing
// quotes. This fixes the bypasses of gptme's regex checks (research/gptme.md
// §7.3–7.4): a quoted first match hiding a real second one, heredocs, and
// only the first match being examined.
//
// Deny groups (bulk or destructive git, rm -rf on whole trees, chmod 777,
// pkill/killall, code piped into an interpreter, and the user's own deny
// patterns) win over everything. A line is allowed only when every command
// in it is read-only by the allowlist and its flag tables, or matches an
// allow pattern from the configuration or remembered at run time; anything
// else asks. A line that cannot be parsed, or a command whose name is only
// known when it runs, is never allowed; one that cannot be parsed is
// denied when any statement or line of it is (salvage.go).
//
// Allowed also means harmless in what it reaches: an allowed command reads
// only inside the workspace folder (Config.Root), judged from the shell's
// current directory (CheckIn) and with symlinks resolved, and reads no
// secret anywhere (workspace.go, secrets.go); it expands no variable named
// like a secret and no arithmetic or subscript that could run code
// (expansions.go); it sets no variable that changes what runs or where
// the network leads; and its git commands ask when the repository's own
// config would make git run a program (gitconfig.go).
package policy
