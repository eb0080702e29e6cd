package shelltool

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/procs/term"
	"github.com/agentls/agentls/tools/approval"
)

// pythonHooks answer what a cell asks: a shell command it starts is put
// to the command policy, and to c when the policy asks, as a shell block
// is (a denied or declined one does not run, and the cell prints why); an
// image goes through the turn's Env.ViewImage.
func (h *Host) pythonHooks(in turn) term.CellHooks {
	return term.CellHooks{
		System: func(ctx context.Context, dir, command string) error {
			return h.approveCommand(ctx, in, dir, command)
		},
		ViewImage: func(ctx context.Context, dir, path string) (string, error) {
			if in.view == nil {
				return "", errors.New("view_image cannot show images from here (only an agent turn sends them to the model)")
			}
			abs := path
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(dir, abs)
			}
			rel, err := filepath.Rel(h.opts.Root, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return "", fmt.Errorf("%s is outside the workspace %s: view_image shows the workspace's images only", abs, h.opts.Root)
			}
			return in.view(ctx, filepath.ToSlash(rel))
		},
	}
}

// approveCommand decides a command a Python cell starts in dir: allowed
// by the policy, or asked and allowed by the user ("Always" remembered as
// for the shell). Its error is what the cell prints instead of running it.
func (h *Host) approveCommand(ctx context.Context, in turn, dir, command string) error {
	v := h.Policy().CheckIn(dir, command)
	// An allowed runner asks again before it runs what the agent wrote
	// this turn (written.go).
	v, err := askWritten(ctx, in, command, v)
	if err != nil {
		return err
	}
	switch v.Decision {
	case policy.Deny:
		return denied(command, v.Reason)
	case policy.Ask:
		return ask(ctx, in.confirm, policyMemory{h}, approval.Command(command, v.Reason+" (from a Python cell)", strings.Join(policy.Patterns(command), patternSep)))
	}
	return nil
}
