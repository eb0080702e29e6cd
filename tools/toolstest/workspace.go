// Package toolstest gives the tests of the tool packages a tools.Workspace
// over a folder, and the Env and run functions a turn would bind: a tool
// is tested through its Tool, as agent.BindTools binds it.
package toolstest

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// A Workspace is a tools.Workspace over the folder Dir that proposes no
// edit: what the tools that only read, fetch or run need.
type Workspace struct {
	Dir string
	// Confirmer asks the user; nil: nobody can be asked.
	Confirmer approval.Confirmer
}

func (w Workspace) Root() string { return w.Dir }

// Read reads the file from the disk (edits.NotOpen).
func (w Workspace) Read(_ context.Context, path string) (string, int32, bool, error) {
	data, err := os.ReadFile(filepath.Join(w.Dir, filepath.FromSlash(path)))
	if errors.Is(err, os.ErrNotExist) {
		return "", edits.NotOpen, false, nil
	}
	return string(data), edits.NotOpen, err == nil, err
}

// Propose refuses: this workspace takes no edit.
func (w Workspace) Propose(context.Context, func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	return "", errors.New("this test workspace takes no edit")
}

func (w Workspace) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	if w.Confirmer == nil {
		return approval.Skip, approval.ErrNobodyToAsk
	}
	return w.Confirmer.Confirm(ctx, q)
}

func (w Workspace) PrivateDirs() []string          { return nil }
func (w Workspace) Output(stream string, p []byte) {}

// Env is the Env of a turn in dir, asking c (nil: nobody).
func Env(dir string, c approval.Confirmer) tools.Env {
	return tools.Env{Workspace: Workspace{Dir: dir, Confirmer: c}}
}

// Run is t's run function bound in env.
func Run(t tools.Tool, env tools.Env) tools.RunFunc { return t.Bind(env) }
