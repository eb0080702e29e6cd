package edittool

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools/approval"
)

// What a read tool shows goes into the model's context, as what a command
// prints does; so read and view_anchored follow the shell policy's secret
// rule (policy.SecretRule: .env files, keys, credential stores, links to
// them): where `cat .env` would ask, they ask, and where nobody can be
// asked the file is skipped with a note. Before, `read .env` showed the
// model what `cat .env` asked about.

// allowSecret returns nil when the model may be shown the file clean (as
// the read tool named tool reads it), asking the user through b.Confirm
// when the file may hold secrets. Otherwise it returns the error that
// stands in the file's place: skipped with nobody to ask, declined, or
// approval.ErrStopTurn wrapped.
func (b *Batch) allowSecret(ctx context.Context, tool, clean string) error {
	why := policy.NewSecretRule(b.Root, "").File(filepath.Join(b.Root, filepath.FromSlash(clean)))
	if why == "" {
		return nil
	}
	reason := fmt.Sprintf("`%s` %s: what %s shows goes to the model", clean, why, tool)
	err := approval.Gate{Confirmer: b.Confirm}.Ask(ctx, approval.Question{Action: tool + " " + clean, Reason: reason})
	if errors.Is(err, approval.ErrStopTurn) {
		return fmt.Errorf("%s %s: %w", tool, clean, approval.ErrStopTurn)
	}
	var r *approval.Refusal
	if err != nil && !errors.As(err, &r) {
		return fmt.Errorf("%s %s: %w", tool, clean, err)
	}
	return approval.Say(err, func(r *approval.Refusal) string {
		switch r.Reason {
		case approval.NobodyToAsk:
			return fmt.Sprintf("%s %s: skipped: %s, and nobody can be asked here; do without it, or ask the user", tool, clean, reason)
		case approval.PolicyDenies:
			return fmt.Sprintf("%s %s: skipped: %s, and the approval policy denies that without asking anyone (approvalPolicy: deny); do without it, or ask the user", tool, clean, reason)
		case approval.TimedOut:
			return fmt.Sprintf("%s %s: skipped: nobody answered in time whether to show it to you (%s); do without it, or ask the user", tool, clean, reason)
		}
		return fmt.Sprintf("%s %s: the user declined to show it to you (%s); do without it, or ask the user", tool, clean, reason)
	})
}
