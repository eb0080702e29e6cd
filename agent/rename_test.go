package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

func TestAskedRename(t *testing.T) {
	for _, tc := range []struct{ prompt, from, to string }{
		{"Rename the function greet to welcome in utils.py and update its use in main.py.", "greet", "welcome"},
		{"In a.go, rename the function foo to bar and update its call in main.", "foo", "bar"},
		{"Rename the constant MaxRetries to MaxAttempts in config.go and client.go.", "MaxRetries", "MaxAttempts"},
		{"Rename the interface Person to User in types.ts and app.ts.", "Person", "User"},
		{"rename `fetchData` to `loadData`", "fetchData", "loadData"},
		{"Rename count to total.", "count", "total"},
		// Not a rename of an identifier.
		{"Rename the file a.go to b.go.", "", ""},
		{"Rename a to a.", "", ""},
		{`In README.md, rename the heading "## Setup" to "## Installation".`, "", ""},
		{"Fix the greeting.", "", ""},
	} {
		from, to, ok := askedRename(tc.prompt)
		if from != tc.from || to != tc.to || ok != (tc.from != "") {
			t.Errorf("askedRename(%q) = %q, %q, %v; want %q, %q", tc.prompt, from, to, ok, tc.from, tc.to)
		}
	}
}

// TestRenamingSaveOffersTheRename replays the real model's reply to "Rename
// the function greet to welcome": utils.py saved with "Hi, " changed to
// "Welcome, " too (8 runs of 8). That save is refused with the save that
// only renames; main.py's save, a rename only, is written. Sent the offer,
// the model's save is written; a model that sends its own save again has
// it written (the request may ask for more).
func TestRenamingSaveOffersTheRename(t *testing.T) {
	utils := "def greet(name):\n    return \"Hi, \" + name\n"
	mainPy := "from utils import greet\n\nprint(greet(\"Ann\"))\n"
	realReply := "```save utils.py\ndef welcome(name):\n    return \"Welcome, \" + name\n```\n\n```save main.py\nfrom utils import welcome\n\nprint(welcome(\"Ann\"))\n```"
	offer := "def welcome(name):\n    return \"Hi, \" + name\n"
	for _, tc := range []struct {
		name, second, want string
	}{
		{"offer sent", "```save utils.py\n" + offer + "```", offer},
		{"own save again", "```save utils.py\ndef welcome(name):\n    return \"Welcome, \" + name\n```", "def welcome(name):\n    return \"Welcome, \" + name\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(realReply, 50), modeltest.Text(tc.second, 50), modeltest.Text("Renamed greet to welcome.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"utils.py": utils, "main.py": mainPy}}
			turn := compactTurn(t, srv, ws)
			if _, err := turn.Run(context.Background(), Request{Prompt: "Rename the function greet to welcome in utils.py and update its use in main.py.", Root: "/ws",
				Files: []FileText{{Path: "utils.py", Text: numbered(utils)}, {Path: "main.py", Text: numbered(mainPy)}}}); err != nil {
				t.Fatal(err)
			}
			msgs := srv.Requests()[1].Body.Messages
			var told string
			for _, m := range msgs[len(msgs)-2:] {
				told += m.Content + "\n"
			}
			if !strings.Contains(told, `also changes "return \"Hi, \" + name", which has no greet in it; nothing was written`) || !strings.Contains(told, "```save utils.py\n"+offer+"```") {
				t.Errorf("the model was told %q", told)
			}
			if got := ws.files["utils.py"]; got != tc.want {
				t.Errorf("utils.py = %q, want %q", got, tc.want)
			}
			if got := ws.files["main.py"]; got != "from utils import welcome\n\nprint(welcome(\"Ann\"))\n" {
				t.Errorf("main.py = %q", got)
			}
		})
	}
}

func TestRenameExtras(t *testing.T) {
	// The real model's app.ts, asked to rename Person to User.
	app := "import { Person } from \"./types\";\n\nexport function describe(p: Person): string {\n  return `${p.name} (${p.age})`;\n}\n"
	real := "import { User } from \"./types\";\n\nexport function describe(u: User): string {\n  return `${u.name} (${u.age})`;\n}\n"
	if got := renameExtras(app, real, "Person"); len(got) != 1 || got[0] != "  return `${p.name} (${p.age})`;" {
		t.Errorf("renameExtras(app.ts) = %q", got)
	}

	current := "def greet(name):\n    # say hello\n    return \"Hi, \" + name\n\nx = greet(1)\n"
	for _, tc := range []struct {
		content string
		want    []string
	}{
		{renamed(current, "greet", "welcome"), nil},
		{"def welcome(name):\n    # say hello\n    return \"Hi, \" + name\n\nx = welcome(1)\n# new\n", nil}, // an addition: not a change of a line
		{"def welcome(name):\n    return \"Hello, \" + name\n\nx = welcome(1)\n", []string{"    # say hello", `    return "Hi, " + name`}},
		// Another name renamed with it: not asked for either.
		{"def welcome(who):\n    # say hello\n    return \"Hi, \" + who\n\nx = welcome(1)\n", []string{`    return "Hi, " + name`}},
		{"def welcome(name):\n    # say hello\n    return 'Hi, ' + name\n\nx = welcome(1)\n", []string{`    return "Hi, " + name`}},
	} {
		got := renameExtras(current, tc.content, "greet")
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("renameExtras(%q) = %q, want %q", tc.content, got, tc.want)
		}
	}
}
