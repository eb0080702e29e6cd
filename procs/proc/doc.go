// Package proc starts the processes of the agent's tools — the persistent
// shell (procs/shell), background jobs (procs/jobs), terminal sessions
// (procs/term) — so that none of them, and nothing they start, outlives
// the server: not when it closes them, and not when it dies without
// closing anything (SIGKILL from the editor, a Go panic, os.Exit).
//
// Every child is the leader of a session of its own (so of a process
// group of its own: pgid = sid = pid), and is covered twice:
//
//   - Pdeathsig (SIGKILL): the kernel kills the child itself when its
//     parent dies. Linux ties it to the parent *thread* that forked the
//     child, and the Go runtime ends threads (one whose goroutine exits
//     while locked to it, for one), so the child is started from a
//     goroutine locked to its OS thread that stays there, blocked in
//     waitid, until the child has exited. That costs no extra thread: a
//     goroutine waiting for a child holds one anyway. Pdeathsig reaches
//     the child only, never its children: `sleep 300 &` in the shell
//     would survive it.
//   - A watchdog process per Guard (the running binary re-executed, see
//     Guard) holds the read end of a pipe whose write end only the server
//     holds. However the server dies, the kernel closes its descriptors;
//     the watchdog reads end of file and SIGKILLs every session it was
//     told about: the process group, and every process left in the
//     session in a group of its own (an interactive shell's jobs). It
//     works for SIGKILL, which no handler in the server could.
//
// PR_SET_CHILD_SUBREAPER was not enough: orphans would be reparented to
// the server, but a SIGKILLed server can neither kill nor reap them. A
// watchdog process per child was not needed: one per Guard, told of each
// session by a line on the pipe, costs one process however many jobs run.
//
// A session's id stays the watchdog's until Reap, which tells the
// watchdog to forget it just before reaping the leader: the leader stays
// a zombie until then (waitid with WNOWAIT), so its id, which is also the
// group and session id, cannot be given to another process while it is
// watched or signalled. What is left: a child the server started in the
// microseconds before its watchdog heard of it has only Pdeathsig; a
// process that moved to a session of its own (setsid, a daemon) is no
// longer ours; a watchdog killed on purpose is restarted only at the next
// line the Guard sends it.
package proc
