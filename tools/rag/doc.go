// Package rag is the rag tool: the workspace's files and passages most
// relevant to a question, found by BM25 over an index of the workspace
// kept in the state folder.
//
// The index is its own (index.go), not bleve: what rag needs is one
// field, one analyzer (words split at identifier boundaries) and BM25
// over a few hundred thousand files, with an incremental update keyed by
// mtime and size. Bleve brings dozens of packages (its own storage
// engine, analyzers for many languages, a query language) to do that,
// and an index format we would have to migrate; ours is 400 lines, saved
// as one gob file that is only a cache (a version mismatch rebuilds it).
//
// Trust (DESIGN §8a): rag reads the workspace's files as read does and
// tells the model what they say; it sends nothing anywhere and writes only
// its index, in the user's state folder. It runs git ls-files (honouring
// .gitignore), with core.fsmonitor off on the command line, so that a
// hostile repository's config cannot make listing run a program; symlinks
// are not followed, so nothing outside the workspace is indexed. Files
// that may hold secrets are never listed, so they are neither indexed,
// quoted nor sent to an embeddings endpoint.
//
// # Searching
//
// A result is at most 8 files and 16 KB: for each file, the window of 12
// lines whose query words weigh most. Words are runs of letters, digits
// and _, lowercased, with their parts (parseConfig: parse, config); a
// path's words count more. A changed file is marked dead and added again
// under a new id, and the postings are rebuilt once a quarter is dead.
//
// # Lifecycle
//
// A Searcher per turn (Tool, bound by agent.BindTools) loads the index
// the previous turn saved. The first build runs in the background; a
// call waits DefaultWait for it, then answers with its progress. Each
// later call re-indexes up to 256 changed files before it answers (more
// in the background); where listing is slow, the answer comes first and
// the refresh runs behind it. In the server the Env has Buffers: open
// buffers are searched in place of their files.
//
// # Embeddings (embed.go)
//
// With the embeddings setting (a risky key: it sends passages and the
// question to its endpoint), the best BM25 files' passages are embedded,
// vectors cached beside the index, and the order is reciprocal rank
// fusion of the BM25 rank and the cosine rank. They re-rank what BM25
// found; a failing endpoint leaves BM25's order and says why.
package rag
