package jobs

import (
	"strconv"
	"strings"
	"unicode"
)

// The model's job commands, as Parse returns them.
const (
	VerbBg     = "bg"
	VerbJobs   = "jobs"
	VerbOutput = "output"
	VerbKill   = "kill"
)

// Parse recognises one line of the model's job syntax (gptme's, matched
// case-insensitively, after an optional leading "$ "):
//
//	bg CMD     start CMD as a job; arg is CMD ("" for a bare `bg`: show BgUsage)
//	jobs       list the jobs
//	output N   show job N's output; arg is N without a leading '#', not checked
//	           (ParseID; UnknownJobMessage when it is bad)
//	kill N     kill job N; N must be all digits
//
// `kill N` is also an ordinary shell command: it is a job kill only if a
// job N exists, which only the caller can check; otherwise the line goes
// to the shell. A line holding a newline is never a job command: the
// caller splits commands into lines first (and knows heredocs).
func Parse(line string) (verb, arg string, ok bool) {
	s := strings.TrimSpace(line)
	if rest, cut := strings.CutPrefix(s, "$ "); cut {
		s = strings.TrimSpace(rest)
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", "", false
	}
	word, rest := s, ""
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		word, rest = s[:i], strings.TrimSpace(s[i+1:])
	}
	switch strings.ToLower(word) {
	case VerbBg:
		return VerbBg, rest, true
	case VerbJobs:
		if rest == "" {
			return VerbJobs, "", true
		}
	case VerbOutput:
		// "# 3" and "#\f3" are "#3": the id is what follows the #, trimmed.
		if id := strings.TrimSpace(strings.TrimPrefix(rest, "#")); id != "" && strings.IndexFunc(id, unicode.IsSpace) < 0 {
			return VerbOutput, id, true
		}
	case VerbKill:
		if id := strings.TrimSpace(strings.TrimPrefix(rest, "#")); id != "" && allDigits(id) {
			return VerbKill, id, true
		}
	}
	return "", "", false
}

// ParseID returns the job id arg names, if it is one: decimal digits
// only, more than 0.
func ParseID(arg string) (int, bool) {
	if arg == "" || !allDigits(arg) {
		return 0, false
	}
	id, err := strconv.Atoi(arg)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
