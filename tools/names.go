package tools

// The built-in tools' names: what the model calls each by, the allowlist
// entry that selects it, and the key its Tool is bound under. Code that
// means a tool names it by one of these, so a tool's name is written once.
const (
	NameShell         = "shell"
	NameIPython       = "ipython"
	NameTmux          = "tmux"
	NameSave          = "save"
	NameAppend        = "append"
	NamePatch         = "patch"
	NamePatchMany     = "patch_many"
	NameApplyPatch    = "apply_patch"
	NameDelete        = "delete"
	NameMove          = "move"
	NameRead          = "read"
	NameViewAnchored  = "view_anchored"
	NamePatchAnchored = "patch_anchored"
	NameViewImage     = "view_image"
	NameBrowser       = "browser"
	NameScreenshot    = "screenshot"
	NameComputer      = "computer"
	NameMorph         = "morph"
	NameRag           = "rag"
	NameSubagent      = "subagent"
)
