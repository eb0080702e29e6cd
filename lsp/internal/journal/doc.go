// Package journal is the session's undo history, and only that: the
// edits the editor applied, by turn, bounded by entries and bytes, and
// kept on disk in the state folder so that undo works after a restart
// (Disk). It picks what an undo or redo takes and remembers what the
// user's edits refused; computing the inverse change on the buffers and
// sending it is the server's (lsp/undo.go).
//
// It keeps at most 200 entries or 64 MiB (the oldest dropped, the user
// told); an edit larger than the whole budget is not kept, and the
// editor's own undo still has it. On disk it is journal.jsonl in the
// state folder, never the workspace: records replayed through the same
// bounds, compacted when it holds twice what is kept, and the edit and
// turn counters under an flock, so numbers never repeat across restarts
// or between two servers of one workspace.
//
// A store: it calls no other store and nothing of the server.
package journal
