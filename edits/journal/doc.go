// Package journal is a workspace's undo history, and only that: the
// edits a front-end applied, by turn, bounded by entries and bytes, and
// kept on disk in the state folder so that undo works after a restart
// (Disk). It picks what an undo or redo takes and remembers what the
// user's edits refused; computing the inverse change on the files and
// sending it is the front-end's: the language server's (lsp/undo.go)
// and the ACP agent's (acp/undo.go), which both record here, so one
// workspace has one history whichever front-end made the edits.
//
// It keeps at most 200 entries or 64 MiB (the oldest dropped, the user
// told); an edit larger than the whole budget is not kept, and the
// editor's own undo still has it. On disk it is journal.jsonl in the
// state folder, never the workspace: records replayed through the same
// bounds, compacted when it holds twice what is kept, and the edit and
// turn counters under an flock, so numbers never repeat across restarts
// or between two front-ends (servers, agents) of one workspace.
//
// A store: it calls no other store and nothing of a front-end; it lives
// under edits, below both of them, and needs only edits and the state
// folder (internal/statedir).
package journal
