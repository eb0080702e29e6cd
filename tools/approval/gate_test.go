package approval

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// answering is a Confirmer that answers every question the same way and
// counts them.
type answering struct {
	ans   Answer
	err   error
	asked int
}

func (a *answering) Confirm(context.Context, Question) (Answer, error) {
	a.asked++
	return a.ans, a.err
}

// TestGateAsk: each answer becomes nil, a Refusal with its reason, or
// ErrStopTurn; a Refusal's own words say why, and nothing else.
func TestGateAsk(t *testing.T) {
	q := Command("touch made", "not on the allowlist", "touch")
	for _, tc := range []struct {
		name    string
		c       Confirmer
		reason  Reason // 0: no refusal
		stop    bool
		words   string
		notSaid string
	}{
		{name: "run", c: &answering{ans: Run}},
		{name: "always", c: &answering{ans: Always}},
		{name: "declined", c: &answering{ans: Skip}, reason: Declined, words: "the user declined to run `touch made`", notSaid: "nobody"},
		{name: "nobody to ask", c: &answering{err: ErrNobodyToAsk}, reason: NobodyToAsk, words: "nobody can be asked here whether to run `touch made`", notSaid: "declined"},
		{name: "no confirmer", c: nil, reason: NobodyToAsk, words: "nobody can be asked here"},
		{name: "policy denies", c: &answering{err: ErrPolicyDenies}, reason: PolicyDenies, words: "approval policy denies", notSaid: "declined"},
		{name: "approvalPolicy deny", c: DenyAll{}, reason: PolicyDenies, words: "approval policy denies", notSaid: "nobody can be asked"},
		{name: "timed out", c: &answering{err: ErrTimedOut}, reason: TimedOut, words: "nobody answered in time whether to run `touch made`", notSaid: "declined"},
		{name: "stop", c: &answering{ans: StopTurn}, stop: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Gate{Confirmer: tc.c}.Ask(context.Background(), q)
			var r *Refusal
			switch {
			case tc.stop:
				if !errors.Is(err, ErrStopTurn) || errors.As(err, &r) {
					t.Fatalf("Ask = %v, want ErrStopTurn and no Refusal", err)
				}
			case tc.reason == 0:
				if err != nil {
					t.Fatalf("Ask = %v, want nil", err)
				}
			default:
				if !errors.As(err, &r) || r.Reason != tc.reason {
					t.Fatalf("Ask = %v, want a Refusal for %v", err, tc.reason)
				}
				if !strings.Contains(err.Error(), tc.words) || (tc.notSaid != "" && strings.Contains(err.Error(), tc.notSaid)) {
					t.Errorf("the refusal says %q; want %q, without %q", err, tc.words, tc.notSaid)
				}
			}
		})
	}
}

// TestGateCtxError: a Confirmer's other error (ctx ended) is no refusal.
func TestGateCtxError(t *testing.T) {
	err := Gate{Confirmer: &answering{err: context.Canceled}}.Ask(context.Background(), Question{Action: "x"})
	var r *Refusal
	if !errors.Is(err, context.Canceled) || errors.As(err, &r) {
		t.Errorf("Ask = %v, want context.Canceled and no Refusal", err)
	}
}

// TestGateRemembersAlways: an "Always" is kept by the question's pattern;
// the next question with that pattern is not asked, another one is; a
// question without a pattern is never allowed by memory.
func TestGateRemembersAlways(t *testing.T) {
	ctx := context.Background()
	c := &answering{ans: Always}
	g := Gate{Confirmer: c, Memory: &Kept{}}
	if err := g.Ask(ctx, Question{Action: "fetch a.example/1", Pattern: "a.example"}); err != nil {
		t.Fatal(err)
	}
	c.ans = Skip
	if err := g.Ask(ctx, Question{Action: "fetch a.example/2", Pattern: "a.example"}); err != nil || c.asked != 1 {
		t.Errorf("after Always: Ask = %v, asked %d times; want nil, once", err, c.asked)
	}
	if err := g.Ask(ctx, Question{Action: "fetch b.example/", Pattern: "b.example"}); err == nil || c.asked != 2 {
		t.Errorf("another pattern: Ask = %v, asked %d times; want a refusal, twice", err, c.asked)
	}
	if err := g.Ask(ctx, Question{Action: "a.example"}); err == nil || c.asked != 3 {
		t.Errorf("no pattern: Ask = %v, asked %d times; want a refusal, three times", err, c.asked)
	}
	// Without a Memory, an Always allows that one action only.
	c.ans = Always
	g = Gate{Confirmer: c}
	g.Ask(ctx, Question{Action: "x", Pattern: "x"})
	g.Ask(ctx, Question{Action: "x", Pattern: "x"})
	if c.asked != 5 {
		t.Errorf("without a Memory: asked %d times, want 5", c.asked)
	}
}

// TestSay: the words are the tool's; the Refusal is still in the chain;
// other errors pass through.
func TestSay(t *testing.T) {
	err := Say(&Refusal{Reason: Declined, Question: Question{Action: "x"}}, func(r *Refusal) string { return "custom: " + r.Reason.String() })
	var r *Refusal
	if err.Error() != "custom: the user declined" || !errors.As(err, &r) {
		t.Errorf("Say = %q (a Refusal: %t)", err, errors.As(err, &r))
	}
	other := errors.New("other")
	if Say(other, func(*Refusal) string { return "no" }) != other || Say(nil, func(*Refusal) string { return "no" }) != nil {
		t.Error("Say changed an error that is no refusal")
	}
}
