package vision

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools/approval"
)

// An image sent to the model is in its context as what `cat` prints is,
// so view_image follows the shell policy's secret rule
// (policy.SecretRule): an image in .ssh or .aws, one named like a key or
// .env, or a link to one, is put to the user first; where nobody can be
// asked (c nil, or ErrNobodyToAsk: an ipython cell's view_image, agentls
// ask without a terminal) it is refused with a note.

// allowSecret returns nil when the image at rel (under root) may be sent,
// asking c when it may hold secrets, and otherwise the error that says
// why it was not (approval.ErrStopTurn wrapped when the user stopped the
// turn).
func allowSecret(ctx context.Context, root, rel string, c approval.Confirmer) error {
	why := policy.NewSecretRule(root, "").File(filepath.Join(root, filepath.FromSlash(rel)))
	if why == "" {
		return nil
	}
	reason := fmt.Sprintf("`%s` %s: view_image sends it to the model", rel, why)
	err := approval.Gate{Confirmer: c}.Ask(ctx, approval.Question{Action: "view_image " + rel, Reason: reason})
	if errors.Is(err, approval.ErrStopTurn) {
		return fmt.Errorf("view_image %s: %w", rel, approval.ErrStopTurn)
	}
	var r *approval.Refusal
	if err != nil && !errors.As(err, &r) {
		return fmt.Errorf("view_image %s: %w", rel, err)
	}
	return approval.Say(err, func(r *approval.Refusal) string {
		switch r.Reason {
		case approval.NobodyToAsk:
			return fmt.Sprintf("view_image %s: skipped: %s, and nobody can be asked here; do without it, or ask the user", rel, reason)
		case approval.PolicyDenies:
			return fmt.Sprintf("view_image %s: skipped: %s, and the approval policy denies that without asking anyone (approvalPolicy: deny); do without it, or ask the user", rel, reason)
		case approval.TimedOut:
			return fmt.Sprintf("view_image %s: skipped: nobody answered in time whether to send it (%s); do without it, or ask the user", rel, reason)
		}
		return fmt.Sprintf("view_image %s: the user declined to show it to you (%s); do without it, or ask the user", rel, reason)
	})
}
