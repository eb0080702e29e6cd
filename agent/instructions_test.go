package agent

import (
	"fmt"
	"testing"
)

func TestFindAIComments(t *testing.T) {
	text := "package p\n" +
		"// make this concurrent AI!\n" +
		"func f() {} // AI! add a doc comment\n" +
		"x = 1  # AI! use a constant\n" +
		"-- AI! index this table\n" +
		"/* AI! explain the magic number */\n" +
		"s := \"AI! in a string is not a comment\"\n" +
		"// AI!\n" +
		"// this mentions AI! in the middle\n" +
		"<!-- AI! fix the heading -->\n" +
		"# why is this slow? AI?\n"
	got := fmt.Sprint(FindInstructionComments(text, 0, 100))
	want := "[{1 make this concurrent false} {2 add a doc comment false} {3 use a constant false} {4 index this table false} {5 explain the magic number false} {9 fix the heading false} {10 why is this slow? true}]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := FindInstructionComments(text, 2, 3); len(got) != 2 || got[0].Line != 2 {
		t.Errorf("range 2-3: %v", got)
	}
}

func TestSelectionComment(t *testing.T) {
	tests := []struct {
		text     string
		markdown bool
		want     string
		line     int
	}{
		{"func f() {\n\t// handle the error\n\t// and log it\n\tg()\n}", false, "handle the error and log it", 1},
		{"# retry three times\nx = fetch()", false, "retry three times", 0},
		{"#include <stdio.h>\nint x;", false, "", -1},
		{"-- add an index\nSELECT 1;", false, "add an index", 0},
		{"/* make it faster */\nloop()", false, "make it faster", 0},
		{"# Title\ntext", true, "", -1},
		{"<!-- shorten this -->\ntext", true, "shorten this", 0},
		{"x := 1\ny := 2", false, "", -1},
	}
	for _, tt := range tests {
		got, line := SelectionComment(tt.text, tt.markdown)
		if got != tt.want || (got != "" && line != tt.line) {
			t.Errorf("SelectionComment(%q) = %q, %d; want %q, %d", tt.text, got, line, tt.want, tt.line)
		}
	}
}
