package edittool

import "github.com/agentls/agentls/tools"

// ReadPaths returns the paths a read call names, however it was written
// (a block's path or body, an xml attribute, a native call's "path"): for
// a front-end that says what was read.
func ReadPaths(use tools.ToolUse) []string { return readPaths(use) }
