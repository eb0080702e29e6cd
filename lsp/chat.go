package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
)

// Chat documents: a Markdown file per conversation under .agentls/chat/.
// The user writes under the last "## You" heading and sends it ("Send to
// agent", agentls.chat.send); the agent's reply streams into the document
// under "## Agent" as edits, with each tool's result quoted under its
// call; a new "## You" heading ends it. The document is the conversation:
// sending again reads every exchange in it as the history, so a chat
// resumes from its file, in any editor, after any restart.

const (
	cmdChatOpen = "agentls.chat.open"
	cmdChatSend = "agentls.chat.send"
	chatFolder  = ".agentls/chat"
	youHeading  = agent.ChatYouHeading
	agentHead   = agent.ChatAgentHeading
)

type chatOpenArgs struct {
	Name string `json:"name"`
}

type chatSendArgs struct {
	URI protocol.DocumentURI `json:"uri"`
}

const chatTemplate = `# agentls chat

<!-- Write to the agent under the last "## You" heading, then run the code
action "Send to agent" (or the command agentls.chat.send). The agent's reply
appears below it; this file is the conversation. -->

` + youHeading + `

`

var chatNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// isChat reports whether a workspace path is a chat document.
func isChat(rel string) bool {
	return path.Dir(rel) == chatFolder && strings.HasSuffix(rel, ".md")
}

// chatOpenCommand creates the chat document (if new) and shows it.
func (s *Server) chatOpenCommand(_ context.Context, a chatOpenArgs) (any, error) {
	name := strings.TrimSuffix(a.Name, ".md")
	if name == "" {
		name = "chat"
	}
	if !chatNameRE.MatchString(name) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("chat name %q: use letters, digits, '.', '_' and '-'", a.Name))
	}
	root := s.session().root
	if root == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "no workspace folder: open a folder first")
	}
	rel := chatFolder + "/" + name + ".md"
	file, err := chatFile(root, rel)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		// Created as the edit engine creates files: every folder on the
		// way opened with no symlink allowed, the file exclusively.
		var cs edits.Changeset
		cs.Write(rel, "", false, edits.NotOpen, chatTemplate)
		if err := edits.ApplyToDisk(root, &cs); err != nil {
			return nil, fmt.Errorf("chat %s: %w", rel, err)
		}
	}
	u := s.session().fileURI(rel)
	s.goBackground("show chat", func(ctx context.Context) {
		if !s.client.showDocument(ctx, file) {
			s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: your chat is %s: open it, write under the last %q heading, and run the code action \"Send to agent\"", rel, youHeading)
		}
	})
	return map[string]any{"uri": u, "path": rel}, nil
}

// chatActions offer "Send to agent" anywhere in a chat document.
func (s *Server) chatActions(d documents.Document) []protocol.CodeAction {
	rel, err := s.relPath(d)
	if err != nil || !isChat(rel) {
		return nil
	}
	title := "Send to agent"
	return []protocol.CodeAction{{Title: title, Kind: protocol.Source,
		Command: &protocol.Command{Title: title, Command: cmdChatSend, Arguments: []any{chatSendArgs{URI: d.URI}}}}}
}

// chatSendCommand sends the last message of a chat document to the agent
// and streams the reply into the document.
func (s *Server) chatSendCommand(_ context.Context, a chatSendArgs) (any, error) {
	if a.URI == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agentls.chat.send takes {uri} of a chat document")
	}
	rel, err := s.session().relPathOfURI(a.URI)
	if err != nil || !isChat(rel) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s is not a chat document (%s/*.md): open one with %s", a.URI, chatFolder, cmdChatOpen))
	}
	text, err := chatText(s.docs, s.session().root, rel)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	history, prompt := agent.ParseChat(text)
	if prompt == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("nothing to send: write your message under the last %q heading of %s", youHeading, rel))
	}
	if !s.chats.begin(rel) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("the agent is already answering in %s: wait, or cancel it (agentls.cancel)", rel))
	}
	req, err := s.agentRequest(askArgs{Prompt: prompt})
	if err != nil {
		s.chats.end(rel)
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	req.History = history
	w := &chatWriter{s: s, rel: rel, turn: make(chan int, 1)}
	id, err := s.startTurn(turnPlan{req: req, home: rel, homeLine: strings.Count(text, "\n"),
		observe: w.observe,
		done: func(ctx context.Context, sum agent.Summary, err error) {
			defer s.chats.end(rel)
			w.finish(ctx, err)
		},
	})
	if err != nil {
		s.chats.end(rel)
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	w.turn <- id
	return map[string]int{"turn": id}, nil
}

// chatText is a chat document's text: the open buffer, else the file.
func chatText(docs *documents.Store, root, rel string) (string, error) {
	file, err := chatFile(root, rel)
	if err != nil {
		return "", err
	}
	if d, ok := docs.ByFile(file); ok {
		return d.Text(), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", rel, err)
	}
	return string(data), nil
}

// chatFile returns the file of a chat document, refusing any path that
// goes through a symlink: a chat is agentls's own file in the workspace,
// and a repository that ships .agentls/chat (or a chat in it) as a
// symlink must not make agentls read the user's files into a
// conversation, or write a reply into them.
func chatFile(root, rel string) (string, error) {
	if root == "" {
		return "", errors.New("no workspace folder: open a folder first")
	}
	want := filepath.Join(root, filepath.FromSlash(rel))
	got, err := edits.ResolveInRoot(root, rel)
	if err == nil && got != want {
		err = fmt.Errorf("it leads through a symlink to %s", got)
	}
	if err != nil {
		return "", fmt.Errorf("the chat %s is refused: %v (chats must lie in the workspace's own %s, outside the workspace nothing is read or written; remove the symlink)", rel, err, chatFolder)
	}
	return want, nil
}

// chatsRunning are the chat documents the agent is answering in: one
// turn per document at a time.
type chatsRunning struct {
	mu      sync.Mutex
	running map[string]bool
}

func (c *chatsRunning) begin(rel string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running[rel] {
		return false
	}
	if c.running == nil {
		c.running = map[string]bool{}
	}
	c.running[rel] = true
	return true
}

func (c *chatsRunning) end(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.running, rel)
}

// A chatWriter streams a turn into its chat document. Text is sent a line
// at a time; when a step's reply is settled (cut after its first tool
// call), what was shown beyond it is taken back.
type chatWriter struct {
	s       *Server
	rel     string
	turn    chan int // the turn's id, once startTurn has given it
	started bool
	pending strings.Builder // streamed, not yet written
	shown   strings.Builder // this step's text written so far
	// midLine: what the writer wrote last does not end its line. An
	// editor that keeps a final newline on every buffer (Neovim) then
	// shows the document with one more "\n" than was written: the next
	// text goes before it, not after.
	midLine bool
}

// resultLines is how much of a tool's result the document quotes.
const resultLines = 12

func (w *chatWriter) observe(ctx context.Context, e agent.Event) {
	if !w.started {
		w.started = true
		w.write(ctx, "\n"+agentHead+"\n\n")
	}
	switch e.Kind {
	case agent.EventText:
		w.pending.WriteString(e.Text)
		if strings.Contains(e.Text, "\n") {
			w.flush(ctx)
		}
	case agent.EventReply:
		w.flush(ctx)
		if shown := w.shown.String(); shown != e.Text {
			w.replaceTail(ctx, shown, e.Text)
		}
		w.shown.Reset()
	case agent.EventToolDone:
		out := e.Text
		if e.Err != nil {
			out = "Error: " + e.Err.Error()
		}
		w.write(ctx, "\n\n"+quote(fmt.Sprintf("**Result of %s:**\n%s", agent.DescribeUse(*e.Use), clipLines(strings.TrimSpace(out), resultLines)))+"\n\n")
	}
}

// finish ends the reply and opens the user's next turn.
func (w *chatWriter) finish(ctx context.Context, err error) {
	w.flush(ctx)
	if !w.started {
		w.write(ctx, "\n"+agentHead+"\n\n")
	}
	end := "\n" + agent.ChatTurnMarker(<-w.turn, false) + "\n\n" + youHeading + "\n\n"
	if err != nil {
		end = "\n\n" + quote("agentls: the turn stopped: "+err.Error()) + end
	} else {
		end = "\n" + end
	}
	w.write(ctx, end)
}

// rewindChat marks the exchange of turn in its chat document undone (or,
// redone, back in the conversation): its marker line is rewritten, so the
// next message sent from the document leaves it out (agent.ParseChat). A
// turn not started from a chat has no marker, and nothing is changed.
func (s *Server) rewindChat(ctx context.Context, turn int, undone bool) {
	root := s.session().root
	names, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(chatFolder), "*.md"))
	for _, name := range names {
		rel := chatFolder + "/" + filepath.Base(name)
		text, err := chatText(s.docs, s.session().root, rel)
		if err != nil || !strings.Contains(text, fmt.Sprintf("<!-- agent turn %d", turn)) {
			continue
		}
		w := &chatWriter{s: s, rel: rel}
		w.edit(ctx, func(cur string) string {
			lines := strings.SplitAfter(cur, "\n")
			for i, line := range lines {
				if t, _, ok := agent.ParseChatTurnMarker(line); ok && t == turn {
					ending := line[len(strings.TrimRight(line, "\r\n")):]
					lines[i] = agent.ChatTurnMarker(turn, undone) + ending
				}
			}
			return strings.Join(lines, "")
		})
		return
	}
}

func (w *chatWriter) flush(ctx context.Context) {
	if w.pending.Len() == 0 {
		return
	}
	text := w.pending.String()
	w.pending.Reset()
	w.shown.WriteString(text)
	w.write(ctx, text)
}

func (w *chatWriter) write(ctx context.Context, text string) {
	w.edit(ctx, func(cur string) string {
		body, end := w.split(cur, text)
		return body + text + end
	})
	w.wrote(text)
}

// replaceTail puts want where the document ends with shown; if the user
// changed the end meanwhile, the settled reply is appended instead.
func (w *chatWriter) replaceTail(ctx context.Context, shown, want string) {
	w.edit(ctx, func(cur string) string {
		body, end := w.split(cur, want)
		if strings.HasSuffix(body, shown) {
			return body[:len(body)-len(shown)] + want + end
		}
		return body + "\n\n" + want + end
	})
	w.wrote(want)
}

// split separates the document into what the writer's text continues and
// the final newline the editor added after a line the writer left open;
// that newline stays last while next leaves the line open still.
func (w *chatWriter) split(cur, next string) (body, end string) {
	if w.midLine && strings.HasSuffix(cur, "\n") {
		if strings.HasSuffix(next, "\n") {
			return cur[:len(cur)-1], ""
		}
		return cur[:len(cur)-1], "\n"
	}
	return cur, ""
}

func (w *chatWriter) wrote(text string) {
	if text != "" {
		w.midLine = !strings.HasSuffix(text, "\n")
	}
}

// edit changes the chat document: through the editor when it is open (a
// versioned edit, computed again if the user typed meanwhile), else on
// disk — the file is agentls's own.
func (w *chatWriter) edit(ctx context.Context, change func(cur string) string) {
	ctx = context.WithoutCancel(ctx) // a cancelled turn still ends its reply
	s := w.s
	root := s.session().root
	file, err := chatFile(root, w.rel)
	if err != nil {
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: %v", err)
		return
	}
	if _, open := s.docs.ByFile(file); !open {
		// Not open: written as the edit engine writes a file, checked
		// against what was read and with no symlink on the way.
		data, err := os.ReadFile(file)
		if err != nil {
			s.log.Warn("chat: read", "file", file, "err", err)
			return
		}
		var cs edits.Changeset
		cs.Write(w.rel, string(data), true, edits.NotOpen, change(string(data)))
		if err := edits.ApplyToDisk(root, &cs); err != nil {
			s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot write the chat %s: %v", w.rel, err)
		}
		return
	}
	compute := func(context.Context) (edits.Changeset, error) {
		var cs edits.Changeset
		d, open := s.docs.ByFile(file)
		if !open {
			return cs, fmt.Errorf("the chat %s was closed", w.rel)
		}
		cs.Write(w.rel, d.Text(), true, d.Version, change(d.Text()))
		return cs, nil
	}
	cs, _ := compute(ctx)
	_, err = s.delivery.send(ctx, sendRequest{label: "agentls: chat", changes: cs, recompute: compute})
	if err != nil && !errors.Is(err, errNoChanges) {
		s.log.Warn("chat: the editor did not take the reply's text", "file", w.rel, "err", err)
	}
}

// quote makes text a Markdown block quote.
func quote(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

// clipLines keeps the first n lines of text, saying how many were cut.
func clipLines(text string, n int) string {
	lines := strings.Split(text, "\n")
	if len(lines) <= n {
		return text
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-n)
}
