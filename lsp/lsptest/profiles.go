package lsptest

// A Profile is what an editor announces in initialize.
type Profile struct {
	Name         string
	ClientInfo   map[string]string
	Capabilities map[string]any
	// SkipsNewerBuffers: the editor skips a document edit whose buffer is
	// newer than the edit's version, applies the rest and answers
	// applied: true (Neovim 0.7's apply_text_document_edit).
	SkipsNewerBuffers bool
	// OpenVersion is the version a buffer is opened at: Neovim and Helix
	// start at 0, VS Code at 1.
	OpenVersion int32
}

// Profiles of real editors, from what they sent in initialize (the team's
// editor-profiles: Neovim 0.7.2, VS Code 1.100.3; Helix from its source).
func Neovim07() Profile {
	return Profile{Name: "neovim-0.7", ClientInfo: map[string]string{"name": "Neovim", "version": "0.7.2"}, Capabilities: map[string]any{
		"workspace": map[string]any{
			"applyEdit": true,
			// Neovim 0.7 applies documentChanges but does not announce them;
			// it announces resource operations.
			"workspaceEdit": map[string]any{"resourceOperations": []string{"rename", "create", "delete"}},
		},
		"window": map[string]any{"workDoneProgress": true, "showMessage": map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": false}}},
	}, SkipsNewerBuffers: true}
}

func VSCode() Profile {
	return Profile{Name: "vscode-1.100", OpenVersion: 1, Capabilities: map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"workspace": map[string]any{
			"applyEdit":     true,
			"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}, "changeAnnotationSupport": map[string]any{"groupsOnLabel": true}},
			"configuration": true,
		},
		"window": map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}, "showMessage": map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": true}}},
	}}
}

func Helix() Profile {
	return Profile{Name: "helix", Capabilities: map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-32", "utf-16"}},
		"workspace": map[string]any{
			"applyEdit":     true,
			"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
		},
		"window": map[string]any{"workDoneProgress": true},
	}}
}

// showsDocuments reports whether the profile announces window/showDocument.
func (p Profile) showsDocuments() bool {
	w, _ := p.Capabilities["window"].(map[string]any)
	sd, _ := w["showDocument"].(map[string]any)
	return sd["support"] == true
}

// hasButtons reports whether the profile answers window/showMessageRequest.
func (p Profile) hasButtons() bool {
	w, _ := p.Capabilities["window"].(map[string]any)
	_, ok := w["showMessage"]
	return ok
}

// Profiles returns every profile, for tests that run under each.
func Profiles() []Profile { return []Profile{Neovim07(), VSCode(), Helix()} }
