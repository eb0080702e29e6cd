// Package rpc hardens the language server's transport, and does only
// that: LSP's Content-Length framing that answers and skips a bad frame
// instead of ending the session (Stream), the --listen token checked on
// the first frame before anything else reads it, handlers that recover
// from panics, calls to the client that end with the session, the
// numbering of inbound messages that lets an edit's sender wait for the
// editor's changes sent before its answer (Inbound), and the handler
// middleware jsonrpc2 v0.10 lacks (a context per call ended on its reply,
// $/cancelRequest with numeric ids).
//
// No message ends or hangs the session. A frame holding no JSON-RPC
// request (bad JSON, invalid UTF-8, a batch, an id of the wrong type) is
// answered with ParseError or InvalidRequest, its id echoed where one can
// be read, and the stream reads on; only broken framing ends it. A body
// over 256 MB is skipped unread, and a body's buffer grows as its bytes
// arrive, so a Content-Length that claims more than is sent costs at most
// 1 MiB. A header other than Content-Length or Content-Type ends the
// stream unanswered, so an HTTP request posted to the port is never taken
// for a frame. On a --listen socket the first frame (at most 1 MiB,
// within 30 s) must be initialize carrying the token, compared in
// constant time; the token is removed before the settings see it.
// FuzzFrameStream and FuzzTokenGate check these on arbitrary bytes.
//
// It knows JSON-RPC and LSP's wire rules, not the server: nothing here
// reads a document, a setting or an edit.
package rpc
