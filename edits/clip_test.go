package edits

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseConflictQuotesWholeCharacters: a long stray line quoted in an
// error is cut before a character, never inside it (the old clip cut at
// byte 77, leaving half of "é" for %q to print as \xc3).
func TestParseConflictQuotesWholeCharacters(t *testing.T) {
	line := strings.Repeat("x", 76) + "éééé"
	_, err := ParseConflict(line + "\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n")
	if err == nil {
		t.Fatal("ParseConflict accepted a patch that starts with prose")
	}
	msg := err.Error()
	if !utf8.ValidString(msg) || strings.Contains(msg, `\x`) {
		t.Fatalf("the error quotes half a character: %s", msg)
	}
	if want := `"` + strings.Repeat("x", 76) + `..."`; !strings.Contains(msg, want) {
		t.Errorf("the error does not quote the line clipped before é:\n%s\nwant it to contain %s", msg, want)
	}
}
