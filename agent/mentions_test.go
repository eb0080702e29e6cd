package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFindMentions: what counts as a mention, and what stays text.
func TestFindMentions(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a\n", "pkg/b.go": "package pkg\n", "my file.txt": "x"})
	for _, tc := range []struct {
		text string
		want []Mention
	}{
		{"fix @a.go please", []Mention{{Kind: MentionFile, Text: "@a.go", Path: "a.go"}}},
		{"see @a.go.", []Mention{{Kind: MentionFile, Text: "@a.go", Path: "a.go"}}},
		{"(@pkg/b.go) and @pkg/", []Mention{{Kind: MentionFile, Text: "@pkg/b.go", Path: "pkg/b.go"}, {Kind: MentionFolder, Text: "@pkg/", Path: "pkg"}}},
		{"@a.go twice @a.go", []Mention{{Kind: MentionFile, Text: "@a.go", Path: "a.go"}}},
		{"#diagnostics, #selection and #git-diff with @buffers", []Mention{{Kind: MentionDiagnostics, Text: "#diagnostics"}, {Kind: MentionSelection, Text: "#selection"}, {Kind: MentionGitDiff, Text: "#git-diff"}, {Kind: MentionBuffers, Text: "@buffers"}}},
		{"mail me@a.go or use @Override, @missing.go, #123, a#selection", nil},
		{"outside: @../a.go @/etc/passwd", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FindMentions(root, tc.text)); diff != "" {
				t.Errorf("mentions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpandMentions: each mention adds what it names, from the source's
// view (the editor's buffer, not the disk); a secret is left out; a part
// the front-end cannot give says so.
func TestExpandMentions(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "package a // on disk\n", "pkg/b.go": "package pkg\n", ".env": "KEY=sk-live-9\n"})
	src := MentionSource{
		Root: root,
		Read: func(_ context.Context, rel string) (string, error) {
			if rel == "a.go" {
				return "package a // unsaved\n", nil
			}
			return "", errors.New("not open")
		},
		Buffers:     func() []string { return []string{"a.go"} },
		Diagnostics: func() string { return "a.go:1:1: error: boom" },
		Secret: func(abs string) string {
			if filepath.Base(abs) == ".env" {
				return "may hold secrets"
			}
			return ""
		},
	}
	added, log := ExpandMentions(context.Background(), src, "look at @a.go, @pkg/ and @.env with #diagnostics #selection")
	for _, s := range []string{"@a.go:\n```\n1\tpackage a // unsaved\n```", "pkg/b.go", "a.go:1:1: error: boom", "#selection: nothing: no selection here", ".env may hold secrets"} {
		if !strings.Contains(added, s) {
			t.Errorf("the context lacks %q:\n%s", s, added)
		}
	}
	for _, s := range []string{"on disk", "sk-live-9"} {
		if strings.Contains(added, s) {
			t.Errorf("the context holds %q:\n%s", s, added)
		}
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Text+" → "+e.Added)
	}
	want := []string{"@a.go → a.go (1 line)", "@pkg/ → pkg/ (1 entry)", "@.env → left out: .env may hold secrets", "#diagnostics → 1 diagnostics", "#selection → nothing: no selection here"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if added, log := ExpandMentions(context.Background(), src, "no mentions here"); added != "" || log != nil {
		t.Errorf("no mentions added %q, %v", added, log)
	}
}

// TestMentionsStayInside: a repository's link that leads out of the
// workspace attaches nothing, as a file or as a folder, though the user
// mentioned it by a name inside.
func TestMentionsStayInside(t *testing.T) {
	root := t.TempDir()
	away := t.TempDir()
	writeFiles(t, away, map[string]string{"private.txt": "my diary\n", "dir/x.txt": "x\n"})
	writeFiles(t, root, map[string]string{"a.go": "package a\n"})
	if err := os.Symlink(filepath.Join(away, "private.txt"), filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(away, "dir"), filepath.Join(root, "docs")); err != nil {
		t.Fatal(err)
	}
	added, log := ExpandMentions(context.Background(), MentionSource{Root: root}, "see @notes.txt and @docs/ and @a.go")
	if strings.Contains(added, "my diary") || strings.Contains(added, "x.txt") {
		t.Errorf("a link out attached %q", added)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Text+" → "+e.Added)
	}
	want := []string{"@notes.txt → left out: notes.txt leads outside the workspace", "@docs/ → left out: docs/ leads outside the workspace", "@a.go → a.go (1 line)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}
