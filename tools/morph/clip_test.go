package morph

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipLineKeepsWholeCharacters: a long line quoted in a refusal is cut
// before a character, never inside it (the old clipLine cut at byte 77).
func TestClipLineKeepsWholeCharacters(t *testing.T) {
	got := clipLine("  " + strings.Repeat("x", 76) + "éééé  ")
	if !utf8.ValidString(got) {
		t.Fatalf("clipLine cut inside a character: %q", got)
	}
	if want := strings.Repeat("x", 76) + "..."; got != want {
		t.Errorf("clipLine = %q, want %q", got, want)
	}
	if short := "ok é"; clipLine(short) != short {
		t.Errorf("clipLine(%q) = %q, want it unchanged", short, clipLine(short))
	}
}
