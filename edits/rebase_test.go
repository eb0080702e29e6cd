package edits

import (
	"errors"
	"testing"
)

func TestRebase(t *testing.T) {
	const from = "package p\n\nfunc one() {}\n\nfunc two() {}\n\nfunc three() {}\n"
	const to = "package p\n\nfunc one() {}\n\nfunc two() { println(2) }\n\nfunc three() {}\n"
	for _, tc := range []struct {
		name, cur, want string
		conflict        bool
	}{
		{"unchanged", from, to, false},
		{"an edit elsewhere stays", "package p\n\nfunc one() { println(1) }\n\nfunc two() {}\n\nfunc three() {}\n",
			"package p\n\nfunc one() { println(1) }\n\nfunc two() { println(2) }\n\nfunc three() {}\n", false},
		{"an edit on the next line stays", "package p\n\nfunc one() {}\n\nfunc two() {}\n// added\nfunc three() {}\n",
			"package p\n\nfunc one() {}\n\nfunc two() { println(2) }\n// added\nfunc three() {}\n", false},
		{"lines moved down", "// header\n" + from, "// header\n" + to, false},
		{"CRLF kept", "package p\r\n\r\nfunc one() {}\r\n\r\nfunc two() {}\r\n\r\nfunc three() {}\r\n",
			"package p\r\n\r\nfunc one() {}\r\n\r\nfunc two() { println(2) }\r\n\r\nfunc three() {}\r\n", false},
		{"the same line changed", "package p\n\nfunc one() {}\n\nfunc two() { println(22) }\n\nfunc three() {}\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rebase(tc.cur, from, to)
			var conflict *RebaseError
			if tc.conflict {
				if !errors.As(err, &conflict) {
					t.Fatalf("err = %v, want a RebaseError", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Rebase = %q, %v\nwant %q", got, err, tc.want)
			}
		})
	}
}

// TestRebaseDeletesLines: a deleted line carried with no context around
// it is gone, not left as an empty line (the hunks kept one, so an undo
// of an added line after the user typed elsewhere left a blank line).
func TestRebaseDeletesLines(t *testing.T) {
	got, err := Rebase("// typed\na\nb\nc\n", "a\nb\nc\n", "a\nc\n")
	if err != nil || got != "// typed\na\nc\n" {
		t.Errorf("Rebase = %q, %v", got, err)
	}
}

// TestUniqueHunks: each changed run becomes one hunk whose context makes
// it match one place in the base, so applying them gives the result.
func TestUniqueHunks(t *testing.T) {
	from := "x\nsame\nx\nsame\nx\n"
	to := "x\nsame\nx\nSAME\nx\n"
	hs := UniqueHunks(from, to)
	if len(hs) != 1 {
		t.Fatalf("hunks = %+v", hs)
	}
	if _, err := ResolveHunks(from, hs); err != nil {
		t.Fatalf("a hunk is not unique: %v (%+v)", err, hs[0])
	}
	if got, err := ApplyHunks(from, hs); err != nil || got != to {
		t.Errorf("applied = %q, %v", got, err)
	}
	if hs := UniqueHunks("a\nb\n", "a\nb\n"); len(hs) != 0 {
		t.Errorf("no change gave %+v", hs)
	}
	// An insertion, a deletion and a change in one text.
	from, to = "1\n2\n3\n4\n5\n6\n7\n8\n", "0\n1\n2\n3\n5\n6\n7!\n8\n"
	if got, err := ApplyHunks(from, UniqueHunks(from, to)); err != nil || got != to {
		t.Errorf("applied = %q, %v", got, err)
	}
}
