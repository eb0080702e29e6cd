package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update rewrites the golden files: testdata/*.json, and the files in the
// scripts of testdata/script that a `cmp stdout FILE` compares with.
var update = flag.Bool("update", false, "rewrite the golden files")

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestParseGolden(t *testing.T) {
	reply, err := os.ReadFile("../../examples/reply.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"parse-reply.json", []string{"parse"}},
		{"parse-reply-blocks.json", []string{"parse", "--blocks"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, string(reply), tc.args...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden := filepath.Join("testdata", tc.golden)
			if *update {
				os.WriteFile(golden, []byte(stdout), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
