package approval

import (
	"context"
	"errors"
)

// A Question is what a tool asks the user before it does something that
// needs approval, such as a shell command that is not on the allowlist.
type Question struct {
	// Action is what will run, as the user should see it (a command line).
	Action string
	// Reason says why it needs approval.
	Reason string
	// Pattern is what "Always" would allow from now on (e.g. "go test");
	// empty when the action cannot be generalised.
	Pattern string
	// Edit says Action names files to be edited (protected ones, such as
	// .git/config), not a command to run.
	Edit bool
	// Detail, when set, is shown with the question, whole: the edit, as
	// a diff, or every line of a command whose Action is a one-line
	// summary (Command). A Confirmer never offers to approve without
	// having shown it (see show.go).
	Detail string
}

// What is what the question asks to do, for the user: "run `go test`",
// "edit .git/config".
func (q Question) What() string {
	if q.Edit {
		return "edit " + q.Action
	}
	return "run `" + q.Action + "`"
}

// An Answer is the user's decision on a Question.
type Answer int

const (
	// Skip: do not run it; the model is told and the turn goes on.
	Skip Answer = iota
	// Run it this once.
	Run
	// Always: run it, and from now on everything its Pattern matches.
	Always
	// StopTurn: do not run it, and end the agent's turn.
	StopTurn
)

func (a Answer) String() string {
	switch a {
	case Run:
		return "run"
	case Always:
		return "always"
	case StopTurn:
		return "stop"
	}
	return "skip"
}

// A Confirmer asks the user. An unanswered question must end within a
// bounded time (as Skip, or ErrTimedOut); Confirm returns an error only
// when ctx ends, or to say why nobody was asked: ErrNobodyToAsk,
// ErrPolicyDenies. Tools ask through a Gate, which makes the answers a
// Refusal.
type Confirmer interface {
	Confirm(ctx context.Context, q Question) (Answer, error)
}

// ErrNobodyToAsk is a Confirmer's answer where nobody can be asked (no
// terminal, approvalPolicy "deny"): what needs approval is refused, and
// the model is told to do without it.
var ErrNobodyToAsk = errors.New("nobody can be asked here")

// ErrStopTurn is returned by a tool whose user chose to stop the turn; the
// agent's loop ends the turn on it.
var ErrStopTurn = errors.New("the user stopped the turn")
