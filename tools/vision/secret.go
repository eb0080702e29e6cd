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
	ans, err := approval.Skip, approval.ErrNobodyToAsk
	if c != nil {
		ans, err = c.Confirm(ctx, approval.Question{Action: "view_image " + rel, Reason: reason})
	}
	switch {
	case errors.Is(err, approval.ErrNobodyToAsk):
		return fmt.Errorf("view_image %s: skipped: %s, and nobody can be asked here; do without it, or ask the user", rel, reason)
	case err != nil:
		return fmt.Errorf("view_image %s: %w", rel, err)
	case ans == approval.StopTurn:
		return fmt.Errorf("view_image %s: %w", rel, approval.ErrStopTurn)
	case ans != approval.Run && ans != approval.Always:
		return fmt.Errorf("view_image %s: the user declined to show it to you (%s); do without it, or ask the user", rel, reason)
	}
	return nil
}
