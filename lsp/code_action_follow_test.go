package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
)

// TestReplyCountFollowsKeystrokes: a count carried over a keystroke
// (replyCounts.follow) is always the count of the new text. Random
// keystrokes — prose, newlines, fences, tags, deletions across blocks —
// are typed into a reply; after each, the count the cache gives equals a
// fresh parse, and keystrokes in prose keep the cache (no parse).
func TestReplyCountFollowsKeystrokes(t *testing.T) {
	reply := strings.Join([]string{
		"Renaming Config.",
		"",
		"```patch a.go",
		"<<<<<<< ORIGINAL",
		"type Config struct{}",
		"=======",
		"type Settings struct{}",
		">>>>>>> UPDATED",
		"```",
		"",
		"Some prose between the blocks, with words to type into.",
		"",
		"```save b.go",
		"package p",
		"```",
		"",
		"```shell",
		"go test ./...",
		"```",
		"",
		"```patch_many",
		"=== PATH: c.go ===",
		"<<<<<<< ORIGINAL",
		"x",
		"=======",
		"y",
		">>>>>>> UPDATED",
		"```",
		"",
		"The end.",
		"",
	}, "\n")
	for seed := uint64(1); seed <= 8; seed++ {
		followKeystrokes(t, reply, seed)
	}
}

func followKeystrokes(t *testing.T, reply string, seed uint64) {
	pieces := []string{"a", "word ", "\n", "\n\n", "`", "```", "```save d.go\nz\n```\n", "<think>", "</think>", "@", "~~~", "=== PATH: e.go ===\n", " "}
	rng := rand.New(rand.NewPCG(seed, 2))
	u := protocol.DocumentURI("file:///w/reply.md")
	var c replyCounts
	text := reply
	version := int32(1)
	c.count(documents.Document{URI: u, Version: version, Buf: edits.NewBuffer(text)})
	kept := 0
	for step := 0; step < 2000; step++ {
		start := rng.IntN(len(text) + 1)
		end := start
		if rng.IntN(3) == 0 {
			end = min(len(text), start+rng.IntN(8))
		}
		ins := ""
		if rng.IntN(4) != 0 {
			ins = pieces[rng.IntN(len(pieces))]
		}
		if rng.IntN(2) == 0 && len(text) > 0 { // mostly prose: where users type
			ins = "word "
		}
		ch := documents.Change{First: strings.Count(text[:start], "\n"), Last: strings.Count(text[:end], "\n"), Text: ins, Before: edits.NewBuffer(text)}
		text = text[:start] + ins + text[end:]
		version++
		c.follow(u, version-1, version, []documents.Change{ch})
		if _, ok := c.byURI[u]; ok {
			kept++
		}
		gotCalls, gotFiles := c.count(documents.Document{URI: u, Version: version, Buf: edits.NewBuffer(text)})
		wantCalls, wantFiles := countEdits(text)
		if gotCalls != wantCalls || gotFiles != wantFiles {
			t.Fatalf("seed %d step %d (%q at %d-%d): count %d calls in %d files, a fresh parse %d in %d; text:\n%s", seed, step, ins, start, end, gotCalls, gotFiles, wantCalls, wantFiles, text)
		}
	}
	if kept == 0 {
		t.Error("no keystroke kept the count: follow never carried it")
	}
	t.Logf("seed %d: %d of 2000 keystrokes kept the count", seed, kept)
}
