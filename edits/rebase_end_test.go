package edits

import "testing"

// TestRebaseAtTheEnd: a change that adds text at the end of the file —
// what a chat reply streaming into its document is, a line at a time — is
// carried onto a text the user changed elsewhere. It panicked (the line
// "holding" an offset at the very end is past the last line: slice
// bounds out of range), which killed the chat turn in Neovim 0.7.2, whose
// echo of an edit sends the server down this path.
func TestRebaseAtTheEnd(t *testing.T) {
	for _, tc := range []struct {
		name, cur, from, to, want string
	}{
		{"after a final newline", "// typed\na\nb\n", "a\nb\n", "a\nb\nc\n", "// typed\na\nb\nc\n"},
		{"a line's end, no final newline", "// typed\na\nb", "a\nb", "a\nb and more", "// typed\na\nb and more"},
		{"a new line, no final newline", "// typed\na\nb", "a\nb", "a\nb\nc", "// typed\na\nb\nc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rebase(tc.cur, tc.from, tc.to)
			if err != nil || got != tc.want {
				t.Errorf("Rebase(%q, %q, %q) = %q, %v; want %q", tc.cur, tc.from, tc.to, got, err, tc.want)
			}
		})
	}
}
