package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestAsk: agentls.ask runs a turn against a model: the model's patch
// lands in the open buffer as an agent edit (undoable), the model is told
// it was applied, and the turn ends with the model's closing words.
func TestAsk(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("Renaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n", 9),
				modeltest.Text("Renamed Config to Settings.", 9),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"model": "test-model", "baseUrl": srv.URL}))
			e.OpenFile("a.go", "go")
			if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "rename Config to Settings"}); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("agent turn 1 done"),
				lsptest.ShownMessage("Renamed Config to Settings."), // the model's closing words
				lsptest.BufferContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"),
			)
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			sys, result := reqs[0].Body.Messages[0].Content, reqs[1].Body.Messages[3].Content
			if !strings.Contains(sys, "Open in the editor: a.go") || !strings.Contains(result, "applied 1 edit in a.go") {
				t.Errorf("system prompt %q…, result %q", sys[:80], result)
			}
			e.ExecuteCommand("agentls.turn.undo", nil)
			e.Await(lsptest.ShownMessage("undone"), lsptest.BufferContent("a.go", files["a.go"]))
		})
	}
}

// TestAskFailures: without a model the command fails at once and says
// how to configure one; a model error ends the turn with a clear message;
// a patch that does not match reaches the model, and the buffer is left.
func TestAskFailures(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	// No model and no key, whatever the machine running the test has.
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": ""}), lsptest.Env(map[string]string{"AGENTLS_MODEL": "", "OPENAI_API_KEY": ""}))
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "x"}); err == nil || !strings.Contains(err.Error(), "AGENTLS_MODEL") {
		t.Errorf("no model: %v", err)
	}

	srv := modeltest.New(
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Nope struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 100),
		modeltest.Text("The patch did not apply.", 100),
		modeltest.Reply{Status: 401, Message: "bad key"},
	)
	defer srv.Close()
	e.ChangeSettings(map[string]any{"agentls": map[string]any{"model": "m", "baseUrl": srv.URL}})
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "rename"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.BufferContent("a.go", files["a.go"]))
	if told := srv.Requests()[1].Body.Messages[3].Content; !strings.Contains(told, "Error from patch a.go") {
		t.Errorf("the model was told %q", told)
	}
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "again"})
	// The model's error, and what to do about it.
	e.Await(lsptest.ShownMessage("agent turn 2 stopped"), lsptest.ShownMessage("API key", "401: bad key", "$OPENAI_API_KEY"))
}

// TestAskCancel: the progress's cancel button stops a turn waiting on the
// model, and the user is told.
func TestAskCancel(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Let me think"}}, Stall: true})
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "think"})
	e.Await(lsptest.StartedWork("agentls: agent turn 1"))
	e.Cancel(e.WorkToken("agentls: agent turn 1"))
	// Nothing was changed, and the message says so (not "edits
	// already applied stay").
	e.Await(lsptest.ShownMessage("agent turn 1 cancelled: nothing was changed"), lsptest.NoShownMessage("already applied"), lsptest.CompletedWork("agentls: agent turn 1"))

	// agentls.cancel {turn} stops that turn only.
	srv2 := modeltest.New(
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Let me think"}}, Stall: true},
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Me too"}}, Stall: true},
	)
	defer srv2.Close()
	e.ChangeSettings(map[string]any{"agentls": map[string]any{"model": "m", "baseUrl": srv2.URL}})
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "think"})
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "think too"})
	e.Await(lsptest.StartedWork("agentls: agent turn 2"), lsptest.StartedWork("agentls: agent turn 3"))
	if err := e.ExecuteCommand("agentls.cancel", map[string]any{"turn": 3}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 3 cancelled"), lsptest.NoShownMessage("agent turn 2 cancelled"))
	e.ExecuteCommand("agentls.cancel", map[string]any{"turn": 2})
	e.Await(lsptest.ShownMessage("agent turn 2 cancelled"))
}

// TestAskReadsBuffers: the read tool shows the model the editor's buffer,
// unsaved changes included, and the default tools are the ones agentls
// runs by default.
func TestAskReadsBuffers(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("```read a.go\n```\n\n", 5),
		modeltest.Text("It has an import.", 50),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", "package p\n\nimport \"fmt\"\n")
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "what does a.go import?"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	reqs := srv.Requests()
	if got := reqs[1].Body.Messages[3].Content; !strings.Contains(got, "````a.go\n1\tpackage p\n2\t\n3\timport \"fmt\"\n````") {
		t.Errorf("the model read %q", got)
	}
	sys := reqs[0].Body.Messages[0].Content
	if !strings.Contains(sys, "## read") || !strings.Contains(sys, "## patch") || !strings.Contains(sys, "## shell") || strings.Contains(sys, "## view_anchored") {
		t.Error("the default tools are not read, the edit tools and the shell tools")
	}
}

// TestAICommentAction: an AI! comment typed in the buffer (unsaved) is
// offered as "Agent: …"; running it asks the agent with the instruction
// and the code around it.
func TestAICommentAction(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\n// rename Config to Settings AI!\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n", 11),
		modeltest.Text("Renamed, and removed the comment.", 50),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", "package p\n\n// rename Config to Settings AI!\ntype Config struct{}\n")
	action := findAction(e.CodeActions("a.go", protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2}}), "Agent: ")
	if action == nil || action.Title != "Agent: rename Config to Settings" {
		t.Fatalf("action = %+v", action)
	}
	if err := e.RunCodeAction(*action); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.BufferContent("a.go", "package p\n\ntype Settings struct{}\n"))
	user := srv.Requests()[0].Body.Messages[1].Content
	if !strings.Contains(user, "AI! comment on line 3 of a.go") || !strings.Contains(user, "Selected in a.go, lines 1-") {
		t.Errorf("the model was asked %q", user)
	}
}

// TestFixDiagnosticAction: a diagnostic the editor shows is offered as
// "Agent: fix — …", and the agent is asked with the problem and the code
// around it.
func TestFixDiagnosticAction(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(modeltest.Text("```patch b.go\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n\n", 50), modeltest.Text("Fixed.", 50))
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("b.go", "go")
	diag := protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: 2, Character: 6}, End: protocol.Position{Line: 2, Character: 12}},
		Severity: protocol.DiagnosticSeverityError, Source: "compiler", Message: "undefined: Config"}
	action := findAction(e.CodeActionsFor("b.go", diag.Range, []protocol.Diagnostic{diag}), "Agent: fix")
	if action == nil || action.Title != "Agent: fix — undefined: Config" {
		t.Fatalf("action = %+v", action)
	}
	e.RunCodeAction(*action)
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.BufferContent("b.go", "package p\n\nvar c Settings\n"))
	if user := srv.Requests()[0].Body.Messages[1].Content; !strings.Contains(user, "- b.go:3: error (compiler): undefined: Config") {
		t.Errorf("the model was asked %q", user)
	}
}

// TestAIQuestion: an AI? comment is answered by a read-only turn: the
// answer shows as an Information diagnostic on the comment's line until
// the comment goes, and nothing is edited.
func TestAIQuestion(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(modeltest.Text("Settings are read once, at start-up.", 50))
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	question := "package p\n\n// when are settings read? AI?\ntype Config struct{}\n"
	e.Type("a.go", question)
	action := findAction(e.CodeActions("a.go", protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2}}), "Agent: answer")
	if action == nil || action.Title != "Agent: answer — when are settings read?" {
		t.Fatalf("action = %+v", action)
	}
	e.RunCodeAction(*action)
	e.Await(
		lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithSeverity(protocol.DiagnosticSeverityInformation), lsptest.AtLine(2), lsptest.WithMessage("Settings are read once, at start-up.")),
		lsptest.BufferContent("a.go", question), // answering changes nothing
	)
	if ds := e.Diagnostics("a.go"); len(ds) != 1 {
		t.Errorf("a.go shows %d diagnostics, want the answer only: %v", len(ds), ds)
	}
	if sys := srv.Requests()[0].Body.Messages[0].Content; strings.Contains(sys, "## patch") || !strings.Contains(sys, "## read") {
		t.Error("a question's turn was offered edit tools")
	}
	e.Type("a.go", files["a.go"]) // the question is gone: so is the answer
	e.Await(lsptest.NoDiagnostics(lsptest.ForFile("a.go")))
}

// TestAskSelectionAction: a selection holding a plain comment is offered
// as "Ask agent: <comment>"; the turn gets the comment as its request and
// the selection as the code it is about.
func TestAskSelectionAction(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(modeltest.Text("It is a struct with no fields.", 50))
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	sel := protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 3, Character: 20}}
	action := findAction(e.CodeActions("a.go", sel), "Ask agent: ")
	if action == nil || action.Title != "Ask agent: Config holds settings." {
		t.Fatalf("action = %+v", action)
	}
	if none := findAction(e.CodeActions("a.go", protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 3}}), "Ask agent"); none != nil {
		t.Errorf("an empty selection got %q", none.Title)
	}
	if err := e.RunCodeAction(*action); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	user := srv.Requests()[0].Body.Messages[1].Content
	if !strings.HasPrefix(user, "Config holds settings.\n\n(This is the request in the comment on line 3 of a.go") || !strings.Contains(user, "type Config struct{}") {
		t.Errorf("the model was asked %q", user)
	}
}
