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
	// ShowsDocumentsUnannounced: the editor opens a window/showDocument
	// request's file although its capabilities do not say it can (Helix
	// 25.07.1's handle_show_document).
	ShowsDocumentsUnannounced bool
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

// Helix is Helix 25.07.1's initialize request, recorded from real Helix
// (TestHelixReal/initialize compares it with the hx it runs). Helix
// announces neither window/showMessage (it answers showMessageRequest
// with MethodNotFound) nor showDocument, and applies a WorkspaceEdit with
// failureHandling "abort": the changes before a failing one stay applied.
func Helix() Profile {
	return Profile{Name: "helix", ClientInfo: map[string]string{"name": "helix", "version": "25.07.1"}, ShowsDocumentsUnannounced: true, Capabilities: map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-32", "utf-16"}},
		"workspace": map[string]any{
			"applyEdit":              true,
			"configuration":          true,
			"didChangeConfiguration": map[string]any{"dynamicRegistration": false},
			"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true, "relativePatternSupport": false},
			"executeCommand":         map[string]any{"dynamicRegistration": false},
			"fileOperations":         map[string]any{"didRename": true, "willRename": true},
			"inlayHint":              map[string]any{"refreshSupport": false},
			"symbol":                 map[string]any{"dynamicRegistration": false},
			"workspaceEdit": map[string]any{"documentChanges": true, "failureHandling": "abort", "normalizesLineEndings": false,
				"resourceOperations": []string{"create", "rename", "delete"}},
			"workspaceFolders": true,
		},
		"window": map[string]any{"workDoneProgress": true},
		"textDocument": map[string]any{
			"codeAction": map[string]any{
				"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{
					"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"}}},
				"dataSupport": true, "disabledSupport": true, "isPreferredSupport": true,
				"resolveSupport": map[string]any{"properties": []string{"edit", "command"}},
			},
			"completion": map[string]any{
				"completionItem": map[string]any{"deprecatedSupport": true, "insertReplaceSupport": true,
					"resolveSupport": map[string]any{"properties": []string{"documentation", "detail", "additionalTextEdits"}},
					"snippetSupport": true, "tagSupport": map[string]any{"valueSet": []int{1}}},
				"completionItemKind": map[string]any{},
			},
			"formatting":         map[string]any{"dynamicRegistration": false},
			"hover":              map[string]any{"contentFormat": []string{"markdown"}},
			"inlayHint":          map[string]any{"dynamicRegistration": false},
			"publishDiagnostics": map[string]any{"tagSupport": map[string]any{"valueSet": []int{1, 2}}, "versionSupport": true},
			"rename":             map[string]any{"dynamicRegistration": false, "honorsChangeAnnotations": false, "prepareSupport": true},
			"signatureHelp": map[string]any{"signatureInformation": map[string]any{"activeParameterSupport": true,
				"documentationFormat": []string{"markdown"}, "parameterInformation": map[string]any{"labelOffsetSupport": true}}},
		},
	}}
}

// Emacs is Emacs 28.2 with eglot 1.9 (the team's editor-profiles):
// no clientInfo, and no window capabilities at all, so no buttons
// (showMessageRequest) and no showDocument; approvals come as messages
// that the agentls.el plugin answers with agentls.approve.
func Emacs() Profile {
	return Profile{Name: "emacs-eglot-1.9", Capabilities: map[string]any{
		"workspace": map[string]any{
			"applyEdit": true, "executeCommand": map[string]any{"dynamicRegistration": false},
			"workspaceEdit": map[string]any{"documentChanges": true}, "didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			"symbol": map[string]any{"dynamicRegistration": false}, "configuration": true, "workspaceFolders": true,
		},
	}}
}

// showsDocuments reports whether the profile opens a window/showDocument
// request's file: announced, or (Helix) not.
func (p Profile) showsDocuments() bool {
	w, _ := p.Capabilities["window"].(map[string]any)
	sd, _ := w["showDocument"].(map[string]any)
	return sd["support"] == true || p.ShowsDocumentsUnannounced
}

// hasButtons reports whether the profile answers window/showMessageRequest.
func (p Profile) hasButtons() bool {
	w, _ := p.Capabilities["window"].(map[string]any)
	_, ok := w["showMessage"]
	return ok
}

// Profiles returns every profile, for tests that run under each.
func Profiles() []Profile { return []Profile{Neovim07(), VSCode(), Helix()} }
