package lsp_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/agentls/agentls/lsp/lsptest"
)

var update = flag.Bool("update", false, "rewrite the want/ files of testdata/scenarios from what the scenarios produce")

// TestScenarios runs each testdata/scenarios/*.txtar under every editor
// profile. An archive's comment is the script, one step per line:
//
//	open PATH            open a file in the editor
//	type PATH FILE       replace the buffer's text with the archive's FILE
//	apply FILE           agentls.applyReply with the text of FILE
//	exec COMMAND [JSON]  workspace/executeCommand with one argument (ROOT
//	                     in it is the workspace's path)
//	await TEXT           wait for one more shown message containing TEXT
//	                     than the script awaited before
//	settings JSON        workspace/didChangeConfiguration with settings
//
// Files other than want/ ones are the workspace. After the script, every
// want/PATH must equal PATH's buffer (if open) or file; a file named in
// want/ with the content "<absent>" must not exist. -update rewrites the
// want/ files (of the first profile: all must agree).
func TestScenarios(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob("testdata/scenarios/*.txtar")
	if len(names) == 0 {
		t.Fatal("no scenarios")
	}
	for _, name := range names {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			for i, p := range lsptest.Profiles() {
				t.Run(p.Name, func(t *testing.T) {
					got := runScenario(t, ar, p)
					if *update && i == 0 {
						writeWants(t, name, ar, got)
						return
					}
					for _, f := range ar.Files {
						rel, ok := strings.CutPrefix(f.Name, "want/")
						want := string(f.Data)
						if want == absent+"\n" {
							want = absent // txtar ends every file with a newline
						}
						if ok && got[rel] != want {
							t.Errorf("%s:\n%s\nwant:\n%s", rel, got[rel], f.Data)
						}
					}
				})
			}
		})
	}
}

// runScenario runs an archive's script and returns what the want/ files
// name, as the editor sees it.
func runScenario(t *testing.T, ar *txtar.Archive, p lsptest.Profile) map[string]string {
	files := map[string]string{}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			files[f.Name] = string(f.Data)
		}
	}
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, p)
	awaited := map[string]int{} // how many messages with a text were awaited
	for n, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("line %d %q: "+format, append([]any{n + 1, line}, args...)...)
		}
		switch verb {
		case "open":
			e.OpenFile(rest, strings.TrimPrefix(filepath.Ext(rest), "."))
		case "type":
			path, file, _ := strings.Cut(rest, " ")
			text, ok := files[file]
			if !ok {
				fail("no file %s in the archive", file)
			}
			e.Type(path, text)
		case "apply":
			text, ok := files[rest]
			if !ok {
				fail("no file %s in the archive", rest)
			}
			if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": text}); err != nil {
				fail("%v", err)
			}
		case "exec":
			cmd, arg, _ := strings.Cut(rest, " ")
			arg = strings.ReplaceAll(arg, "ROOT", e.Root)
			var a any
			if arg != "" {
				if err := json.Unmarshal([]byte(arg), &a); err != nil {
					fail("argument: %v", err)
				}
			}
			if err := e.ExecuteCommand(cmd, a); err != nil {
				fail("%v", err)
			}
		case "settings":
			var v any
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				fail("settings: %v", err)
			}
			e.ChangeSettings(v)
		case "await":
			awaited[rest]++
			e.Await(lsptest.ShownMessages(awaited[rest], rest))
		default:
			fail("unknown step %s", verb)
		}
	}
	got := map[string]string{}
	for _, f := range ar.Files {
		rel, ok := strings.CutPrefix(f.Name, "want/")
		if !ok {
			continue
		}
		if text, open := e.BufferIfOpen(rel); open {
			got[rel] = text
		} else if data, err := os.ReadFile(filepath.Join(root, rel)); err == nil {
			got[rel] = string(data)
		} else {
			got[rel] = absent
		}
	}
	return got
}

// absent is the want/ content of a file that must not exist.
const absent = "<absent>"

func writeWants(t *testing.T, name string, ar *txtar.Archive, got map[string]string) {
	for i, f := range ar.Files {
		if rel, ok := strings.CutPrefix(f.Name, "want/"); ok {
			ar.Files[i].Data = []byte(got[rel])
		}
	}
	if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}
