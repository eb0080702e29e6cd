package lsptest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp"
)

// An Option sets up the editor (or the server it starts) before it
// connects: how it answers the server's requests, which edits it
// refuses, what it does before applying one. Options are given to Start
// and fixed for the session, so a test reads as set-up, then actions,
// then expectations; nothing about the editor changes behind a running
// server's back.
type Option func(*config)

// config is what the options set; it is read-only once Start returns.
type config struct {
	initOptions    any
	settings       any
	server         lsp.Options
	answer         func(protocol.ShowMessageRequestParams) string
	refuse         func(label string) bool
	hold           func(label string) bool
	failChange     func(label string) bool
	failAt         int
	beforeApply    func(e *Editor, label string)
	savesDocuments bool
	hooks          map[string]func(e *Editor, params json.RawMessage)
	awaitTimeout   time.Duration
	env            map[string]string // Env's, on top of the isolated folders
}

// InitOptions is the initializationOptions the editor sends in
// initialize (the agentls settings, for most tests).
func InitOptions(v any) Option { return func(c *config) { c.initOptions = v } }

// Settings is what the editor answers workspace/configuration with (a
// profile that announces the capability: VS Code).
func Settings(v any) Option { return func(c *config) { c.settings = v } }

// ServerOptions are the server's own options (Version defaults to
// "test"). A Getenv given here is the server's whole environment, Env's
// variables over it: the server gets no folders of its own, since the
// test chose its environment.
func ServerOptions(opts lsp.Options) Option { return func(c *config) { c.server = opts } }

// AnswerRequests is the user answering every window/showMessageRequest:
// choose returns the title of the button pressed ("" dismisses it). It
// runs on the editor's reader, so it must not wait for the server. By
// default requests are dismissed.
func AnswerRequests(choose func(protocol.ShowMessageRequestParams) string) Option {
	return func(c *config) { c.answer = choose }
}

// Press answers every window/showMessageRequest with the first of titles
// among its buttons, and dismisses one that offers none of them, as a
// user can press only the buttons shown.
func Press(titles ...string) Option {
	return AnswerRequests(func(p protocol.ShowMessageRequestParams) string {
		for _, title := range titles {
			if slices.ContainsFunc(p.Actions, func(a protocol.MessageActionItem) bool { return a.Title == title }) {
				return title
			}
		}
		return ""
	})
}

// RefuseEdits makes the editor refuse (applied: false) every
// workspace/applyEdit whose label contains one of labels, or every one
// when none is given: a user who declines, or a buffer the editor will
// not touch.
func RefuseEdits(labels ...string) Option {
	return func(c *config) { c.refuse = labelMatcher(labels) }
}

// FailChange makes the editor fail the documentChanges entry at index
// of every workspace/applyEdit whose label contains one of labels (all,
// when none is given), after applying the entries before it, and answer
// applied: false with failedChange: index, as Helix (failureHandling
// "abort") does when one change of an edit fails.
func FailChange(index int, labels ...string) Option {
	return func(c *config) { c.failChange, c.failAt = labelMatcher(labels), index }
}

// HoldEdits makes the editor leave every workspace/applyEdit whose label
// contains one of labels (all, when none is given) unanswered, as a
// client that lost the request or hung; AnswerHeldEdits applies and
// answers them, late.
func HoldEdits(labels ...string) Option {
	return func(c *config) { c.hold = labelMatcher(labels) }
}

// BeforeApply runs fn before the editor applies a workspace edit, with
// the edit's label: the way to land a keystroke between the server's
// computing an edit and the editor's applying it. fn may call the
// editor's methods (Type, say).
func BeforeApply(fn func(e *Editor, label string)) Option {
	return func(c *config) { c.beforeApply = fn }
}

// SavesDocuments makes the editor implement agentls/saveDocuments, as
// the agentls editor plugins do (give InitOptions {"saveDocuments": true}
// too, so the server knows).
func SavesDocuments() Option { return func(c *config) { c.savesDocuments = true } }

// OnRequest makes the editor run fn before it answers or handles the
// server's messages of a method: the way to act at an exact point of the
// server's work. fn runs on a goroutine of its own and may call the
// server.
func OnRequest(method string, fn func(e *Editor, params json.RawMessage)) Option {
	return func(c *config) {
		if c.hooks == nil {
			c.hooks = map[string]func(*Editor, json.RawMessage){}
		}
		c.hooks[method] = fn
	}
}

// AwaitTimeout is how long Await waits before it fails the test
// (DefaultAwaitTimeout unless given): longer for a test whose server runs
// a build, shorter for a test of a failure.
func AwaitTimeout(d time.Duration) Option { return func(c *config) { c.awaitTimeout = d } }

// Env sets variables of the server's environment (lsp.Options.Getenv),
// for a test that needs more than the isolated folders every server gets
// (its own XDG_STATE_HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME, fresh
// temporary folders, over the test process's environment): a model's key
// (OPENAI_API_KEY), AGENTLS_MODEL, or a state folder two servers of one
// test share (a restart). A value "" hides a variable the process has.
// Later Env options add to earlier ones.
//
// Only the server reads this environment: the shell and the other
// processes it starts inherit the test process's, so a variable they must
// see still needs t.Setenv (and that test cannot run in parallel).
func Env(vars map[string]string) Option {
	return func(c *config) {
		if c.env == nil {
			c.env = map[string]string{}
		}
		for k, v := range vars {
			c.env[k] = v
		}
	}
}

func (c *config) serverEnv(dir string) func(string) string {
	vars := map[string]string{}
	base := c.server.Getenv
	if base == nil {
		base = os.Getenv
		// Every server gets its own folders, so tests running in
		// parallel never share a journal, a trust record, a conversation
		// log or a settings file, and never touch the user's.
		vars["XDG_STATE_HOME"] = filepath.Join(dir, "state")
		vars["XDG_CONFIG_HOME"] = filepath.Join(dir, "config")
		vars["XDG_CACHE_HOME"] = filepath.Join(dir, "cache")
		// The fake models run on this machine, where the prompt setting's
		// "auto" sends the compact prompt of small local models: the
		// scripted replies are a capable model's. A test of the compact
		// prompt sets Env AGENTLS_PROMPT, or the prompt setting.
		vars["AGENTLS_PROMPT"] = "full"
	}
	for k, v := range c.env {
		vars[k] = v
	}
	return func(key string) string {
		if v, ok := vars[key]; ok {
			return v
		}
		return base(key)
	}
}

func labelMatcher(labels []string) func(string) bool {
	return func(label string) bool {
		if len(labels) == 0 {
			return true
		}
		return slices.ContainsFunc(labels, func(l string) bool { return strings.Contains(label, l) })
	}
}
