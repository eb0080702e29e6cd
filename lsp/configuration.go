package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/settings"
)

// A configuration keeps the settings in force current: it takes the
// editor's settings (pushed with didChangeConfiguration, pulled with
// workspace/configuration), loads the files again when the workspace's
// changed or its trust did (refresh, as each turn starts), and trusts
// the workspace's file at the user's word (trust.go). The settings
// themselves are the settingsStore's; its dependencies are explicit.
type configuration struct {
	store        *settingsStore
	session      func() *session
	getenv       func(string) string
	log          *slog.Logger
	client       *editorClient
	call         func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error)
	goBackground func(name string, fn func(context.Context))
	// changed tells those who keep a copy of the settings that they
	// changed (the command host: commandHost.configure).
	changed func()
}

// refresh loads the settings files again when the workspace's
// changed on disk, or its trust did, since they were loaded: a trusted
// file rewritten while the server runs (by an approved agent edit, a
// pull) is read under the trust rule like a new one — its security keys
// are ignored until the user trusts it as it is now, and the user is
// told. Called as each turn starts; reading one small file costs far
// less than the turn.
func (c *configuration) refresh() {
	root := c.session().root
	if root == "" || !c.store.stale(c.getenv, root) {
		return
	}
	l := c.store.reload(c.getenv, root)
	c.changed()
	c.log.Info("workspace settings changed on disk: loaded again", "root", root, "trusted", l.WorkspaceTrusted, "ignored", l.Ignored)
	if msgs := settingsMessages(l, root); len(msgs) > 0 {
		c.goBackground("report settings", func(ctx context.Context) {
			for _, m := range msgs {
				c.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s changed: %s", settings.WorkspaceFile, m)
			}
		})
	}
}

// apply applies the editor's raw settings at once and reports their
// problems to the user in the background.
func (c *configuration) apply(raw json.RawMessage, from string) {
	problems := c.store.applyEditor(raw, from)
	c.changed()
	c.report(problems)
}

// settingsMessages are the words for the user about the settings files:
// one line per problem, and one for the workspace keys left out until the
// user trusts the file.
func settingsMessages(l settings.Loaded, root string) []string {
	var out []string
	for _, p := range l.Problems {
		if !p.Ignored {
			out = append(out, p.String())
		}
	}
	if len(l.Ignored) > 0 {
		out = append(out, fmt.Sprintf("%s sets %s, which decide what runs or where your code and keys go: they are ignored until you trust the file as it is now (`agentls trust %s`, or the code action \"%s\" in the file). Read it first: a cloned repository can ship it, and the agent cannot trust it for you",
			settings.WorkspaceFile, strings.Join(l.Ignored, ", "), root, trustTitle))
	}
	return out
}

// report shows settings problems in the background.
func (c *configuration) report(problems []settings.Problem) {
	if len(problems) == 0 {
		return
	}
	c.goBackground("report settings", func(ctx context.Context) {
		for _, p := range problems {
			c.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s", p)
		}
	})
}

type didChangeConfigurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

// didChange takes the pushed settings, or pulls them with
// workspace/configuration when the client only signals a change.
func (c *configuration) didChange(ctx context.Context, p *didChangeConfigurationParams) (any, error) {
	if len(p.Settings) > 0 && string(p.Settings) != "null" && string(p.Settings) != "{}" {
		c.apply(p.Settings, "settings")
		return nil, nil
	}
	c.goBackground("pull configuration", c.pull)
	return nil, nil
}

// pull asks a client that supports it for section "agentls".
func (c *configuration) pull(ctx context.Context) {
	supported := c.session().caps.Workspace.Configuration
	if !supported {
		return
	}
	var res []json.RawMessage
	params := map[string]any{"items": []map[string]string{{"section": "agentls"}}}
	if _, err := c.call(ctx, protocol.MethodWorkspaceConfiguration, params, &res); err != nil {
		c.log.Warn("workspace/configuration failed", "err", err)
		return
	}
	if len(res) > 0 {
		c.apply(res[0], "workspace configuration")
	}
}
