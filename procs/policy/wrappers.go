package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// level is one command in a chain of wrappers: for `sudo env FOO=1 ls -l`
// the levels are the sudo, env and ls commands, each with the words from
// its name on.
type level struct {
	words []word
	feed  feed     // where its standard input comes from
	env   []string // variables a wrapper sets for what it runs (env, sudo)
	// never says why this wrapper's command may not run without asking.
	never string
	// scripts are shell scripts the wrapper runs itself (env -S).
	scripts []script
}

// script is code that a command runs: `bash -c CODE`, `eval ARGS`,
// `trap CODE SIG`, `python -c CODE`.
type script struct {
	val   string
	known bool // no expansions: val is the code
	subst bool // some of it is another command's output
	shell bool // shell code, which can be checked like the line
}

func scriptOf(w word, shell bool) script {
	return script{val: w.val, known: w.known, subst: w.subst, shell: shell}
}

// wrapperSpec describes a command that runs another command given as its
// remaining arguments.
type wrapperSpec struct {
	flags      string   // short options without a value
	value      string   // short options with a value, in the same word or the next
	stuck      string   // short options whose value can only be in the same word
	longValue  []string // long options whose value may be the next word
	stop       string   // short options that mean no command is run (command -v)
	numeric    bool     // -N is an option (nice -10)
	positional int      // words between the options and the command (timeout's duration)
	assigns    bool     // NAME=VALUE words before the command set its environment
	script     string   // short option whose value is a shell script (env -S)
	longScript string   // the same as a long option
	writes     string   // short option whose value is a file it writes (time -o)
	longWrites string
	chdir      string // short option whose value is the directory the command runs in (env -C)
	longChdir  string
	keepsStdin string // option after which the command reads the wrapper's stdin (xargs -a)
	ownStdin   bool   // the command does not read the wrapper's stdin (xargs)
	never      string // why what it runs never runs without asking
}

// wrappers are the commands that run another command, by base name. The
// command they run is checked like any other, so `sudo rm -rf /` is denied
// and `timeout 10 ls` is allowed.
var wrappers = map[string]wrapperSpec{
	"sudo": {
		flags: "AbEHiKknPSsV", value: "CDghpRrTtUu", stop: "elv",
		longValue: []string{"chdir", "chroot", "close-from", "command-timeout", "group", "host", "other-user", "prompt", "role", "type", "user"},
		assigns:   true, never: "sudo runs it as another user, which always needs approval",
	},
	"doas": {flags: "ns", value: "Cu", never: "doas runs it as another user, which always needs approval"},
	"env": {
		flags: "0iv", value: "CuS", script: "S", longScript: "split-string",
		chdir: "C", longChdir: "chdir",
		longValue: []string{"chdir", "unset", "split-string"}, assigns: true,
	},
	"nice":    {value: "n", numeric: true, longValue: []string{"adjustment"}},
	"nohup":   {},
	"timeout": {flags: "v", value: "ks", longValue: []string{"kill-after", "signal"}, positional: 1},
	"command": {flags: "p", stop: "vV"},
	"builtin": {},
	"exec":    {flags: "cl", value: "a", never: "exec replaces the session's shell"},
	"xargs": {
		flags: "0oprtx", value: "adEILnPs", stuck: "eil", keepsStdin: "a", ownStdin: true,
		longValue: []string{"arg-file", "delimiter", "max-args", "max-chars", "max-lines", "max-procs", "replace", "process-slot-var"},
		never:     "xargs runs it with arguments read from its input, which always needs approval",
	},
	"setsid": {flags: "cfw"},
	"stdbuf": {value: "ioe", longValue: []string{"input", "output", "error"}},
	"ionice": {flags: "t", value: "cnp"},
	"time":   {flags: "apqv", value: "fo", writes: "o", longWrites: "output", longValue: []string{"format", "output"}},
}

// unwrap follows wrappers from words to the command they finally run.
// There is always at least one level: words itself.
func unwrap(words []word, f feed) []level {
	levels := []level{{words: words, feed: f}}
	for len(levels) <= 8 {
		cur := &levels[len(levels)-1]
		name := cur.words[0]
		if !name.plain() {
			break
		}
		base := path.Base(name.val)
		spec, ok := wrappers[base]
		if !ok {
			break
		}
		next, inner := spec.parse(base, cur)
		if inner == nil {
			break
		}
		if spec.ownStdin && !next.keptStdin {
			next.feed = feedNone
		} else {
			next.feed = cur.feed
		}
		levels = append(levels, level{words: inner, feed: next.feed})
	}
	return levels
}

type parsed struct {
	feed      feed
	keptStdin bool
}

// parse reads a wrapper's options into l (env, scripts, never) and returns
// the words of the command it runs, or nil if it runs none.
func (s wrapperSpec) parse(name string, l *level) (parsed, []word) {
	var p parsed
	words := l.words
	l.never = s.never
	unsure := func(opt string) {
		if l.never == "" {
			l.never = fmt.Sprintf("%s option %s is not known, so what it runs cannot be told", name, opt)
		}
	}
	noteValue := func(opt string, long bool, v word) {
		if (!long && opt == s.script) || (long && opt == s.longScript && opt != "") {
			l.scripts = append(l.scripts, scriptOf(v, true))
		}
		if (!long && opt == s.writes) || (long && opt == s.longWrites && opt != "") {
			if l.never == "" {
				l.never = fmt.Sprintf("%s writes to a file", name)
			}
		}
		if (!long && opt == s.chdir && opt != "") || (long && opt == s.longChdir && opt != "") {
			if l.never == "" {
				l.never = fmt.Sprintf("%s runs it in another directory, where its paths cannot be checked", name)
			}
		}
		if !long && opt == s.keepsStdin {
			p.keptStdin = true
		}
	}
	i := 1
options:
	for ; i < len(words); i++ {
		w := words[i]
		v := w.val
		switch {
		case !strings.HasPrefix(v, "-") && !(s.assigns && w.known && isAssignment(v)):
			break options
		case s.assigns && w.known && isAssignment(v):
			name, _, _ := strings.Cut(v, "=")
			l.env = append(l.env, name)
			continue
		case v == "--":
			i++
			break options
		case v == "-":
			if name == "env" {
				continue // env - is env -i
			}
			break options
		case !w.known:
			unsure(v)
			continue
		case strings.HasPrefix(v, "--"):
			long, _, hasValue := strings.Cut(v[2:], "=")
			if slices.Contains(s.longValue, long) && !hasValue && i+1 < len(words) {
				i++
				noteValue(long, true, words[i])
			} else if hasValue {
				noteValue(long, true, word{val: v[len(long)+3:], known: true})
			}
			continue
		case s.numeric && isDigits(v[1:]):
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j : j+1]
			switch {
			case strings.Contains(s.stop, c):
				return p, nil
			case strings.Contains(s.value, c):
				val := word{val: v[j+1:], known: true}
				if j+1 == len(v) && i+1 < len(words) {
					i++
					val = words[i]
				}
				noteValue(c, false, val)
			case strings.Contains(s.stuck, c):
			case strings.Contains(s.flags, c):
				continue
			default:
				unsure("-" + c)
				continue
			}
			break
		}
	}
	i += s.positional
	if i >= len(words) {
		return p, nil
	}
	return p, words[i:]
}

// isAssignment reports whether v is NAME=VALUE.
func isAssignment(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// riskyVariable reports whether setting the variable can change which
// program runs, make a read-only command run other code or reach the
// network: the search paths, the dynamic loader, shell start-up files,
// pagers and editors that tools start, and the configuration of the
// allowed tools (every GO* variable but the target platform: GOPROXY,
// GOSUMDB, GOFLAGS, GOTOOLCHAIN… make go fetch or run other code; every
// GIT_*: GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_*, GIT_DIR…).
func riskyVariable(name string) bool {
	switch name {
	case "ENV", "IFS", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "HOME", "SHELL",
		"EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "CC", "CXX", "CDPATH",
		"TMPDIR", "SSH_AUTH_SOCK", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
		"http_proxy", "https_proxy", "all_proxy", "no_proxy":
		return true
	case "GOOS", "GOARCH", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOWASM":
		return false
	}
	if strings.Contains(name, "PATH") || strings.HasSuffix(name, "PAGER") {
		return true
	}
	for _, prefix := range []string{"LD_", "DYLD_", "BASH", "GIT_", "GO", "PYTHON", "NODE_", "NPM_", "PERL", "RUBY", "XDG_", "RIPGREP_", "LESS", "GREP_"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
