// Package anchored addresses lines by content rather than by number, so a
// model's edits still land after the file moved under it (gptme's
// view_anchored / patch_anchored, research/gptme.md §6, rebuilt on xxh3).
//
// What is hashed, exactly:
//
//   - The text is split into lines at "\n"; a line's content excludes its
//     "\n" and a "\r" before it, and keeps everything else, trailing
//     whitespace included (a change of trailing whitespace is a change). A
//     text ending in "\n" has no empty last line; a byte-order mark is not
//     part of the first line.
//   - Each line's content is hashed once: h = xxh3-64(content).
//   - A line's anchor digest is 128 bits mixed from its own hash and its
//     neighbours' (mixDigest: each neighbour's hash and the line's
//     multiplied with constants to 128 bits and folded, then avalanched,
//     as xxh3 mixes its input), with a fixed edge value for the missing
//     neighbour of the first and last lines. An anchor so stays valid when
//     lines are inserted or deleted elsewhere, and goes stale when its line
//     or a neighbour changes.
//   - A line whose triple repeats elsewhere (a "}" between the same lines,
//     a run of blank lines) takes a wider context instead: 2, 3, … up to 8
//     neighbours on each side, the first radius that tells it apart, so
//     its anchor still names it alone. The digest at radius r mixes the
//     hashes of the two lines r away into the digest at radius r-1. Only lines alike across 17 lines
//     are told apart by an ordinal in file order (".2", ".3", …), which an
//     edit above them can shift: editbench found radius-1 ordinals shifting
//     onto another line that passed the op's guard.
//
// Anchors are shown as 6 Crockford base-32 characters (30 bits) of the
// digest: about 3 tokens, against 8–10 for gptme's 16 hex digits and
// ordinal. Two different digests whose 6 characters agree are detected when
// a view is rendered, and those anchors are lengthened until they differ.
// Lines whose whole digests agree are compared by content: different
// contexts with one digest (a hash collision) are marked ambiguous ("?")
// and refused, never guessed between. A stale anchor matches another line
// only by chance, about n/2³⁰ for a file of n lines (1 in 100,000 for
// 10,000 lines), and an op's "expected" guard closes even that.
//
// How it is fast: lines are kept as offsets into the text, found eight
// bytes at a time and hashed in one pass (on two cores for a large text);
// a table keeps only the top 64 bits of each digest, with the rare
// lengthened, ordinal and ambiguous anchors apart; the lines whose digest,
// or key (the digest bits an anchor shows), another line has too are
// found by a filter small enough for the cache, a probe a line, which
// lets through the repeated lines and a few more, and only those are
// grouped exactly (in a table of their few distinct digests, or the key
// index); a batch of a few anchors, each the only line with its key, is
// resolved without grouping the keys at all; and the line a token names
// is one probe. The scratch is reused from one text to the next.
//
// Ops (ops.go, apply.go): replace, delete, insert_before and insert_after,
// each with text and an "expected" guard, and a range form for replace and
// delete. A batch resolves every anchor and guard first and is refused
// whole on an unknown or ambiguous anchor, a failed guard or two ops on
// one line; the Rejection lists the first problems (More counts the rest)
// and re-renders fresh anchors around them, so a huge bad batch answers
// in a few KB. A stale anchor is never rescued by searching for its
// expected text: editbench caught that re-applying edits already made.
// Each line keeps its ending; BOM and final-newline state are kept.
//
// A caller that keeps an Index per document version passes it as
// Options.Hashes and the lines are not hashed again; an Index is updated
// for a change by rehashing only the added lines (the server does this
// on every didChange of a buffer an anchored tool has read). A caller
// that keeps a Renderer can Apply a batch to the text it last rendered
// through the anchor table that render built: the text is compared with
// the one rendered in full, and any other text is anchored afresh. Views
// keeps such a Renderer for each of the last few documents viewed (the
// server's, between view_anchored and patch_anchored).
package anchored
