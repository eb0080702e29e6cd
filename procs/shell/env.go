package shell

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// quietEnv keeps a command from waiting on a pager or an editor nobody
// can see, and from buffering output the user is waiting for (gptme.md
// §7.1). Git starts no pager either way: the agent's stdout is a pipe.
func quietEnv() []string {
	return []string{
		"PAGER=", "GH_PAGER=", "GIT_PAGER=cat",
		"EDITOR=true", "GIT_EDITOR=true", "VISUAL=true",
		"PYTHONUNBUFFERED=1", "TERM=dumb",
	}
}

// gitPins are the repository settings that make read-only git commands
// run a program by themselves, each with a value that does not, for
// withGitPins to set above every config file:
//
//   - core.fsmonitor: git status, diff, add… run it on every call, no
//     attribute needed (the classic hostile-repository hook);
//   - log.showSignature: git log and show run gpg.program on every signed
//     commit.
//
// Left out, and why: core.hooksPath (no hook runs on status, diff or log;
// commit, checkout and merge, which run them, are not on the policy's
// read-only list and so are put to the user, who wants their own hooks to
// run on what they approve); diff.external (an empty value is not
// "unset": git diff then fails with "cannot run"); diff.<driver>.textconv
// and .command, filter.<driver>.* (the driver's name comes from
// .gitattributes, so no fixed key disables an unknown one); core.pager
// and pager.<cmd> (git starts no pager when stdout is no terminal, and
// GIT_PAGER=cat besides); core.sshCommand, credential.helper and the rest
// of the network's (no read-only command reaches a remote: lazy fetches
// of a partial clone are what the policy's promisor check is for). Those
// stay with the policy's check of the config.
func gitPins() [][2]string {
	return [][2]string{
		{"core.fsmonitor", "false"},
		{"log.showSignature", "false"},
	}
}

// Environ is the environment of every command the agent runs, in the
// shell and as a job: os.Environ(), then quietEnv, then extra (later
// entries win), then gitPins as git's command-line config (withGitPins).
func Environ(extra []string) []string {
	env := append(os.Environ(), quietEnv()...)
	return withGitPins(append(env, extra...))
}

// withGitPins appends gitPins to env as GIT_CONFIG_KEY_<n>/VALUE_<n>,
// after the entries GIT_CONFIG_COUNT already counts (the user's own,
// kept), and raises the count. Git reads these after every config file
// (command scope, as `git -c`), so a .git/config rewritten after the
// policy checked it — by a background job, say — still cannot make git
// status run a program; submodules' gits inherit them. A count git would
// refuse is left alone: then git fails every command ("bogus count in
// GIT_CONFIG_COUNT") and runs nothing.
func withGitPins(env []string) []string {
	count := 0
	if v, ok := lastValue(env, "GIT_CONFIG_COUNT"); ok {
		n, valid := gitConfigCount(v)
		if !valid {
			return env
		}
		count = n
	}
	for _, pin := range gitPins() {
		env = append(env,
			fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", count, pin[0]),
			fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", count, pin[1]))
		count++
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(count))
}

// lastValue is the value of the last name=… entry in env: the one a
// process gets (os/exec keeps the last of duplicates).
func lastValue(env []string, name string) (string, bool) {
	for k := len(env) - 1; k >= 0; k-- {
		if v, ok := strings.CutPrefix(env[k], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// gitConfigCount reads GIT_CONFIG_COUNT as git does (strtoul, then
// nothing may follow the digits; more than INT_MAX is an error): leading
// white space and a sign are taken, "" is 0, anything else is refused.
func gitConfigCount(v string) (int, bool) {
	if v == "" {
		return 0, true
	}
	s := strings.TrimLeft(v, " \t\n\v\f\r")
	negative := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		negative = s[0] == '-'
		s = s[1:]
	}
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false // no digits, or something after them
	}
	n, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err != nil, n > math.MaxInt32:
		return 0, false
	case negative && n != 0:
		return 0, false // strtoul wraps it past INT_MAX
	}
	return int(n), true
}
