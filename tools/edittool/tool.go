package edittool

import (
	"encoding/json"

	"github.com/agentls/agentls/tools"
)

// Tools are the tools a Batch runs, each bound in a turn to the Env's
// workspace (bind), in the order of the built-in list.
func Tools() []tools.Tool {
	return []tools.Tool{SaveTool(), AppendTool(), PatchTool(), PatchManyTool(), ApplyPatchTool(), DeleteTool(), MoveTool(), ViewAnchoredTool(), PatchAnchoredTool(), ReadTool()}
}

// tool returns the Tool of spec, which a Batch runs (bind).
func tool(spec *tools.ToolSpec) tools.Tool {
	return tools.Tool{Spec: spec, Bind: func(env tools.Env) tools.RunFunc { return bind(spec.Name, env) }}
}

// SaveTool is save.
func SaveTool() tools.Tool { return tool(saveSpec()) }

// AppendTool is append.
func AppendTool() tools.Tool { return tool(appendSpec()) }

// PatchTool is patch.
func PatchTool() tools.Tool { return tool(patchSpec()) }

// PatchManyTool is patch_many.
func PatchManyTool() tools.Tool { return tool(patchManySpec()) }

// ApplyPatchTool is apply_patch.
func ApplyPatchTool() tools.Tool { return tool(applyPatchSpec()) }

// DeleteTool is delete.
func DeleteTool() tools.Tool { return tool(deleteSpec()) }

// MoveTool is move.
func MoveTool() tools.Tool { return tool(moveSpec()) }

// ReadTool is read.
func ReadTool() tools.Tool { return tool(readSpec()) }

// ViewAnchoredTool is view_anchored.
func ViewAnchoredTool() tools.Tool { return tool(viewAnchoredSpec()) }

// PatchAnchoredTool is patch_anchored.
func PatchAnchoredTool() tools.Tool { return tool(patchAnchoredSpec()) }

const patchInstructions = `Each hunk replaces the lines between "<<<<<<< ORIGINAL" and "=======" with the lines between "=======" and ">>>>>>> UPDATED". One block may hold several hunks; they apply in order.
ORIGINAL must be whole lines copied exactly from the current file, with enough context to match exactly one place; whitespace differences are tolerated only when the match stays unique. An empty UPDATED deletes the lines. A line "// ..." or "# ..." in both parts skips unchanged lines between two pieces that must each match.
Read the file before patching it. If a hunk does not match, nothing is changed and the error shows the nearest lines: patch again from them.`

func saveSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameSave,
		BlockTypes:   []string{tools.NameSave},
		PathArg:      true,
		Description:  "Create a file or replace its whole content.",
		Instructions: `Write the complete content: placeholder lines such as "# ..." or "// ... existing code ..." are refused, never written. Missing folders are created. To change part of an existing file use patch instead: it is smaller and cannot lose what you did not repeat.`,
		Parameters: []tools.Parameter{
			tools.PathParam("file to write"),
			{Name: "content", Type: "string", Required: true, Description: "The file's complete new content."},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("write a hello world in hello.py"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameSave, "print(\"Hello, world!\")", "hello.py")),
				tools.ExampleSystem("Saved to hello.py"),
			}},
		},
	}
}

func appendSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameAppend,
		BlockTypes:   []string{tools.NameAppend},
		PathArg:      true,
		Description:  "Add text to the end of a file, creating it if needed.",
		Instructions: `A line break is added before the text if the file does not end with one, and after it. Placeholder lines ("# ...") are refused.`,
		Parameters: []tools.Parameter{
			tools.PathParam("file to append to"),
			{Name: "content", Type: "string", Required: true, Description: "The text to add."},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("note that we use Go 1.26 in NOTES.md"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameAppend, "- Go 1.26", "NOTES.md")),
				tools.ExampleSystem("Appended to NOTES.md"),
			}},
		},
	}
}

func patchSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NamePatch,
		BlockTypes:   []string{tools.NamePatch},
		PathArg:      true,
		Description:  "Change part of a file with conflict-marker hunks.",
		Instructions: patchInstructions,
		Parameters: []tools.Parameter{
			tools.PathParam("file to change"),
			{Name: "patch", Type: "string", Required: true, Description: "One or more ORIGINAL/UPDATED hunks."},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("make hello.py greet the user by name"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NamePatch, `<<<<<<< ORIGINAL
print("Hello, world!")
=======
name = input("Name? ")
print(f"Hello, {name}!")
>>>>>>> UPDATED`, "hello.py")),
				tools.ExampleSystem("Patch applied to hello.py"),
			}},
		},
	}
}

func patchManySpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:        tools.NamePatchMany,
		BlockTypes:  []string{tools.NamePatchMany},
		Description: "Change several files at once, all or nothing.",
		Instructions: `Start each file's section with a line "=== PATH: path/to/file ===" followed by that file's ORIGINAL/UPDATED hunks (as for patch). Every hunk of every file is checked before anything changes; if one fails, no file is changed. A file may appear in several sections; they apply in order.
` + patchInstructions,
		Parameters: []tools.Parameter{
			{Name: "patches", Required: true, Schema: json.RawMessage(`{"type":"array","description":"The files to change, in order.","items":{"type":"object","properties":{"path":{"type":"string","description":"The file, relative to the workspace root."},"patch":{"type":"string","description":"ORIGINAL/UPDATED hunks for this file."}},"required":["path","patch"]}}`)},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("rename Config to Settings"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NamePatchMany, `=== PATH: config.go ===
<<<<<<< ORIGINAL
type Config struct {
=======
type Settings struct {
>>>>>>> UPDATED

=== PATH: main.go ===
<<<<<<< ORIGINAL
	cfg := Config{}
=======
	cfg := Settings{}
>>>>>>> UPDATED`)),
				tools.ExampleSystem("Applied 2 patches atomically to: config.go, main.go"),
			}},
		},
	}
}

func applyPatchSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameApplyPatch,
		BlockTypes:   []string{tools.NameApplyPatch},
		Description:  "Add, change, move and delete files with one patch in OpenAI's apply_patch format.",
		Instructions: `The patch starts with "*** Begin Patch" and ends with "*** End Patch". Each file starts with "*** Add File: path" (every line prefixed with +), "*** Delete File: path", or "*** Update File: path" (optionally followed by "*** Move to: new path"). An update holds chunks: an optional "@@ scope" line (for example a function's signature) to say where, then context lines prefixed with a space, removed lines with -, added lines with +. The whole patch applies or nothing does.`,
		Parameters: []tools.Parameter{
			{Name: "patch", Type: "string", Required: true, Description: "The patch, from *** Begin Patch to *** End Patch."},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("log the greeting"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameApplyPatch, `*** Begin Patch
*** Update File: main.go
@@ func main() {
-	fmt.Println(greeting)
+	log.Print(greeting)
*** End Patch`)),
				tools.ExampleSystem("Patch applied: M main.go"),
			}},
		},
	}
}

// deleteSpec and moveSpec are apply_patch's "*** Delete File" and "*** Move
// to" as calls of their own: a small model that writes only save blocks
// can still remove or rename a file, as one undoable edit (in the editor a
// DeleteFile or RenameFile of the WorkspaceEdit), never with a shell
// command that asks.
func deleteSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameDelete,
		BlockTypes:   []string{tools.NameDelete},
		PathArg:      true,
		Description:  "Delete a file.",
		Instructions: `Give the file after the block type; the block stays empty. It is undone like any edit.`,
		Parameters:   []tools.Parameter{tools.PathParam("file to delete")},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("old.py is not used any more: remove it"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameDelete, "", "old.py")),
				tools.ExampleSystem("Deleted old.py"),
			}},
		},
	}
}

func moveSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameMove,
		BlockTypes:   []string{tools.NameMove},
		Description:  "Move or rename a file.",
		Instructions: `Give the file and its new path after the block type; the block stays empty. Missing folders are made; a file already at the new path is not replaced. References to the file are not updated: patch them.`,
		Parameters: []tools.Parameter{
			tools.PathParam("file to move"),
			{Name: "to", Type: "string", Required: true, Description: "The file's new path, relative to the workspace root."},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("rename util.go to strings.go"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameMove, "", "util.go", "strings.go")),
				tools.ExampleSystem("Moved util.go to strings.go"),
			}},
		},
	}
}

func readSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameRead,
		BlockTypes:   []string{tools.NameRead},
		PathArg:      true,
		Description:  "Read files or list folders, with line numbers, as the editor holds them.",
		Instructions: `Give one path after the block type, or several paths one per line in the block. Files are shown with line numbers, including changes not yet saved in the editor; folders are listed. Use start_line/end_line to read part of one large file. Read a file before you patch it.`,
		Parameters: []tools.Parameter{
			{Name: "path", Type: "string", Required: true, Description: "The file or folder to read, relative to the workspace root."},
			startLine(), endLine(),
		},
		Hints:             []string{"read-only"},
		DisabledByDefault: true,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("what does main.go do?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameRead, "", "main.go")),
			}},
		},
	}
}

func viewAnchoredSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameViewAnchored,
		BlockTypes:   []string{tools.NameViewAnchored},
		PathArg:      true,
		Description:  "Show a file with a short anchor before each line, for patch_anchored.",
		Instructions: `An anchor names a line by its content and its neighbours, not its number, so it stays valid when lines are added or removed elsewhere in the file. Give a line range as "start_line"/"end_line" to view part of a large file.`,
		Parameters: []tools.Parameter{
			tools.PathParam("file to view"),
			startLine(), endLine(),
		},
		Hints:             []string{"read-only"},
		DisabledByDefault: true,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("show me main.go with anchors"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameViewAnchored, "", "main.go")),
			}},
		},
	}
}

func patchAnchoredSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NamePatchAnchored,
		BlockTypes:   []string{tools.NamePatchAnchored},
		PathArg:      true,
		Description:  "Change lines of a file addressed by the anchors view_anchored showed.",
		Instructions: `The input is a JSON list of operations {"anchor", "op", "text", "expected"}: op is replace, delete, insert_before or insert_after; text is the new line or lines (a final newline adds no line; for replace, "" deletes the line); expected, if given, must equal the line's current text, and guards against editing the wrong line. To replace or delete a block, add "end" with the anchor of its last line (and "end_expected"). All operations are checked before any applies: an unknown or stale anchor (its line or a neighbour changed) rejects the whole batch and shows fresh anchors to retry with. Use view_anchored first; anchors look like "k3x9ab" (sometimes longer, or with ".2").`,
		Parameters: []tools.Parameter{
			tools.PathParam("file to change"),
			{Name: "ops", Required: true, Schema: json.RawMessage(`{"type":"array","description":"The operations, applied as one batch.","items":{"type":"object","properties":{"anchor":{"type":"string"},"op":{"type":"string","enum":["replace","delete","insert_before","insert_after"]},"text":{"type":"string"},"expected":{"type":"string"},"end":{"type":"string","description":"The anchor of the last line of a block to replace or delete."},"end_expected":{"type":"string"}},"required":["anchor","op"]}}`)},
		},
		DisabledByDefault: true,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("use log instead of fmt on the greeting line"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NamePatchAnchored, `[{"anchor": "k3x9ab", "op": "replace", "text": "\tlog.Print(greeting)", "expected": "\tfmt.Println(greeting)"}]`, "main.go")),
				tools.ExampleSystem("Anchored patch applied to main.go (1 operation)"),
			}},
		},
	}
}

// startLine and endLine are the line-range parameters of the viewing tools.
func startLine() tools.Parameter {
	return tools.Parameter{Name: "start_line", Type: "integer", Description: "First line to show (1-based)."}
}

func endLine() tools.Parameter {
	return tools.Parameter{Name: "end_line", Type: "integer", Description: "Last line to show (inclusive)."}
}
