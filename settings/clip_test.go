package settings

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipValueKeepsWholeCharacters: a long bad value shown in a message
// is cut before a character, never inside it (the old clipValue cut at
// byte 60).
func TestClipValueKeepsWholeCharacters(t *testing.T) {
	got := clipValue([]byte(`"` + strings.Repeat("x", 58) + `éééé"`))
	if !utf8.ValidString(got) {
		t.Fatalf("clipValue cut inside a character: %q", got)
	}
	if want := `"` + strings.Repeat("x", 58) + "…"; got != want {
		t.Errorf("clipValue = %q, want %q", got, want)
	}
}
