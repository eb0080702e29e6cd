package shelltool

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools/approval"
)

// askWritten puts a shell block to the user again when the policy allows
// it but it runs a file the turn's edit tools wrote (policy.WrittenRunBy:
// `go test` after the agent saved x_test.go): the user allowed the runner,
// not the code the agent writes for it. It returns the verdict to go on
// with, or the refusal. A question the policy asks anyway says why too,
// and what "Always" for a runner allows.
func askWritten(ctx context.Context, in turn, script string, v policy.Verdict) (policy.Verdict, error) {
	if v.Decision == policy.Deny {
		return v, nil
	}
	paths, counts := in.writes.Pending()
	why, files := policy.WrittenRunBy(script, paths)
	if v.Decision == policy.Ask {
		if why != "" {
			v.Reason += "; " + why
		}
		for _, p := range policy.Patterns(script) {
			if policy.RunsCode(p) {
				v.Reason += fmt.Sprintf("; “Always” lets `%s` run unasked from now on, on your code as it is; after the agent changes a file it runs, it asks again", p)
				break
			}
		}
		return v, nil
	}
	if why == "" {
		return v, nil
	}
	// No "Always" here: it would allow what the question is about.
	q := approval.Command(script, why+": the command is allowed, but not to run code the agent wrote without you seeing it", "")
	if err := ask(ctx, in.confirm, nil, q); err != nil {
		return v, err
	}
	var ran []int // the counts of the files the question named
	for _, f := range files {
		ran = append(ran, counts[slices.Index(paths, f)])
	}
	in.writes.Approve(files, ran)
	return v, nil
}
