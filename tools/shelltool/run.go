package shelltool

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentls/agentls/procs/jobs"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/procs/shell"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// A step is one part of a shell block: commands for the persistent shell,
// or one background job.
type step struct {
	script string
	bg     bool
}

// maxWait bounds `wait N SECONDS`.
const maxWait = 10 * time.Minute

// runShell runs a model's shell block. Unlike gptme, `bg` lines and the
// lines around them go through the policy too (gptme let both bypass it),
// and the whole block is put to the user as one question.
func (h *Host) runShell(ctx context.Context, script string, in turn) (string, error) {
	script = strings.TrimSpace(script)
	if script == "" {
		return "", errors.New("no command given")
	}
	if out, ok, err := h.jobVerb(ctx, script); ok {
		return out, err
	}
	steps, err := splitSteps(script)
	if err != nil {
		return "", err
	}
	if len(steps) == 0 {
		return "Nothing to run (the block holds only comments).", nil
	}
	var whole []string
	for _, s := range steps {
		if s.bg && strings.TrimSpace(s.script) == "" {
			return jobs.BgUsage, nil
		}
		whole = append(whole, s.script)
	}
	checked := strings.Join(whole, "\n")
	v := h.Policy().CheckIn(h.shellDir(), checked)
	// An allowed runner asks again before it runs what the agent wrote
	// this turn (written.go).
	if v, err = askWritten(ctx, in, checked, v); err != nil {
		return "", err
	}
	switch v.Decision {
	case policy.Deny:
		return "", denied(checked, v.Reason)
	case policy.Ask:
		q := approval.Command(checked, v.Reason, strings.Join(policy.Patterns(checked), patternSep))
		if err := ask(ctx, in.confirm, policyMemory{h}, q); err != nil {
			return "", err
		}
	}
	var out []string
	if h.opts.BeforeRun != nil {
		if note := h.opts.BeforeRun(ctx); note != "" {
			out = append(out, note)
		}
	}
	for i, s := range steps {
		if s.bg {
			dir := h.opts.Root
			if h.opts.Exec == nil {
				if sh, err := h.session(ctx); err == nil {
					dir = sh.Dir()
				}
			}
			info, err := h.jobs.Start(ctx, s.script, dir)
			if err != nil {
				return strings.Join(out, "\n\n"), ranBefore(i, fmt.Errorf("start job `%s`: %w", s.script, err))
			}
			if h.opts.JobStarted != nil {
				h.opts.JobStarted(info)
			}
			out = append(out, jobs.StartedMessage(info))
			continue
		}
		msg, failed, err := h.runCommands(ctx, s.script)
		if err != nil {
			// What ran before the error is the model's to read.
			if msg != "" {
				out = append(out, msg)
			}
			return strings.Join(out, "\n\n"), ranBefore(i, err)
		}
		out = append(out, msg)
		if failed {
			if rest := steps[i+1:]; len(rest) > 0 {
				var names []string
				for _, r := range rest {
					names = append(names, "`"+clipLine(r.script)+"`")
				}
				out = append(out, "Not run because a command before them failed: "+strings.Join(names, ", "))
			}
			break
		}
	}
	return strings.Join(out, "\n\n"), nil
}

// runCommands runs a script in the persistent shell and reports each
// command that ended to Finished.
func (h *Host) runCommands(ctx context.Context, script string) (msg string, failed bool, err error) {
	res, dir, err := h.run(ctx, script)
	if err != nil && res == nil {
		return "", false, err
	}
	for _, cmd := range res.Commands {
		if h.opts.Finished != nil && !cmd.Interrupted {
			h.opts.Finished(Finished{Command: cmd.Text, Dir: dir, ExitCode: cmd.ExitCode, Output: cmd.Stdout + cmd.Stderr, LogPath: cmd.LogPath})
		}
		if cmd.ExitCode != 0 {
			failed = true
		}
	}
	if n := len(res.Commands); n > 0 {
		last := res.Commands[n-1]
		switch {
		case last.TimedOut:
			tools.ReportOutcome(ctx, "timed out")
		case last.Interrupted:
			tools.ReportOutcome(ctx, "interrupted")
		default:
			tools.ReportOutcome(ctx, fmt.Sprintf("exit %d", last.ExitCode))
		}
	}
	h.mu.Lock()
	limits := h.limits
	h.mu.Unlock()
	if err != nil && len(res.Commands) > 0 {
		err = tools.PartlyChanged(err) // its first commands ran
	}
	return res.Message(limits), failed || len(res.Skipped) > 0, err
}

// run runs a script in the persistent shell, or through Options.Exec,
// and says where it ran.
func (h *Host) run(ctx context.Context, script string) (*shell.Result, string, error) {
	if h.opts.Exec != nil {
		cmd, err := h.opts.Exec(ctx, script)
		if err != nil {
			return nil, "", err
		}
		return &shell.Result{Commands: []shell.Command{cmd}}, h.opts.Root, nil
	}
	sh, err := h.session(ctx)
	if err != nil {
		return nil, "", err
	}
	res, err := sh.Run(ctx, script)
	if err != nil && res == nil {
		var syn *shell.SyntaxError
		if errors.As(err, &syn) {
			return nil, "", syn
		}
		return nil, "", fmt.Errorf("shell: %w", err)
	}
	return res, sh.Dir(), err
}

// ranBefore marks the error of a block's step i as a failure after part
// of the block ran when a step before it did (each step ran whole, or
// the block stopped there).
func ranBefore(i int, err error) error {
	if i > 0 {
		return tools.PartlyChanged(err)
	}
	return err
}

// splitSteps cuts a block into shell steps and `bg` jobs, statement by
// statement (so a heredoc line that starts with "bg " is data, not a job,
// unlike gptme's line test).
func splitSteps(script string) ([]step, error) {
	cmds, err := shell.Split(script)
	if err != nil {
		return nil, err
	}
	var steps []step
	for _, cmd := range cmds {
		if verb, arg, ok := jobs.Parse(cmd); ok && verb == jobs.VerbBg {
			steps = append(steps, step{script: arg, bg: true})
			continue
		}
		if n := len(steps); n > 0 && !steps[n-1].bg {
			steps[n-1].script += "\n" + cmd
			continue
		}
		steps = append(steps, step{script: cmd})
	}
	return steps, nil
}

// jobVerb answers a block that is one of the job verbs: `jobs`,
// `output N`, `kill N` (when job N exists; otherwise it is the shell's
// kill), and `wait N [SECONDS]`.
func (h *Host) jobVerb(ctx context.Context, script string) (string, bool, error) {
	if strings.Contains(script, "\n") {
		return "", false, nil
	}
	if id, secs, ok := parseWait(script); ok {
		out, err := h.waitJob(ctx, id, secs)
		return out, true, err
	}
	verb, arg, ok := jobs.Parse(script)
	if !ok || verb == jobs.VerbBg {
		return "", false, nil
	}
	if verb == "jobs" {
		return jobs.FormatList(h.jobs.List()), true, nil
	}
	id, valid := jobs.ParseID(arg)
	info, exists := h.jobs.Info(id)
	if verb == "kill" && (!valid || !exists) {
		return "", false, nil // the shell's own kill
	}
	if !valid || !exists {
		return jobs.UnknownJobMessage(arg), true, nil
	}
	if verb == "kill" {
		info, err := h.jobs.Kill(ctx, info.ID)
		if err != nil {
			return "", true, fmt.Errorf("kill job %d: %w", id, err)
		}
		return jobs.KilledMessage(info), true, nil
	}
	o, err := h.jobs.Output(id, jobs.ModelStdoutBytes, jobs.ModelStderrBytes)
	if err != nil {
		return "", true, err
	}
	return jobs.FormatOutput(info, o), true, nil
}

// parseWait reads `wait N [SECONDS]` (job N, not the shell's wait for a
// pid: it is ours only when N is written "#N" or names a job and SECONDS,
// if given, is a number).
func parseWait(script string) (id int, secs float64, ok bool) {
	f := strings.Fields(script)
	if len(f) < 2 || len(f) > 3 || !strings.EqualFold(f[0], "wait") {
		return 0, 0, false
	}
	id, ok = jobs.ParseID(strings.TrimPrefix(f[1], "#"))
	if !ok {
		return 0, 0, false
	}
	secs = 60
	if len(f) == 3 {
		s, err := strconv.ParseFloat(f[2], 64)
		if err != nil || s <= 0 {
			return 0, 0, false
		}
		secs = s
	}
	return id, secs, true
}

// waitJob waits for a job to end, at most secs seconds, and shows its
// output.
func (h *Host) waitJob(ctx context.Context, id int, secs float64) (string, error) {
	if _, exists := h.jobs.Info(id); !exists {
		return jobs.UnknownJobMessage(strconv.Itoa(id)), nil
	}
	timeout := min(time.Duration(secs*float64(time.Second)), maxWait)
	info, err := h.jobs.Wait(ctx, id, timeout)
	if err != nil {
		return "", err
	}
	o, err := h.jobs.Output(id, jobs.ModelStdoutBytes, jobs.ModelStderrBytes)
	if err != nil {
		return "", err
	}
	head := ""
	if info.Running {
		head = fmt.Sprintf("Job #%d is still running after %s; wait again, read `output %d`, or `kill %d`.\n\n", id, timeout, id, id)
	}
	return head + jobs.FormatOutput(info, o), nil
}

// jobExited reports a finished job to Finished.
func (h *Host) jobExited(info jobs.Info) {
	if h.opts.Finished == nil || info.Killed {
		return
	}
	o, err := h.jobs.Output(info.ID, 0, 0)
	if err != nil {
		return
	}
	h.opts.Finished(Finished{Command: info.Command, Dir: info.Dir, ExitCode: info.ExitCode, Output: o.Stdout + o.Stderr, Job: info.ID, LogPath: info.LogPath})
}

// StartJob starts a job for the user (agentls.run): the user's own
// command runs without the policy's questions.
func (h *Host) StartJob(ctx context.Context, command string) (jobs.Info, error) {
	dir := h.opts.Root
	h.mu.Lock()
	if h.shell != nil {
		dir = h.shell.Dir()
	}
	h.mu.Unlock()
	info, err := h.jobs.Start(ctx, command, dir)
	if err == nil && h.opts.JobStarted != nil {
		h.opts.JobStarted(info)
	}
	return info, err
}
