package shelltool

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/tools/approval"
)

// ask puts q to the user through c (nil: nobody can be asked) by way of
// an approval.Gate, keeping an "Always" in mem (nil: not kept), and
// words a refusal for the model: what to do instead of the command.
func ask(ctx context.Context, c approval.Confirmer, mem approval.Memory, q approval.Question) error {
	err := approval.Gate{Confirmer: c, Memory: mem}.Ask(ctx, q)
	return approval.Say(err, func(r *approval.Refusal) string {
		switch r.Reason {
		case approval.NobodyToAsk:
			return fmt.Sprintf("`%s` needs the user's approval (%s), and nobody can be asked here; add it to the command allowlist, or do without it", q.Action, q.Reason)
		case approval.PolicyDenies:
			return fmt.Sprintf("`%s` needs the user's approval (%s), and the approval policy denies that without asking anyone (approvalPolicy: deny); add it to the command allowlist, or do without it", q.Action, q.Reason)
		case approval.TimedOut:
			return fmt.Sprintf("nobody answered in time whether to run `%s`: it was not run; do without it, or ask the user", q.Action)
		}
		return fmt.Sprintf("the user declined to run `%s`; do without it, or ask the user", q.Action)
	})
}

// denied is the refusal of a command the policy's denylist denies:
// nobody is asked, nothing runs.
func denied(command, reason string) error {
	r := &approval.Refusal{Reason: approval.PolicyDenies, Question: approval.Command(command, reason, "")}
	return approval.Say(r, func(*approval.Refusal) string { return "command denied: " + reason })
}

// patternSep joins the command patterns of one question: "Always" for
// `go test ./... && make` allows `go test; make` (each of them).
const patternSep = "; "

// policyMemory keeps a command's "Always" where the shell keeps it: in
// the command policy (every pattern the question names) and, for next
// time, in the always-file.
type policyMemory struct{ h *Host }

// Allows is false: the command policy, which holds every kept pattern,
// was consulted before the question was asked.
func (policyMemory) Allows(string) bool { return false }

func (m policyMemory) Keep(patterns string) error {
	for _, p := range strings.Split(patterns, patternSep) {
		if err := m.h.Remember(p); err != nil {
			return fmt.Errorf("remember %q: %w", p, err)
		}
		// Not keeping it for next time is no reason to refuse the
		// command the user allowed.
		_ = m.h.keepAlways(p)
	}
	return nil
}
