// Package jobs runs the agent's background jobs: shell commands that keep
// running while the agent and the user go on (a test suite, a build, a dev
// server), whose output can be read, waited for and killed later.
//
// A job is `bash -c COMMAND` in its own session and process group, with
// stdin from /dev/null. Each of its streams is kept in a bounded ring buffer
// (the newest bytes win), so memory stays flat however much a job prints;
// the full output goes to a log file per job and, live, to a callback for
// the editor's output channel. Finished jobs stay readable (gptme purged
// them and lost output), the newest 50 of them with up to 32 MiB of
// output; older ones are forgotten, and asking for their output says so
// and where their log file is. A finished job lets go of its process,
// pipes and exec.Cmd at once.
// Killing a job kills its whole session (its process group and any group
// job control made in it), grandchildren included, and Close leaves no
// process, zombie or file descriptor behind. Jobs start through
// procs/proc, so a server that dies without Close (SIGKILL, a panic)
// takes them along too.
//
// The package also renders what the model reads (gptme's formats, gptme.md
// §7.5) and recognises the model's job commands: `bg CMD`, `jobs`,
// `output N`, `kill N`. Wiring them to LSP commands and to the shell tool
// is the caller's business.
package jobs
