package approval

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A Gate is the one way a tool asks before it acts: it puts the
// Question to its Confirmer, keeps an "Always" in its Memory (by the
// question's Pattern), and turns every other answer into a typed
// Refusal, or ErrStopTurn wrapped. The words the model reads are made
// where the refusal meets the model (Say): the tool knows what to
// suggest instead; the Gate only knows why it was refused.
type Gate struct {
	// Confirmer asks; nil: nobody can be asked.
	Confirmer Confirmer
	// Memory keeps "Always" answers and is consulted before asking; nil:
	// an "Always" allows this one action only.
	Memory Memory
}

// A Memory keeps the patterns the user answered "Always" for. *Kept
// keeps them for its own life; the shell host keeps them in its command
// policy and its always-file.
type Memory interface {
	// Allows reports whether an earlier "Always" covers pattern.
	Allows(pattern string) bool
	// Keep remembers an "Always" for pattern. Failing to keep it is no
	// reason to refuse what the user just allowed: the Gate lets it run.
	Keep(pattern string) error
}

// Ask returns nil when the action may go ahead: an earlier "Always"
// covers q.Pattern, or the user answered Run or Always. Otherwise it
// returns a *Refusal, ErrStopTurn wrapped (the user stopped the turn), or
// ctx's error.
func (g Gate) Ask(ctx context.Context, q Question) error {
	if g.Memory != nil && q.Pattern != "" && g.Memory.Allows(q.Pattern) {
		return nil
	}
	ans, err := Skip, ErrNobodyToAsk
	if g.Confirmer != nil {
		ans, err = g.Confirmer.Confirm(ctx, q)
	}
	switch {
	case errors.Is(err, ErrNobodyToAsk):
		return &Refusal{Reason: NobodyToAsk, Question: q}
	case errors.Is(err, ErrPolicyDenies):
		return &Refusal{Reason: PolicyDenies, Question: q}
	case errors.Is(err, ErrTimedOut):
		return &Refusal{Reason: TimedOut, Question: q}
	case err != nil:
		return err
	}
	switch ans {
	case Run:
		return nil
	case Always:
		if g.Memory != nil && q.Pattern != "" {
			_ = g.Memory.Keep(q.Pattern) // see Memory.Keep
		}
		return nil
	case StopTurn:
		return fmt.Errorf("%s: %w", q.Action, ErrStopTurn)
	}
	return &Refusal{Reason: Declined, Question: q}
}

// ErrPolicyDenies is a Confirmer's answer where the user's approval
// policy (approvalPolicy "deny") refuses everything that needs asking:
// nobody was asked.
var ErrPolicyDenies = errors.New("the approval policy denies it")

// DenyAll is the Confirmer of approvalPolicy "deny" wherever a turn runs
// (the server, agentls ask): it asks nobody and refuses everything that
// needs asking as the policy's refusal, not as a user's.
type DenyAll struct{}

func (DenyAll) Confirm(context.Context, Question) (Answer, error) { return Skip, ErrPolicyDenies }

// ErrTimedOut is a Confirmer's answer when nobody answered in time.
var ErrTimedOut = errors.New("nobody answered in time")

// A Reason is why an action that needed approval was not done.
type Reason int

const (
	// Declined: the user was asked and said no.
	Declined Reason = iota + 1
	// NobodyToAsk: nobody can be asked here (no terminal, no editor).
	NobodyToAsk
	// PolicyDenies: the user's policy refuses it without asking
	// (approvalPolicy "deny", a denylist).
	PolicyDenies
	// TimedOut: the user was asked and did not answer in time.
	TimedOut
)

func (r Reason) String() string {
	switch r {
	case Declined:
		return "the user declined"
	case NobodyToAsk:
		return "nobody can be asked here"
	case PolicyDenies:
		return "the approval policy denies it"
	case TimedOut:
		return "nobody answered in time"
	}
	return "refused"
}

// A Refusal is an action that needed approval and was not done: nothing
// of it ran. Its Error is plain words; a tool gives the model its own
// with Say.
type Refusal struct {
	Reason   Reason
	Question Question
}

func (r *Refusal) Error() string {
	what := r.Question.What()
	switch r.Reason {
	case Declined:
		return "the user declined to " + what
	case NobodyToAsk:
		return fmt.Sprintf("nobody can be asked here whether to %s (%s)", what, r.Question.Reason)
	case PolicyDenies:
		return fmt.Sprintf("the approval policy denies what needs the user's approval (approvalPolicy: deny): %s was not allowed (%s)", what, r.Question.Reason)
	case TimedOut:
		return fmt.Sprintf("nobody answered in time whether to %s", what)
	}
	return "refused to " + what
}

// Say gives a refusal the words the model reads: when err is (or wraps)
// a *Refusal, it returns an error reading words(r) that still wraps r
// (so errors.As finds it: nothing ran); any other error, or nil, is
// returned as it is.
func Say(err error, words func(r *Refusal) string) error {
	var r *Refusal
	if !errors.As(err, &r) {
		return err
	}
	return &said{text: words(r), r: r}
}

type said struct {
	text string
	r    *Refusal
}

func (s *said) Error() string { return s.text }
func (s *said) Unwrap() error { return s.r }

// Kept is a Memory that keeps patterns for its own life, matched
// exactly (a host, an action's name, an MCP tool). It is safe for
// concurrent use; the zero value is ready.
type Kept struct {
	mu       sync.Mutex
	patterns map[string]bool
}

// Allows reports whether pattern was kept.
func (a *Kept) Allows(pattern string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.patterns[pattern]
}

// Keep keeps pattern.
func (a *Kept) Keep(pattern string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.patterns == nil {
		a.patterns = map[string]bool{}
	}
	a.patterns[pattern] = true
	return nil
}
