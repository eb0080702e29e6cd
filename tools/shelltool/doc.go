// Package shelltool runs the agent's shell, ipython and tmux tools for one
// workspace. A model's shell block is split with a real shell parser,
// checked against the command policy, put to the user where the policy
// says so, and run in the workspace's persistent shell, or as background
// jobs for its `bg` lines; `jobs`, `output N`, `kill N` and `wait N` manage
// the jobs. Python code and tmux verbs run in pseudo-terminal sessions.
// Results come back as the gptme-shaped text the model reads. Tools
// declares the three (tool.go), each bound in a turn to a Host and the
// turn's tools.Env: the user to ask, the files its edits wrote, and how a
// Python cell shows an image.
//
// It owns every process the tools start: Close kills them all.
//
// # A shell block (run.go, approve.go)
//
// The whole block is checked once (Policy.CheckIn, from the shell's
// current folder; jobs too, which gptme let through) and asked once
// through an approval.Gate, whose "Always" becomes a command pattern kept
// in the policy and, with Options.AlwaysFile, for the next session. Then
// Options.BeforeRun runs (the server saves modified buffers), and the
// statements run in order; the first failure stops the rest, which are
// named as not run. Output streams to Options.Output; each command or job
// that ends is reported to Options.Finished, which the front-ends turn
// into diagnostics (procs/diagnose). The refusal's words (declined,
// nobody to ask, the policy denies it) are made here, with what to do
// instead.
//
// # Runners after agent edits (written.go)
//
// An allowed runner (`go test`, `make`, `npm test`, `pytest`, …) runs
// workspace code, and the allowance covers that code as it was. The Env's
// tools.TurnWrites records the files the turn's edit calls named; a
// command that runs one of them (policy.WrittenRunBy) is asked again,
// naming the file, with no "Always"; approved, they run unasked until
// written again. Files written in an earlier turn, or by a command, are
// not tracked.
//
// # ipython and tmux (ipython.go)
//
// ipython and tmux ask once per kind unless "Always". Every shell command
// an IPython cell starts (!cmd, %system, %%bash, …) comes back to the Host
// over a socket (procs/term) and goes through the policy and the Gate as
// a shell block does, checked as it will run; view_image(path) in a cell
// is the view_image tool's (WithImages).
package shelltool
