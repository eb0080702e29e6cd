// Package review is the store of agent edits waiting for the user's
// review, and only that: the pending hunks, by file, and where each lies
// in the buffer the store follows, moved along with each didChange
// (Store.Follow) so that code actions and diagnostics read positions
// without resolving every hunk on the whole text. Accepting a hunk
// (sending it to the editor) and showing it are the server's
// (lsp/review.go).
//
// A store: it calls no other store and nothing of the server.
package review
