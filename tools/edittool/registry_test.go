package edittool

import (
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/shelltool"
)

// testRegistry holds the built-in tools the replies of these tests call:
// this package's and the shell's (tools/builtin lists this package's, so
// its tests cannot import it). Nothing in it runs until bound.
func testRegistry() *tools.Registry {
	r, err := tools.NewRegistry(tools.Specs(append(Tools(), shelltool.Tools(nil)...))...)
	if err != nil {
		panic(err)
	}
	return r
}

// runsIn returns this package's tools bound to ws, by name.
func runsIn(ws Workspace) map[string]tools.RunFunc {
	env := tools.Env{Workspace: ws}
	runs := map[string]tools.RunFunc{}
	for _, t := range Tools() {
		runs[t.Spec.Name] = t.Bind(env)
	}
	return runs
}
