package edittool

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSplitHunksQuotesWholeCharacters: stray text quoted in the error is
// cut before a character, never inside it (the old clip cut at byte 77,
// leaving half of "é" for %q to print as \xc3).
func TestSplitHunksQuotesWholeCharacters(t *testing.T) {
	stray := strings.Repeat("x", 76) + "éééé"
	_, err := splitHunks(stray + "\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n")
	if err == nil {
		t.Fatal("splitHunks accepted text before the first hunk")
	}
	msg := err.Error()
	if !utf8.ValidString(msg) || strings.Contains(msg, `\x`) {
		t.Fatalf("the error quotes half a character: %s", msg)
	}
	if want := `("` + strings.Repeat("x", 76) + `...")`; !strings.Contains(msg, want) {
		t.Errorf("the error does not quote the text clipped before é:\n%s\nwant it to contain %s", msg, want)
	}
}
