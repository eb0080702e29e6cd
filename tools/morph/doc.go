// Package morph runs the morph tool (gptme's): the agent writes a lazy
// edit — the code it changes, with "// ... existing code ..." markers for
// the rest — and a fast apply model (Morph's, or any OpenAI-compatible
// model prompted the same way) merges it into the file. The merged file
// is not trusted: before anything lands it is checked against the
// original (the file unchanged since the merge read it, every line the
// edit does not name kept in order, the change confined to what the edit
// names: Check), and it goes through the workspace's normal send path
// (Workspace.Propose: one edit, journalled with the turn, protected files
// asked about). A refused merge changes nothing and shows the agent its
// diff.
//
// Trust: morph *sends* (the file and the edit go to the apply model's
// endpoint), so the applyModel setting that names it is a risky key; it
// writes nothing outside the turn's edit flow and runs nothing.
//
// # The check (check.go)
//
// A marker is a comment whose text starts with "..." (IsMarker); the
// edit's runs between markers are its pieces. Check demands three things:
//
//  1. Pieces found: each piece's non-blank lines are consecutive in the
//     result, in order.
//  2. Gaps unchanged: the result's lines outside the pieces are the
//     original's, byte for byte and in order; the first gap starts the
//     file and the last ends it.
//  3. Deletions named: an original line missing from the result must lie
//     inside one piece, between kept lines of that piece (a piece shows
//     what surrounds what it removes), or be blank or re-indented. Which
//     of several equal lines a piece pairs with is the alignment's choice,
//     so both the earliest and the latest alignment must pass.
//
// A marker in the result that the original lacks is refused. Where a run
// occurs more than once, the place steps 1–2 pick can only make the check
// refuse a merge it could have taken (the agent then uses patch), not
// accept an unsound one. It runs at tens of MB/s, far below the
// apply model's own time. morph is offered only when applyModel is set;
// otherwise it is marked unavailable, and agentls tools --all says why.
//
// With applyModelFallback, PatchFallback wraps patch: a patch whose hunk
// holds a placeholder and cannot be placed becomes a lazy edit
// (LazyFromPatch), merged and checked as above; a refused merge returns
// the patch's own error with the merge's reason.
package morph
