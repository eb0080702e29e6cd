package diagnose

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/cases and testdata/summary.golden")

// TestCases parses recorded output of tools this machine may lack (tsc,
// eslint, pytest, mypy, ruff). Each testdata/cases/*.txtar holds:
//
//	-- command --  the command line
//	-- dir --      (optional) the command's directory, relative to the root
//	-- output --   what it printed; $ROOT stands for the workspace root
//	-- want --     the diagnostics, as render prints them
//
// and the workspace's files as the other sections.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			sections := map[string]string{}
			workspace := map[string]string{}
			for _, f := range ar.Files {
				switch f.Name {
				case "command", "dir", "output", "want":
					sections[f.Name] = string(f.Data)
				default:
					workspace[f.Name] = string(f.Data)
				}
			}
			writeFiles(t, root, workspace)
			command := strings.TrimSpace(sections["command"])
			dir := filepath.Join(root, strings.TrimSpace(sections["dir"]))
			output := strings.ReplaceAll(sections["output"], "$ROOT", root)
			diags, err := Parse(command, output, Options{Dir: dir, Root: root})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(render(root, diags), "\n")
			if got != "" {
				got += "\n"
			}
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "want" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(sections["want"], got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", command, diff)
			}
		})
	}
}
