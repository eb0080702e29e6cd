package edits

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestErrorMessagesGolden keeps the messages the model reads under review:
// each must say which hunk failed, why, and what to do.
// go test ./edits -run Golden -update rewrites testdata/errors.golden.
func TestErrorMessagesGolden(t *testing.T) {
	file := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}\n\tfmt.Println(\"done\")\n}\n\nfunc helper() {\n\tif true {\n\t\tfmt.Println(i)\n\t}\n}\n"
	cases := []struct{ name, patch string }{
		{"not found, nearest region", "<<<<<<< ORIGINAL\n\tfor i := 0; i < 5; i++ {\n\t\tfmt.Println(i)\n\t}\n=======\n\tfor i := range 5 {\n\t\tfmt.Println(i)\n\t}\n>>>>>>> UPDATED"},
		{"not found, most similar line", "<<<<<<< ORIGINAL\n\tfmt.Println(\"finished\")\n=======\n\tfmt.Println(\"all done\")\n>>>>>>> UPDATED"},
		{"ambiguous", "<<<<<<< ORIGINAL\n\t\tfmt.Println(i)\n=======\n\t\tfmt.Printf(\"%d\\n\", i)\n>>>>>>> UPDATED"},
		{"ambiguous at a loose tier", "<<<<<<< ORIGINAL\nfmt.Println(i)\n=======\nlog.Println(i)\n>>>>>>> UPDATED"},
		{"already applied", "<<<<<<< ORIGINAL\n\tfmt.Println(\"finished\")\n=======\n\tfmt.Println(\"done\")\n>>>>>>> UPDATED"},
		{"second of two hunks", "<<<<<<< ORIGINAL\nimport \"fmt\"\n=======\nimport \"log\"\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\nfunc nowhere() {\n=======\nfunc somewhere() {\n>>>>>>> UPDATED"},
		{"overlap", "<<<<<<< ORIGINAL\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n=======\nfunc main() {\n\tfor i := range 3 {\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n=======\n\tfor i := 0; i < 3; i++ {\n\t\tprintln(i)\n>>>>>>> UPDATED"},
		{"placeholder only in UPDATED", "<<<<<<< ORIGINAL\nfunc helper() {\n\tif true {\n=======\nfunc helper() {\n\t// ... existing code ...\n>>>>>>> UPDATED"},
		{"placeholders differ", "<<<<<<< ORIGINAL\nfunc main() {\n// ...\n}\n=======\nfunc main() {\n# ...\n\treturn\n}\n>>>>>>> UPDATED"},
		{"empty ORIGINAL", "<<<<<<< ORIGINAL\n=======\npackage other\n>>>>>>> UPDATED"},
		{"two dividers", "<<<<<<< ORIGINAL\na\n=======\nb\n=======\nc\n>>>>>>> UPDATED"},
		{"no UPDATED marker", "<<<<<<< ORIGINAL\na\n=======\nb\n"},
		{"text before the hunk", "Here is the patch:\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED"},
		{"no change", "<<<<<<< ORIGINAL\nimport \"fmt\"\n=======\nimport \"fmt\"\n>>>>>>> UPDATED"},
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("== " + c.name + " ==\n")
		hunks, err := ParseConflict(c.patch)
		if err == nil {
			_, err = ApplyHunks(file, hunks)
		}
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		b.WriteString(err.Error() + "\n\n")
	}
	golden := filepath.Join("testdata", "errors.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("error messages differ from %s (-want +got):\n%s", golden, diff)
	}
}
