package tools

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agentls/agentls/tools/approval"
)

// TestChangedOf: the outermost word on a failure wins; a refusal changed
// nothing; an error that says nothing is unknown.
func TestChangedOf(t *testing.T) {
	plain := errors.New("boom")
	refusal := &approval.Refusal{Reason: approval.Declined, Question: approval.Question{Action: "x"}}
	for _, tc := range []struct {
		name string
		err  error
		want Change
	}{
		{"nil", nil, ChangeUnknown},
		{"plain", plain, ChangeUnknown},
		{"unchanged", Unchanged(plain), ChangeNone},
		{"partly, wrapped", fmt.Errorf("shell: %w", PartlyChanged(plain)), ChangePartial},
		{"a refusal", refusal, ChangeNone},
		{"a refusal in words", approval.Say(refusal, func(*approval.Refusal) string { return "no" }), ChangeNone},
		{"a refusal after part of the call ran", PartlyChanged(fmt.Errorf("step 2: %w", refusal)), ChangePartial},
		{"joined", errors.Join(plain, Unchanged(plain)), ChangeNone},
	} {
		if got := ChangedOf(tc.err); got != tc.want {
			t.Errorf("%s: ChangedOf = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Unchanged(nil) != nil || PartlyChanged(nil) != nil {
		t.Error("a nil error was marked as a failure")
	}
	if !errors.Is(Unchanged(plain), plain) {
		t.Error("Unchanged hides the error it marks")
	}
}
