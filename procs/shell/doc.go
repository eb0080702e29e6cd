// Package shell runs the agent's shell commands in one persistent bash per
// workspace, so that `cd` and `export` carry over from one command to the
// next, and renders what they did as the text the model reads.
//
// It follows gptme's shell tool (research/gptme.md §7.1–7.2) and fixes its
// weak spots:
//
//   - The end of a command is a line carrying a fresh random sentinel, the
//     exit status and the shell's directory, printed on both stdout and
//     stderr; both pipes are read concurrently until their sentinel, so
//     there is no polling and no output arriving late into the next
//     command. Output that happens to look like a sentinel cannot end a
//     command early.
//   - A script is split with a real shell parser (mvdan.cc/sh) into its
//     top-level statements; they run in order and the first non-zero exit
//     stops the rest, which are reported as not run.
//   - Every command's stdin is /dev/null, so nothing waits for input.
//   - A timeout, a cancelled context or Close kills the shell's whole
//     process group (SIGTERM, then SIGKILL after a grace period) and
//     whatever is left in its session, grandchildren included; the shell
//     then restarts in the directory it was in, and the message says that
//     exported variables were lost. If the server dies without Close
//     (SIGKILL, a panic), procs/proc's Pdeathsig and watchdog kill the
//     same: nothing a command left running outlives the server.
//   - Every command (and every job: Environ) gets git's command-line
//     config pinning core.fsmonitor=false and log.showSignature=false
//     after the user's own GIT_CONFIG_COUNT entries, so a .git/config
//     rewritten after the policy checked it (by a background job) cannot
//     make git status, diff or log run a program through those keys.
//   - Output streams live to a callback and in full to a log file per
//     command, while a Result keeps only a bounded head and tail of each
//     stream, so a command printing gigabytes holds memory flat.
//
// Each command is written as one short line calling two functions the
// session defines at start (bash reads a script from a pipe a byte per
// syscall), so a round trip costs about 0.4 ms. Some git keys are left
// unpinned on purpose: core.hooksPath (status, diff and log run no hook,
// and commands that do are asked about), diff.external (an empty value
// makes git diff fail rather than unset it), textconv and filter drivers
// (named by attributes, so no fixed key reaches them) and pagers (none
// starts without a terminal); for those the policy's check is all there
// is. Split cuts a script into top-level statements with the same parser.
package shell
