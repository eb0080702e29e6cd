package shelltool

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/procs/term"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// An ImageViewer shows the image at rel (relative to the workspace root)
// to the model and returns what the cell prints of it: view_image's own
// check, fit and send (agent.BindTools binds it).
type ImageViewer func(ctx context.Context, rel string) (string, error)

type imageViewerKey struct{}

// WithImages returns run with view_image(path) inside its cells shown
// through view, with the context of the call (whose turn sends the image).
func WithImages(run tools.RunFunc, view ImageViewer) tools.RunFunc {
	if run == nil {
		return nil
	}
	return func(ctx context.Context, use tools.ToolUse) (string, error) {
		return run(context.WithValue(ctx, imageViewerKey{}, view), use)
	}
}

// pythonHooks answer what a cell asks: a shell command it starts is put
// to the command policy, and to c when the policy asks, as a shell block
// is (a denied or declined one does not run, and the cell prints why); an
// image goes through the call's ImageViewer.
func (h *Host) pythonHooks(c approval.Confirmer) term.CellHooks {
	return term.CellHooks{
		System: func(ctx context.Context, dir, command string) error {
			return h.approveCommand(ctx, c, dir, command)
		},
		ViewImage: func(ctx context.Context, dir, path string) (string, error) {
			view, ok := ctx.Value(imageViewerKey{}).(ImageViewer)
			if !ok || view == nil {
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
			return view(ctx, filepath.ToSlash(rel))
		},
	}
}

// approveCommand decides a command a Python cell starts in dir: allowed
// by the policy, or asked and allowed by the user ("Always" remembered as
// for the shell). Its error is what the cell prints instead of running it.
func (h *Host) approveCommand(ctx context.Context, c approval.Confirmer, dir, command string) error {
	v := h.Policy().CheckIn(dir, command)
	// An allowed runner asks again before it runs what the agent wrote
	// this turn (written.go).
	v, err := askWritten(ctx, c, command, v)
	if err != nil {
		return err
	}
	switch v.Decision {
	case policy.Deny:
		return denied(command, v.Reason)
	case policy.Ask:
		return ask(ctx, c, policyMemory{h}, approval.Command(command, v.Reason+" (from a Python cell)", strings.Join(policy.Patterns(command), patternSep)))
	}
	return nil
}
