package agent

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/procs/policy"
)

// maxGitDiff bounds what #git-diff attaches.
const maxGitDiff = 64 << 10

// gitDiffLine is the command #git-diff runs: every uncommitted change,
// staged or not, with git's programs that a repository's config could
// name (pager, external diff, text conversion, fsmonitor) left out.
const gitDiffLine = "git diff HEAD"

// GitDiff returns the uncommitted changes of the repository at root, for
// the #git-diff mention. It runs only where the shell policy would let
// the agent run git diff without asking: a repository whose config would
// make git run a program is refused, as the agent's git diff would ask.
func GitDiff(ctx context.Context, root string) (string, error) {
	p, err := policy.New(policy.Config{Root: root})
	if err != nil {
		return "", err
	}
	if v := p.CheckIn(root, gitDiffLine); v.Decision != policy.Allow {
		return "", fmt.Errorf("git diff is not run here without asking: %s", v.Reason)
	}
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.pager=cat",
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "HEAD")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git diff failed: %s", firstLine(msg))
	}
	diff := out.String()
	if len(diff) > maxGitDiff {
		diff = text.Clip(diff, maxGitDiff) + "\n[cut: the diff is longer than a mention adds; run git diff to see it all]"
	}
	return diff, nil
}
