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
// The words judged are the ones bash will run, not the ones written
// (braces.go, globs.go): every simple command's words and every
// redirection's are brace-expanded first, as bash does (`.{.,}` is `..`
// and `.`; `{rm,-rf,/}` is rm -rf /), with mvdan.cc/sh's SplitBraces and
// BracesSeq; a word that would make more than 256 words asks. A tilde
// bash expands (`~`, `~user`, `~+`, `~-`, and after the `=` or a `:` of
// an assignment-shaped word) is taken for the home directory or a
// directory only known when the line runs: it asks wherever a path is
// read. Patterns are matched with bash's own semantics (mvdan.cc/sh's
// pattern package: `[!x]`, `[[:punct:]]`, extglob's `@(…)`, `?(…)`,
// `*(…)`, `+(…)`; `!(…)` is taken to match anything), never Go's
// path.Match, and with the widest reading of the options an earlier
// approved command may have set: dotglob, nocaseglob, globstar, and `.`
// and `..` matched by a pattern starting with a dot (bash < 5.2). A
// pattern is judged as written, by the secret names its last element can
// match, and by each path it matches on disk (symlinks resolved); one that
// can match `..` asks. echo's patterns ask when expanding them lists a
// directory outside the workspace (`echo ~/.ssh/*`, `echo ../*`).
//
// Deny groups (bulk or destructive git, discarding the work tree with
// git checkout/restore/switch, rm -rf on whole trees, chmod 777,
// pkill/killall, kill -1, dd or redirections onto a device, mkfs, fork
// bombs, crontab -r, mv of a whole tree or onto /dev/null, find -delete or
// -exec rm without a narrowing test, code piped into an interpreter, and
// the user's own deny patterns) win over everything (deny.go,
// destructive.go). A line is allowed only when every command
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
// config, or the user's or the system's (~/.gitconfig, the XDG file,
// $GIT_CONFIG_GLOBAL, /etc/gitconfig and their includes), would make git
// run a program (gitconfig.go). Secret names are compared as Windows and
// case-insensitive file systems read them (`.GIT/config`, `.git./config`
// and `GIT~1/config` are .git/config).
//
// What an allowance allows: a commandAllowlist pattern, or an "Always"
// answer (Patterns gives what it remembers), lets that command run unasked
// with any arguments, on the code as it is then; deny groups still win,
// and a test or build runner asks again once the turn changed a file it
// runs (runners.go: WrittenRunBy). Configured patterns skip the
// workspace checks but not the secret and /dev/tcp ones. Reads that would
// put secrets into the model's context are judged by one rule for every
// tool (SecretRule), the rule `cat .env` is judged by.
package policy
