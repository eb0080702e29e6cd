package text

import "strings"

// Fence returns the backticks that open and close a Markdown code block
// holding content: at least three, and more than the longest run of
// backticks anywhere in content, so that no line of it can close the
// block early, however it is indented or wherever a renderer breaks it.
func Fence(content string) string {
	return strings.Repeat("`", max(3, longestRun(content, '`')+1))
}

// InlineCode quotes s as Markdown inline code: a run of backticks longer
// than any in s, with a space inside each end when s starts or ends with
// a backtick (CommonMark strips one such space).
func InlineCode(s string) string {
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for k := 0; k < len(s); k++ {
		if s[k] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
