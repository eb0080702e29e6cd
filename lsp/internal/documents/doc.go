// Package documents is the store of the buffers the editor has open, and
// only that: each buffer's text (an edits.Buffer, so a keystroke costs
// one chunk whatever the document's size), its version (Neovim and Helix
// open at 0, so "not open" is edits.NotOpen, never a version), the line
// hashes the anchored tools reuse (Store.LineHashes), and the states a
// buffer goes through while an edit is on its way to the editor
// (Store.Watch), which is how the server tells an edit the editor applied
// from one it skipped.
//
// A Document is a copy: its Buf is immutable and shared, so copies are
// cheap and never change under their reader. Store.Apply takes a
// didChange and tells its caller, with the store's lock still held, what
// each change did (a Change), so that stores which follow the buffers
// (the pending review hunks, the reply counts) see the changes in the
// order the buffer took them. Store.WaitVersionsPast is the one way to
// wait for a didChange that is still on its way.
//
// A store: it calls no other store and nothing of the server (the
// compiler enforces it: lsp/carve_test.go).
package documents
