package text

import "testing"

func TestFence(t *testing.T) {
	for content, want := range map[string]string{
		"":                     "```",
		"plain":                "```",
		"a `b` c":              "```",
		"```go\nx\n```":        "````",
		"  ````\n":             "`````",
		"mid-line ```` run":    "`````", // inside a line too: one rule for every block
		"``` and `````` later": "```````",
	} {
		if got := Fence(content); got != want {
			t.Errorf("Fence(%q) = %q, want %q", content, got, want)
		}
	}
}

func TestInlineCode(t *testing.T) {
	for s, want := range map[string]string{
		"ls -la":    "`ls -la`",
		"echo `x`":  "`` echo `x` ``",
		"a``b":      "```a``b```",
		"a ``b`` c": "```a ``b`` c```",
		"":          "``",
	} {
		if got := InlineCode(s); got != want {
			t.Errorf("InlineCode(%q) = %q, want %q", s, got, want)
		}
	}
}
