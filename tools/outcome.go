package tools

import "context"

// A tool call's outcome is a few words on how it ended beyond ok or
// failed ("exit 1", "timed out"), for the timing line of each call in the
// output channel and the conversation log. A tool's Run reports it with
// ReportOutcome; whoever runs the call collects it with WithOutcome.

type outcomeKey struct{}

// WithOutcome returns ctx carrying report, for the tool call run with it.
func WithOutcome(ctx context.Context, report func(string)) context.Context {
	return context.WithValue(ctx, outcomeKey{}, report)
}

// ReportOutcome tells whoever runs the call how it ended; without a
// collector it does nothing.
func ReportOutcome(ctx context.Context, outcome string) {
	if report, ok := ctx.Value(outcomeKey{}).(func(string)); ok && report != nil {
		report(outcome)
	}
}
