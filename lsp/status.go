package lsp

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lsp/internal/review"
	"github.com/agentls/agentls/settings"
)

// cmdStatus is agentls.status: what this server is doing and has cost,
// asked for by the user (Helix's :lsp-workspace-command, Neovim's
// :AgentStatus, VS Code's status item).
const cmdStatus = "agentls.status"

// sessionUsage adds up the tokens of the session's turns, by model, so
// that agentls.status can say what the session has cost.
type sessionUsage struct {
	mu      sync.Mutex
	turns   int
	byModel map[string]agent.Usage
}

func (u *sessionUsage) add(model string, used agent.Usage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byModel == nil {
		u.byModel = map[string]agent.Usage{}
	}
	u.turns++
	u.byModel[model] = u.byModel[model].Add(used)
}

// totals returns the turns counted and the usage by model (a copy).
func (u *sessionUsage) totals() (int, map[string]agent.Usage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[string]agent.Usage, len(u.byModel))
	for m, v := range u.byModel {
		out[m] = v
	}
	return u.turns, out
}

// statusReport is agentls.status's answer.
type statusReport struct {
	Model   string `json:"model"`
	BaseURL string `json:"baseUrl"`
	Turns   int    `json:"turns"`
	Running int    `json:"running"` // turns and other tasks under way
	Tokens  struct {
		Prompt     int  `json:"prompt"`
		Completion int  `json:"completion"`
		Estimated  bool `json:"estimated"`
	} `json:"tokens"`
	// Cost is the session's cost where every model used has a price
	// (the prices setting), else null.
	Cost             *float64 `json:"cost"`
	Jobs             int      `json:"jobs"` // background jobs running
	PendingApprovals int      `json:"pendingApprovals"`
	PendingEdits     int      `json:"pendingEdits"` // files with hunks waiting for review
	Trust            string   `json:"trust"`
	Rules            string   `json:"rules"`
	// Summary is the report as one line, as it is shown.
	Summary string `json:"summary"`
}

// statusArgs are agentls.status's argument: quiet asks for the result
// alone (VS Code's status item refreshes it after every turn).
type statusArgs struct {
	Quiet bool `json:"quiet"`
}

// A statusDesk answers agentls.status from what the server's parts count
// (each read under its own lock, none held while asking the next). Its
// dependencies are explicit.
type statusDesk struct {
	settings     func() serverSettings
	session      func() *session
	getenv       func(string) string
	usage        *sessionUsage
	tasks        *tasks
	cmds         *commandHost
	approvals    *approvals
	review       *review.Store
	client       *editorClient
	goBackground func(name string, fn func(context.Context))
}

// command answers agentls.status and, unless quiet, shows the report's
// line (a client that shows no command result, Helix, sees it too).
func (st *statusDesk) command(_ context.Context, a statusArgs) (any, error) {
	r := st.report()
	if !a.Quiet {
		st.goBackground("report status", func(ctx context.Context) {
			st.client.showMessage(ctx, protocol.MessageTypeInfo, "%s", r.Summary)
		})
	}
	return r, nil
}

// report is the status as it is now.
func (st *statusDesk) report() statusReport {
	set := st.settings()
	root := st.session().root
	var r statusReport
	r.Model = cmp.Or(set.Model, st.getenv("AGENTLS_MODEL"))
	r.BaseURL = cmp.Or(set.BaseURL, st.getenv("OPENAI_BASE_URL"), "https://api.openai.com/v1")
	turns, byModel := st.usage.totals()
	r.Turns = turns
	var total agent.Usage
	cost, priced := 0.0, true
	for model, u := range byModel {
		total = total.Add(u)
		if p, ok := set.Prices[model]; ok {
			cost += agent.Cost(p, u)
		} else {
			priced = false
		}
	}
	r.Tokens.Prompt, r.Tokens.Completion, r.Tokens.Estimated = total.Prompt, total.Completion, total.Estimated
	if priced && len(byModel) > 0 {
		r.Cost = &cost
	}
	r.Running = st.tasks.count()
	r.Jobs = st.runningJobs()
	r.PendingApprovals = st.approvals.count()
	r.PendingEdits = len(st.review.Files())
	r.Trust = st.trustState()
	r.Rules = agent.LoadRules(agent.RulesOptions{Root: root, Extra: set.Rules, UserFile: agent.UserRulesFile(st.getenv)}).Summary()

	model := cmp.Or(r.Model, "no model (set the model setting or AGENTLS_MODEL)")
	tokens := total.String()
	if r.Cost != nil {
		tokens = fmt.Sprintf("%s, $%.4f", total, *r.Cost)
	}
	parts := []string{
		fmt.Sprintf("%s at %s", model, r.BaseURL),
		fmt.Sprintf("%d %s, %s", turns, plural(turns, "turn", "turns"), tokens),
	}
	if r.Running > 0 {
		parts = append(parts, fmt.Sprintf("%d running", r.Running))
	}
	parts = append(parts, fmt.Sprintf("%d %s running", r.Jobs, plural(r.Jobs, "job", "jobs")))
	parts = append(parts, fmt.Sprintf("%d %s waiting", r.PendingApprovals, plural(r.PendingApprovals, "approval", "approvals")))
	if r.PendingEdits > 0 {
		parts = append(parts, fmt.Sprintf("%d %s with edits to review", r.PendingEdits, plural(r.PendingEdits, "file", "files")))
	}
	parts = append(parts, r.Trust, "rules: "+r.Rules)
	r.Summary = "agentls: " + strings.Join(parts, "; ")
	return r
}

// trustState says whether the workspace's settings file applies whole.
func (st *statusDesk) trustState() string {
	root := st.session().root
	if root == "" {
		return "no workspace folder"
	}
	l := agent.LoadSettings(st.getenv, root)
	switch {
	case l.Workspace == nil:
		return "no " + settings.WorkspaceFile
	case l.WorkspaceTrusted:
		return settings.WorkspaceFile + " trusted"
	case len(l.Ignored) > 0:
		return fmt.Sprintf("%s not trusted: %s ignored", settings.WorkspaceFile, strings.Join(l.Ignored, ", "))
	default:
		return settings.WorkspaceFile + " needs no trust"
	}
}

// runningJobs counts the background jobs running (none before the shell
// host first started).
func (st *statusDesk) runningJobs() int {
	h := st.cmds.running()
	if h == nil {
		return 0
	}
	n := 0
	for _, i := range h.Jobs().List() {
		if i.Running {
			n++
		}
	}
	return n
}

func (a *approvals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending)
}

func (ts *tasks) count() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.byID)
}
