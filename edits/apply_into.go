package edits

// AppendApplied appends to dst the text that sorted, non-overlapping
// edits make of text, and returns the extended slice. With a dst kept
// from call to call (dst[:0]) making the new text allocates nothing once
// dst has grown to the size of the result: a caller that writes the
// result out (to a file, to a pipe) and drops it need not pay for a fresh
// copy of the file, and the garbage collector for freeing it, at every
// patch.
func AppendApplied(dst []byte, text string, edits []TextEdit) []byte {
	n := len(text)
	for _, e := range edits {
		n += len(e.New) - (e.End - e.Start)
	}
	if cap(dst)-len(dst) < n {
		grown := make([]byte, len(dst), len(dst)+n)
		copy(grown, dst)
		dst = grown
	}
	at := 0
	for _, e := range edits {
		dst = append(dst, text[at:e.Start]...)
		dst = append(dst, e.New...)
		at = e.End
	}
	return append(dst, text[at:]...)
}

// ApplyHunksTo is ApplyHunks writing the new text into dst (appended, as
// AppendApplied does) instead of a new string.
func ApplyHunksTo(dst []byte, text string, hunks []Hunk) ([]byte, error) {
	es, err := ResolveHunks(text, hunks)
	if err != nil {
		return dst, err
	}
	return AppendApplied(dst, text, es), nil
}
