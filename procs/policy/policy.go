package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Decision is what happens to a command line.
type Decision string

const (
	Allow Decision = "allow" // runs without asking
	Ask   Decision = "ask"   // runs only with the user's approval
	Deny  Decision = "deny"  // refused
)

// Verdict is a Decision and why it was made.
type Verdict struct {
	Decision Decision `json:"decision"`
	// Reason is always set: what made the line allowed, the first command
	// that needs approval and why, or the first denied command with its deny
	// group's reason.
	Reason string `json:"reason"`
}

// Config extends the built-in rules with the user's own patterns. A pattern
// is a command's leading words, such as "go test", "make" or
// "npm run build"; a simple command matches when its leading literal words
// (after quote removal) equal the pattern's words.
type Config struct {
	// Allow lists commands that run without asking; their flags and
	// arguments are not checked (the user chose), but deny groups still win
	// and output redirections to files still ask.
	Allow []string
	// Deny lists commands that are refused with "denied by configuration".
	Deny []string
	// Root is the workspace folder (absolute). Allowed commands read only
	// inside it, with symlinks resolved, and the config of the
	// repositories their git commands run in is checked. Empty: no folder
	// is known; paths are judged as written (every absolute path is
	// outside) and allowlisted git commands ask.
	Root string
	// Home is the user's home directory, whose dotfiles hold secrets;
	// empty: os.UserHomeDir.
	Home string
}

// Policy checks command lines. It is safe for concurrent use.
type Policy struct {
	mu    sync.RWMutex
	allow [][]string
	deny  [][]string
	ws    workspace
	repos *repoCache
}

// New returns a Policy with the built-in rules extended by cfg. It fails on
// a pattern that is not a plain command (expansions, operators, globs), and
// on a Root that is not absolute.
func New(cfg Config) (*Policy, error) {
	ws, err := newWorkspace(cfg.Root, cfg.Home)
	if err != nil {
		return nil, err
	}
	p := &Policy{ws: ws, repos: newRepoCache()}
	for _, s := range cfg.Allow {
		pat, err := parsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("allow pattern: %w", err)
		}
		p.allow = append(p.allow, pat)
	}
	for _, s := range cfg.Deny {
		pat, err := parsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("deny pattern: %w", err)
		}
		p.deny = append(p.deny, pat)
	}
	return p, nil
}

// Remember adds an allow pattern at run time: the user's "Always" for a
// command (see Patterns). A pattern already known is not added twice.
func (p *Policy) Remember(pattern string) error {
	pat, err := parsePattern(pattern)
	if err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, have := range p.allow {
		if slices.Equal(have, pat) {
			return nil
		}
	}
	p.allow = append(p.allow, pat)
	return nil
}

// Check decides about a whole command line, which may be a multi-line
// script, run in the workspace folder (Config.Root).
func (p *Policy) Check(line string) Verdict {
	return p.CheckIn(p.ws.root, line)
}

// CheckIn decides about a command line run by a shell whose current
// directory is dir (absolute; empty: the workspace folder): relative paths
// are read from there, and a dir outside the workspace makes every
// command that reads ask.
func (p *Policy) CheckIn(dir, line string) Verdict {
	p.mu.RLock()
	rules := rules{allow: p.allow, deny: p.deny}
	p.mu.RUnlock()
	// The slices are only ever appended to under the lock, so the headers
	// copied above stay valid while we read them.
	if dir == "" {
		dir = p.ws.root
	}
	a := newAnalyzer(rules, &p.ws, path.Clean(dir), newRepoChecks(p.repos, &p.ws))
	if v, ok := a.script(line, 0); !ok {
		return v
	}
	return a.verdict()
}

// Patterns returns the patterns that "Always for this command" would
// remember for line: one for each simple command that the built-in rules
// do not allow, namely its name plus its first argument when that is a
// plain word (no leading dash, no slash, no pattern, no expansion), such as
// ["go test", "go vet"] for `go test ./... && go vet ./...`. Commands that
// can never be allowed (under sudo or xargs, with a name only known when
// it runs, or denied) give none; duplicates are dropped.
func Patterns(line string) []string {
	ws, _ := newWorkspace("", "")
	a := newAnalyzer(rules{}, &ws, ws.root, nil)
	if _, ok := a.script(line, 0); !ok {
		return nil
	}
	return a.patterns
}

// rules is the configured part of a Policy, as of one Check.
type rules struct {
	allow, deny [][]string
}

// parsePattern turns "go test" into its words, refusing anything that is
// not a plain simple command.
func parsePattern(s string) ([]string, error) {
	f, err := parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("%q: want one command", s)
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(st.Redirs) > 0 || st.Negated || st.Background || len(call.Args) == 0 {
		return nil, fmt.Errorf("%q: want a plain command such as \"go test\"", s)
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		r := resolveWord(w)
		if !r.plain() || r.val == "" {
			return nil, fmt.Errorf("%q: word %d is not a plain word", s, i+1)
		}
		words[i] = r.val
	}
	return words, nil
}

// matchPattern reports whether the command words start with pat. The
// command name matches exactly, so "./go test" is not "go test".
func matchPattern(pat []string, words []word) bool {
	if len(words) < len(pat) {
		return false
	}
	for i, p := range pat {
		if !words[i].plain() || words[i].val != p {
			return false
		}
	}
	return true
}

// matchDenyPattern is matchPattern made harder to dodge: the command name
// also matches by base name and case (`/usr/bin/NPM publish` is
// "npm publish").
func matchDenyPattern(pat []string, words []word) bool {
	if len(words) < len(pat) {
		return false
	}
	for i, p := range pat {
		if !words[i].known {
			return false
		}
		v := words[i].val
		if i == 0 && !strings.Contains(p, "/") {
			if !strings.EqualFold(path.Base(v), p) {
				return false
			}
			continue
		}
		if v != p {
			return false
		}
	}
	return true
}

// parse parses src as a bash script.
func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}
