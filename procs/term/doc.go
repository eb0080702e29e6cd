// Package term runs interactive programs in pseudo-terminals and reads them
// the way a person would: as a screen.
//
// A Manager starts sessions (`bash -c CMD` in a pty, each in its own
// session and process group, named agentls_1, agentls_2, ...), types text
// and tmux key names into them, and reads their output through Terminal, a
// small VT model: progress bars redrawn with \r, `clear`, cursor movement
// and full-screen programs read as their final screen, with escape
// sequences gone. On top of that sit the two model-facing tools of
// DESIGN.md §8: the tmux tool's verbs (Manager.Tmux, gptme's behaviour
// without needing tmux) and the ipython tool's persistent Python
// interpreter (Manager.Python).
//
// Every process a Manager starts dies with it: Kill and Close signal the
// whole process group and every process left in the terminal's session,
// reap the child, and close the pty. A program that exits by itself stays
// a zombie until then, so its id (the group's and the session's) is never
// someone else's while it is signalled. Sessions start through procs/proc:
// if the server dies without Close, Pdeathsig and the watchdog kill them.
//
// The Python REPL is IPython where it is installed, else plain python3.
// A cell runs from a temporary file through a helper, its output cut
// between OSC markers rather than prompts. Every way IPython starts a
// shell command (!cmd, %system, aliases, %%bash, …) first asks agentls
// over a Unix socket in the cells' private folder, with the command as
// IPython expanded it, then runs exactly that; the answer comes from the
// CellHooks of the call running the cell (REPL.RunWith), so the command
// goes through the policy and the approval as a shell block does. This
// checks the model's commands; it is no sandbox: the cell's Python,
// approved as Python, can still call os.system.
package term
