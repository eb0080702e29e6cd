package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/settings"
)

// cmdTrust trusts the workspace's settings file as it is on disk: its
// security-relevant keys (settings.SecurityKeys) apply from then on,
// until the file changes. Only the user runs it — from a code action in
// the file, a plugin's command, or `agentls trust` in a terminal; the
// agent has no way to execute an editor command.
const cmdTrust = "agentls.trust"

// The title of the code action that trusts the workspace's settings file.
const trustTitle = "Trust workspace settings"

// trustArgs: the content the user saw, by hash; the file is trusted only
// if it still holds exactly that (so a file rewritten between the user's
// look and the click is not trusted).
type trustArgs struct {
	SHA256 string `json:"sha256"`
}

// trustCommand trusts the workspace's settings file as it is on disk,
// if it still holds what the user saw, and loads the settings again.
func (c *configuration) trustCommand(_ context.Context, a trustArgs) (any, error) {
	root := c.session().root
	if root == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no workspace folder, so no workspace settings to trust")
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(settings.WorkspaceFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("%s has no %s: nothing to trust", root, settings.WorkspaceFile))
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	hash := settings.Hash(data)
	if a.SHA256 != "" && a.SHA256 != hash {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("%s changed since it was shown to you: nothing was trusted; read it again, then trust it", settings.WorkspaceFile))
	}
	if err := (settings.Trust{Getenv: c.getenv}).Grant(root, data); err != nil {
		return nil, err
	}
	l := c.store.reload(c.getenv, root)
	c.changed()
	c.log.Info("workspace settings trusted", "root", root, "sha256", hash)
	keys := settings.SecurityKeysIn(data)
	what := "it sets no key that needed trust"
	if len(keys) > 0 {
		what = strings.Join(keys, ", ") + " now apply"
	}
	c.goBackground("report trust", func(ctx context.Context) {
		c.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: trusted %s as it is now (%s); if it changes, it is untrusted again", settings.WorkspaceFile, what)
		for _, m := range settingsMessages(l, root) {
			c.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s", m)
		}
	})
	return map[string]any{"trusted": true, "sha256": hash, "keys": keys}, nil
}

// trustActions offers, in the workspace's settings file, to trust it when
// it sets keys that need trust and is not trusted as it is on disk.
func trustActions(trust settings.Trust, root string, d documents.Document) []protocol.CodeAction {
	if root == "" || d.Path != filepath.Join(root, filepath.FromSlash(settings.WorkspaceFile)) {
		return nil
	}
	data, err := os.ReadFile(d.Path)
	if err != nil {
		return nil
	}
	keys := settings.SecurityKeysIn(data)
	if len(keys) == 0 || trust.Trusted(root, data) {
		return nil
	}
	title := fmt.Sprintf("%s (%s)", trustTitle, strings.Join(keys, ", "))
	if d.Text() != string(data) {
		title += " as saved"
	}
	return []protocol.CodeAction{{
		Title:   title,
		Kind:    protocol.Source,
		Command: &protocol.Command{Title: title, Command: cmdTrust, Arguments: []any{trustArgs{SHA256: settings.Hash(data)}}},
	}}
}
