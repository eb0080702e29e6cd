package lsp

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/lsp/internal/position"
)

// maxCompletions bounds the items one completion offers.
const maxCompletions = 100

// completion offers the mentions in a chat document (textDocument/
// completion): after "@", the workspace's files and folders under the
// path typed so far, and @buffers; after "#", the keyword mentions. Other
// documents get none: agentls is not a language's completion provider.
func (s *Server) completion(_ context.Context, p *protocol.CompletionParams) (any, error) {
	empty := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	d, ok := s.docs.Get(p.TextDocument.URI)
	if !ok {
		return empty, nil
	}
	rel, err := s.relPath(d)
	if err != nil || !isChat(rel) {
		return empty, nil
	}
	enc := s.session().encoding
	m := position.New(d.Buf, enc)
	lineStart, err := m.Offset(protocol.Position{Line: p.Position.Line})
	if err != nil {
		return empty, nil
	}
	at, err := m.Offset(p.Position)
	if err != nil {
		return empty, nil
	}
	before, err := d.Buf.Slice(lineStart, at)
	if err != nil {
		return empty, nil
	}
	word := before[strings.LastIndexAny(before, " \t([{\"'`")+1:]
	if word == "" || word[0] != '@' && word[0] != '#' {
		return empty, nil
	}
	// The typed word is replaced: its start, on the same line, in the
	// client's units (the word's own, counted by a mapper of it).
	wordEnd, err := position.ForText(word, enc).Position(len(word))
	if err != nil || wordEnd.Character > p.Position.Character {
		return empty, nil
	}
	replace := protocol.Range{Start: protocol.Position{Line: p.Position.Line, Character: p.Position.Character - wordEnd.Character}, End: p.Position}
	var labels []string
	if word[0] == '#' {
		for _, k := range agent.KeywordMentions() {
			if k[0] == '#' && strings.HasPrefix(k, word) {
				labels = append(labels, k)
			}
		}
	} else {
		if strings.HasPrefix("@buffers", word) {
			labels = append(labels, "@buffers")
		}
		labels = append(labels, pathCompletions(s.session().root, word[1:])...)
	}
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}, IsIncomplete: len(labels) >= maxCompletions}
	for _, l := range labels {
		kind := protocol.CompletionItemKindFile
		switch {
		case strings.HasSuffix(l, "/"):
			kind = protocol.CompletionItemKindFolder
		case l[0] == '#' || l == "@buffers":
			kind = protocol.CompletionItemKindKeyword
		}
		list.Items = append(list.Items, protocol.CompletionItem{Label: l, Kind: kind, FilterText: l, TextEdit: &protocol.TextEdit{Range: replace, NewText: l}})
	}
	return list, nil
}

// pathCompletions lists "@"-mentions of the entries of the folder typed
// so far whose names start with the rest: typed "src/ma" lists src/'s
// entries starting with "ma". Hidden entries show only once a "." is
// typed; .git never.
func pathCompletions(root, typed string) []string {
	if root == "" || filepath.IsAbs(typed) || strings.Contains(typed, "..") {
		return nil
	}
	dir, prefix := path.Split(typed)
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || name == ".git" || strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".") {
			continue
		}
		label := "@" + dir + name
		if e.IsDir() {
			label += "/"
		}
		out = append(out, label)
		if len(out) >= maxCompletions {
			break
		}
	}
	slices.Sort(out)
	return out
}
