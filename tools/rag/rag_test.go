package rag

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/toolstest"
)

// testWait is how long a test's call waits for its index: as long as it
// takes (the wait ends when the build does), bounded only so that a hung
// build fails the test instead of hanging it.
const testWait = 2 * time.Minute

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gitInit(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the .gitignore cases need it")
	}
	cmd := exec.Command("git", "init", "-q", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
}

func TestSearch(t *testing.T) {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "the launch code is zebra quartz"})
	tests := []struct {
		name    string
		git     bool
		files   map[string]string
		setup   func(t *testing.T, root string)
		query   string
		want    []string // paths the result lists, in this order
		notWant []string // paths it must not list
		text    []string // strings the result holds
		err     string   // the error's words, when it fails
	}{
		{name: "empty workspace", query: "anything",
			err: "nothing indexed"},
		{name: "only binary and empty files", files: map[string]string{"a.bin": "ab\x00cd parse", "empty.txt": ""},
			query: "parse", err: "nothing indexed"},
		{name: "matches nothing", files: map[string]string{"main.go": "package main\nfunc main() {}\n"},
			query: "kubernetes ingress", text: []string{`nothing matches "kubernetes ingress" in the 1 files indexed`}},
		{name: "best file first with its passage",
			files: map[string]string{
				"settings/validate.go": "package settings\n\n" + strings.Repeat("// filler\n", 40) + "// validateKeys checks every key of the settings file.\nfunc validateKeys() {}\n" + strings.Repeat("// more\n", 40),
				"main.go":              "package main\n// settings are read here\nfunc main() {}\n",
				"README.md":            "# Project\nNothing relevant.\n",
			},
			query: "where are the settings keys validated",
			want:  []string{"settings/validate.go", "main.go"}, notWant: []string{"README.md"},
			text: []string{"settings/validate.go lines 42-53", "   43  // validateKeys checks every key", "func validateKeys"}},
		{name: "identifier parts", files: map[string]string{"a.go": "func parseConfigFile() {}\n", "b.go": "nothing here\n"},
			query: "parse config", want: []string{"a.go"}, notWant: []string{"b.go"}},
		{name: "gitignored files are not returned", git: true,
			files: map[string]string{".gitignore": "secret/\n*.log\n", "secret/keys.txt": "zebra quartz", "run.log": "zebra quartz", "notes.txt": "zebra"},
			query: "zebra quartz", want: []string{"notes.txt"}, notWant: []string{"secret/keys.txt", "run.log"}},
		{name: "a walk skips vendor folders", files: map[string]string{"node_modules/x/index.js": "zebra", ".git/config": "zebra", "src/z.js": "zebra"},
			query: "zebra", want: []string{"src/z.js"}, notWant: []string{"node_modules/x/index.js", ".git/config"}},
		{
			// The attack: a repository ships a symlink to a file outside
			// it, and the model asks rag what it says.
			name: "a symlink to a file outside the workspace is not indexed", files: map[string]string{"real.txt": "zebra notes"},
			setup: func(t *testing.T, root string) {
				if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
					t.Fatal(err)
				}
			},
			query: "launch code zebra quartz", want: []string{"real.txt"}, notWant: []string{"link.txt"}},
		{name: "a symlink in a git repository is not indexed", git: true, files: map[string]string{"real.txt": "zebra notes"},
			setup: func(t *testing.T, root string) {
				if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
					t.Fatal(err)
				}
			},
			query: "launch code zebra quartz", want: []string{"real.txt"}, notWant: []string{"link.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.git {
				gitInit(t, root)
			}
			writeTree(t, root, tt.files)
			if tt.setup != nil {
				tt.setup(t, root)
			}
			s := New(root, Options{Dir: t.TempDir(), Wait: testWait})
			got, err := s.Search(context.Background(), tt.query)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Search = %q, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			paths := listedPaths(got)
			last := -1
			for _, w := range tt.want {
				i := slices.Index(paths, w)
				if i < 0 || i < last {
					t.Errorf("result lists %v; want %v in this order:\n%s", paths, tt.want, got)
				}
				last = i
			}
			for _, nw := range tt.notWant {
				if slices.Contains(paths, nw) {
					t.Errorf("result lists %s, which it must not:\n%s", nw, got)
				}
			}
			for _, s := range tt.text {
				if !strings.Contains(got, s) {
					t.Errorf("result lacks %q:\n%s", s, got)
				}
			}
		})
	}
}

// listedPaths are the files a result lists, in order.
func listedPaths(result string) []string {
	var paths []string
	for _, l := range strings.Split(result, "\n") {
		if i := strings.Index(l, " lines "); i > 0 && !strings.HasPrefix(l, " ") {
			paths = append(paths, l[:i])
		}
	}
	return paths
}

// TestChangedFileFoundByNewContent: a file changed since it was indexed
// is found by what it says now, and no longer by what it said.
func TestChangedFileFoundByNewContent(t *testing.T) {
	root := t.TempDir()
	dir := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha bravo", "b.txt": "charlie"})
	s := New(root, Options{Dir: dir, Wait: testWait})
	ctx := context.Background()
	if got, err := s.Search(ctx, "alpha"); err != nil || !slices.Contains(listedPaths(got), "a.txt") {
		t.Fatalf("before the change: %q, %v", got, err)
	}
	writeTree(t, root, map[string]string{"a.txt": "delta echo foxtrot"})
	later := time.Now().Add(time.Hour) // a new mtime even on a coarse clock
	if err := os.Chtimes(filepath.Join(root, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "b.txt")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Searcher{s, New(root, Options{Dir: dir, Wait: testWait})} { // this one, and one loading the saved index
		if got, err := s.Search(ctx, "foxtrot"); err != nil || !slices.Contains(listedPaths(got), "a.txt") {
			t.Errorf("the new content is not found: %q, %v", got, err)
		}
		if got, err := s.Search(ctx, "alpha charlie"); err != nil || !strings.Contains(got, "nothing matches") {
			t.Errorf("the old content, or the removed file, is still found: %q, %v", got, err)
		}
	}
}

// TestSavedIndexIsReused: a second Searcher (the next turn) loads the
// index the first saved and re-indexes nothing that did not change.
func TestSavedIndexIsReused(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha", "b.txt": "bravo"})
	ctx := context.Background()
	if _, err := New(root, Options{Dir: dir, Wait: testWait}).Search(ctx, "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(indexFile(dir)); err != nil {
		t.Fatalf("no index saved: %v", err)
	}
	s := New(root, Options{Dir: dir, Wait: testWait})
	j, err := s.refresh(ctx)
	if err != nil || j != nil {
		t.Fatalf("refresh over the saved index started a job (%v, %v): it should have had nothing to index", j, err)
	}
	if s.ix.Len() != 2 {
		t.Errorf("the loaded index holds %d files, want 2", s.ix.Len())
	}
}

// TestBuildingProgress: a call that comes before the first index is built
// says how far it is, and a call after it ends is answered.
func TestBuildingProgress(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join("d", strings.Repeat("x", i%7+1), "f"+string(rune('a'+i%26))+strings.Repeat("y", i/26)+".txt")] = "zebra number " + strings.Repeat("z ", i)
	}
	writeTree(t, root, files)
	s := New(root, Options{Wait: time.Nanosecond})
	ctx := context.Background()
	got, err := s.Search(ctx, "zebra")
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	j := s.job
	s.mu.Unlock()
	if j == nil {
		t.Skipf("the build ended within a nanosecond's wait (%q): nothing to observe", got)
	}
	if !strings.HasPrefix(got, "index building: ") || !strings.Contains(got, " of 300 files") {
		t.Errorf("while building: %q, want the progress", got)
	}
	<-j.done
	got, err = s.Search(ctx, "zebra")
	if err != nil || !strings.Contains(got, "BM25 over 300 files indexed") {
		t.Errorf("after the build: %q, %v", got, err)
	}
}

// TestHostileGitConfigRunsNothing is the attack: a repository whose
// .git/config names a program as core.fsmonitor (which git status and
// ls-files run by themselves). Listing its files for the index runs
// nothing.
func TestHostileGitConfigRunsNothing(t *testing.T) {
	root := t.TempDir()
	gitInit(t, root)
	pwned := filepath.Join(t.TempDir(), "pwned")
	writeTree(t, root, map[string]string{"a.txt": "alpha"})
	for _, args := range [][]string{{"add", "a.txt"}, {"config", "core.fsmonitor", "touch " + pwned + "; false"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	got, err := New(root, Options{Wait: testWait}).Search(context.Background(), "alpha")
	if err != nil || !slices.Contains(listedPaths(got), "a.txt") {
		t.Fatalf("Search = %q, %v", got, err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("listing the repository's files ran its core.fsmonitor program")
	}
}

func TestRunsQueryArgument(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha"})
	run := Tool(Options{Wait: testWait}).Bind(toolstest.Env(root, nil))
	for _, use := range []tools.ToolUse{
		{Tool: "rag", Content: "alpha\n"},
		{Tool: "rag", Args: []string{"alpha"}},
		{Tool: "rag", Kwargs: map[string]any{"query": "alpha"}},
	} {
		got, err := run(context.Background(), use)
		if err != nil || !slices.Contains(listedPaths(got), "a.txt") {
			t.Errorf("%+v: %q, %v", use, got, err)
		}
	}
	if _, err := run(context.Background(), tools.ToolUse{Tool: "rag"}); err == nil || !strings.Contains(err.Error(), "no question given") {
		t.Errorf("an empty call: %v, want an error asking for the question", err)
	}
}

// TestToolSearchesEnvBuffers: bound in a turn, rag searches the Env's
// Buffers (an editor's) in place of the files — the Env says so, where a
// type assertion on the workspace once did, which a renamed method
// silently defeated — and the disk without them.
func TestToolSearchesEnvBuffers(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha bravo"})
	opts := Options{Dir: t.TempDir(), Wait: testWait}
	ctx := context.Background()
	use := tools.ToolUse{Tool: tools.NameRag, Content: "juliett"}
	env := toolstest.Env(root, nil)
	env.Buffers = func() map[string]string { return map[string]string{"a.txt": "india juliett"} }
	if got, err := Tool(opts).Bind(env)(ctx, use); err != nil || !strings.Contains(got, "india juliett") {
		t.Errorf("with the Env's buffers: %q, %v", got, err)
	}
	if got, err := Tool(opts).Bind(toolstest.Env(root, nil))(ctx, use); err != nil || !strings.Contains(got, "nothing matches") {
		t.Errorf("without buffers, the disk: %q, %v", got, err)
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"parseConfig", []string{"parseconfig", "parse", "config"}},
		{"HTTPServer x", []string{"httpserver", "http", "server"}},
		{"snake_case_name", []string{"snake_case_name", "snake", "case", "name"}},
		{"utf8 décodé", []string{"utf8", "utf", "décodé"}},
		{"a b c", nil},
	}
	for _, tt := range tests {
		var got []string
		tokenize([]byte(tt.in), func(s []byte) { got = append(got, string(s)) })
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRefreshBehind: where listing the files costs more than the budget
// (a large workspace), a call answers from the index at once and brings
// it up to date behind the answer: a file changed is found by the call
// after.
func TestRefreshBehind(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha", "b.txt": "bravo"})
	s := New(root, Options{Wait: testWait, RefreshBudget: -1}) // every listing is over it
	// The refresh behind the second call waits until that call has
	// answered from the index as it was (else it may finish first).
	s.behindGate = make(chan struct{})
	ctx := context.Background()
	if got, err := s.Search(ctx, "alpha"); err != nil || !slices.Contains(listedPaths(got), "a.txt") {
		t.Fatalf("first call: %q, %v", got, err)
	}
	writeTree(t, root, map[string]string{"a.txt": "foxtrot"})
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	got, err := s.Search(ctx, "foxtrot")
	if err != nil || !strings.Contains(got, "nothing matches") || !strings.Contains(got, "brought up to date behind each answer") {
		t.Errorf("the call that starts the refresh: %q, %v; want the index as it was, saying why", got, err)
	}
	close(s.behindGate)
	s.mu.Lock()
	j := s.job
	s.mu.Unlock()
	if j != nil {
		<-j.done
	}
	if got, err := s.Search(ctx, "foxtrot"); err != nil || !slices.Contains(listedPaths(got), "a.txt") {
		t.Errorf("the call after: %q, %v; want a.txt by its new content", got, err)
	}
}

// TestBuffersSearchedInPlaceOfFiles: what the editor holds is searched,
// and quoted, before it is saved: an unsaved word is found in its buffer,
// the saved text it replaces is not, and once the buffer is gone the disk
// is searched again.
func TestBuffersSearchedInPlaceOfFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha bravo", "b.txt": "charlie"})
	s := New(root, Options{Dir: t.TempDir(), Wait: testWait})
	ctx := context.Background()
	buffers := map[string]string{"a.txt": "golf hotel\nindia juliett", "unknown.txt": "golf"}
	got, err := s.SearchBuffers(ctx, "juliett", buffers)
	if err != nil || !slices.Contains(listedPaths(got), "a.txt") || !strings.Contains(got, "india juliett") {
		t.Fatalf("the unsaved word: %q, %v", got, err)
	}
	if slices.Contains(listedPaths(got), "unknown.txt") {
		t.Errorf("a buffer of no indexed file was searched: %q", got)
	}
	if got, err := s.SearchBuffers(ctx, "alpha", buffers); err != nil || !strings.Contains(got, "nothing matches") {
		t.Errorf("the saved text the buffer replaces is found: %q, %v", got, err)
	}
	if got, err := s.Search(ctx, "alpha"); err != nil || !slices.Contains(listedPaths(got), "a.txt") {
		t.Errorf("with the buffer closed, the disk's text: %q, %v", got, err)
	}
}

// TestFileChangedOftenStillFound: each re-index of a changed file leaves
// a dead posting behind; counted as files, they pushed a word's idf below
// zero in a small workspace, and a file changed three times was found
// for nothing in it.
func TestFileChangedOftenStillFound(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "alpha bravo", "b.txt": "charlie"})
	s := New(root, Options{Dir: t.TempDir(), Wait: testWait})
	ctx := context.Background()
	for i := 1; i <= 4; i++ {
		writeTree(t, root, map[string]string{"a.txt": fmt.Sprintf("alpha bravo %d", i)})
		later := time.Now().Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(root, "a.txt"), later, later); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Search(ctx, "alpha"); err != nil || !slices.Contains(listedPaths(got), "a.txt") {
			t.Fatalf("after change %d: %q, %v", i, got, err)
		}
	}
}
