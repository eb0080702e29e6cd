package shelltool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// refusing answers every question with err, as a Confirmer that asks
// nobody does (approvalPolicy "deny", no terminal, a timeout).
type refusing struct{ err error }

func (r refusing) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Skip, r.err
}

// TestShellRefusalWords: a command that needs approval and is not
// approved does not run; the model is told why, in words that match the
// reason (the policy denying it is not the user declining), and the
// error is an approval.Refusal: nothing ran. The denylist's refusal is
// one too.
func TestShellRefusalWords(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		script  string
		c       approval.Confirmer
		reason  approval.Reason
		want    string
		notSaid string
	}{
		{"declined", "touch made", &answerer{ans: approval.Skip}, approval.Declined, "the user declined to run `touch made`", "nobody"},
		{"nobody to ask", "touch made", refusing{approval.ErrNobodyToAsk}, approval.NobodyToAsk, "nobody can be asked here; add it to the command allowlist", "declined"},
		{"no confirmer", "touch made", nil, approval.NobodyToAsk, "nobody can be asked here", "declined"},
		{"approvalPolicy deny", "touch made", approval.DenyAll{}, approval.PolicyDenies, "the approval policy denies that without asking anyone", "declined"},
		{"timed out", "touch made", refusing{approval.ErrTimedOut}, approval.TimedOut, "nobody answered in time whether to run `touch made`", "declined"},
		{"the denylist", "git reset --hard", &answerer{ans: approval.Run}, approval.PolicyDenies, "command denied: ", "declined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, Options{})
			_, err := h.RunTool(ctx, shellUse(tc.script), tc.c)
			var r *approval.Refusal
			if !errors.As(err, &r) || r.Reason != tc.reason {
				t.Fatalf("err = %v, want a refusal for %v", err, tc.reason)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.notSaid) {
				t.Errorf("the model is told %q; want %q, and no %q", err, tc.want, tc.notSaid)
			}
			if tools.ChangedOf(err) != tools.ChangeNone {
				t.Errorf("a refusal says %v, want that nothing changed", tools.ChangedOf(err))
			}
			if _, err := os.Stat(filepath.Join(h.opts.Root, "made")); err == nil {
				t.Error("the refused command ran")
			}
		})
	}
}

// TestTmuxAlwaysKept: "Always" for tmux verbs that type is kept by the
// host's Gate memory: the next such call is not asked about, and a
// "Run" is not kept.
func TestTmuxAlwaysKept(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, Options{})
	once := &answerer{ans: approval.Run}
	use := tools.ToolUse{Tool: "tmux", Content: "new-session 'sleep 30'"}
	h.RunTool(ctx, use, once)
	h.RunTool(ctx, use, once)
	if once.questions() != 2 {
		t.Errorf("Run: asked %d times, want 2", once.questions())
	}
	always := &answerer{ans: approval.Always}
	h.RunTool(ctx, use, always)
	h.RunTool(ctx, use, always)
	if always.questions() != 1 {
		t.Errorf("Always: asked %d times, want 1", always.questions())
	}
}

// TestShellFailsAfterAStep: a block whose job cannot start after its
// first step ran returns what the step printed with an error that says
// part of the block ran.
func TestShellFailsAfterAStep(t *testing.T) {
	h := newHost(t, Options{})
	h.Jobs().Close()
	out, err := h.RunTool(context.Background(), shellUse("echo printed\nbg sleep 30"), &answerer{ans: approval.Run})
	if err == nil || !strings.Contains(out, "printed") || tools.ChangedOf(err) != tools.ChangePartial {
		t.Errorf("out %q, err %v (%v); want the step's output and a partial failure", out, err, tools.ChangedOf(err))
	}
	// A job that cannot start as the block's first step changed nothing
	// the tool knows of: it does not say partial.
	if _, err := h.RunTool(context.Background(), shellUse("bg sleep 30"), &answerer{ans: approval.Run}); err == nil || tools.ChangedOf(err) == tools.ChangePartial {
		t.Errorf("err %v (%v); want a failure not marked partial", err, tools.ChangedOf(err))
	}
}
