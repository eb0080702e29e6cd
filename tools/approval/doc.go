// Package approval holds what a tool asks the user before it acts (a
// Question), the user's Answer, the Confirmer that asks, and the Gate
// every tool asks through (a typed Refusal when the answer is no).
//
// # One way to ask (gate.go)
//
// A tool never calls a Confirmer itself: it asks through a Gate, which
// consults the Memory of earlier "Always" answers (by the question's
// Pattern), asks, keeps a new "Always", and turns every other outcome
// into a *Refusal whose Reason says why nothing ran: Declined (the user
// said no), NobodyToAsk (no editor, no terminal), PolicyDenies
// (approvalPolicy "deny": nobody was asked; DenyAll) or TimedOut. The
// words the model reads are made at the edge, by the tool, with Say: the
// tool knows what to suggest instead, the Gate only why. So the model is
// never told "the user declined" when nobody was asked.
//
// Who the Confirmer is differs by front-end: the language server's
// approval diagnostics and buttons, the terminal for agentls ask, or, by
// the approvalPolicy setting, a Confirmer that allows or denies
// everything (agent.ConfirmerOf).
//
// # What is approved is what runs (show.go)
//
// A question's Action is a one-line summary (Summary: a button's head, a
// title, the model's note). Whenever it is not all of the command or
// cell, Detail holds every line (Command, Listing): numbered, so a
// renderer that joins lines cannot make line 2 read as line 1's comment,
// and with control, bidi and invisible characters escaped (Escape), so
// nothing overwrites or reorders what is shown. Every place that asks
// shows Detail whole. Digest names exactly what was shown: an answer
// given where only the summary is seen (a code action's title, a key
// bound to agentls.approve) must carry it, or nothing runs.
package approval
