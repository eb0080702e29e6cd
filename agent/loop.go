package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/parse"
)

// A ToolRunner runs one tool use for a turn and returns what the model is
// told: the tool's output, or an error, which the model reads too.
type ToolRunner interface {
	RunTool(ctx context.Context, use tools.ToolUse) (string, error)
}

// Limits bound a turn. Zero values take the defaults.
type Limits struct {
	MaxSteps      int           // model calls (default 20)
	MaxWall       time.Duration // the whole turn (default 10 min)
	MaxReplyBytes int           // one model reply (default 256 KiB)
	// Images tools send the model (view_image, MCP image content): each
	// is in every later request of the turn, so the turn bounds them
	// (default 10 images and 20 MiB of encoded image data).
	MaxImages     int
	MaxImageBytes int
}

// An Event is something a turn did, for progress and the output channel.
type Event struct {
	Step int
	Kind EventKind
	Text string         // Text: the streamed text; Reasoning: the streamed reasoning; Reply: the reply as kept; ToolDone: the output
	Use  *tools.ToolUse // ToolStart, ToolDone
	Err  error          // ToolDone: the tool's error
	// Call is the call as it ended, with its duration and outcome
	// (ToolDone).
	Call *ToolCall
	// Images are the images the call sent the model (ToolDone), for a
	// front-end that shows them.
	Images []tools.Image
}

// EventKind says what an Event is.
type EventKind int

const (
	EventText EventKind = iota
	// EventReply: the step's reply as the conversation keeps it, after
	// the stream ended or was cut after its first tool call (the Text
	// events may have shown a little more).
	EventReply
	EventToolStart
	EventToolDone
	// EventReasoning: reasoning the server sent apart from the text
	// (reasoning_content), shown for progress; it is not part of the
	// reply and nothing in it is run.
	EventReasoning
	// EventNotice: something the user should know about the turn that is
	// neither the model's text nor a call (Text): its reply showed code
	// but applied nothing, and it is being told how.
	EventNotice
)

// A Turn is one request to the agent: the model is called, its tool calls
// run and their results sent back, until it answers without calling a
// tool or a limit is hit.
type Turn struct {
	Model    *Model
	Registry *tools.Registry
	Format   tools.Format
	Runner   ToolRunner
	Limits   Limits
	// Observe, if set, is told of each event as it happens.
	Observe func(Event)
	// Hooks run around every tool call (hooks.go): Before may refuse it,
	// After sees how it went (the output channel's timing lines).
	Hooks []Hook
	// Log, if set, gets the conversation as it grows, one JSON message
	// per line, so a turn can be inspected (or resumed) even if it dies.
	Log io.Writer
	// Compact sends the short system prompt (CompactSystemPrompt), for
	// models with small context windows and little patience for long
	// instructions: local models.
	Compact bool

	spent Usage // the tokens of the turn's model calls so far (Usage)
}

// A Summary is how a turn ended.
type Summary struct {
	Steps    int
	ToolUses int
	// Final is the model's last reply (its closing words).
	Final string
	// Messages is the whole conversation, for the log.
	Messages []openai.ChatCompletionMessage
}

// ErrLimit marks a turn stopped by one of its limits.
var ErrLimit = errors.New("limit reached")

// Run runs the turn for req. An error ends it (a model failure, a limit,
// ctx cancelled); tool failures do not: the model reads them and goes on.
// The Summary is valid with an error too: what happened until then.
func (t *Turn) Run(ctx context.Context, req Request) (Summary, error) {
	lim := t.Limits
	if lim.MaxSteps == 0 {
		lim.MaxSteps = 20
	}
	if lim.MaxWall == 0 {
		lim.MaxWall = 10 * time.Minute
	}
	if lim.MaxReplyBytes == 0 {
		lim.MaxReplyBytes = 256 << 10
	}
	if lim.MaxImages == 0 {
		lim.MaxImages = 10
	}
	if lim.MaxImageBytes == 0 {
		lim.MaxImageBytes = 20 << 20
	}
	images := &turnImages{maxCount: lim.MaxImages, maxBytes: lim.MaxImageBytes}
	ctx, cancel := context.WithTimeoutCause(ctx, lim.MaxWall, fmt.Errorf("%w: the turn ran for %s", ErrLimit, lim.MaxWall))
	defer cancel()
	if req.Files == nil {
		req.Files = t.contextFiles(ctx, req)
	}
	if t.Compact && req.Listing == "" {
		req.Listing = t.topListing(ctx)
		if len(req.Files) == 0 && req.Likely == nil && len(namedFiles(req)) == 0 {
			req.Likely = t.likelyFiles(ctx, req, req.Listing)
		}
	}
	sum := Summary{Messages: t.messages(req)}
	withPromptImages(sum.Messages, req.Images)
	t.log(sum.Messages...)
	native := NativeTools(t.Registry, t.Format)
	if t.Compact {
		native = compactNativeTools(t.Registry, t.Format)
	}
	state := &turnState{failures: newFailures(), succeeded: repeats{}, saved: map[string]bool{}, prompt: req.Prompt, files: req.Files, shown: map[string]bool{}, renameOffered: map[string]bool{},
		toCreate: createsAsked(req)}
	for _, f := range req.shownFiles() {
		state.show(f.Path)
	}
	for step := 1; ; step++ {
		if step > lim.MaxSteps {
			return sum, fmt.Errorf("%w: %d model calls; ask again to continue", ErrLimit, lim.MaxSteps)
		}
		sum.Steps = step
		reply, uses, problems, err := t.streamStep(ctx, step, sum.Messages, native, lim.MaxReplyBytes)
		if err != nil && images.refusedBy(err) {
			if images.strict() {
				err = fmt.Errorf("%w (an image was in the request and the vision setting is on: if this model takes no images, set agentls.vision to auto or off)", err)
			} else {
				// The server takes no images: the conversation goes on
				// without them, and the calls that sent them say so.
				for _, sent := range images.withdraw(sum.Messages, err) {
					t.observe(Event{Step: step, Kind: EventToolDone, Use: &sent.use, Err: sent.err})
				}
				continue
			}
		}
		if err != nil {
			if cause := context.Cause(ctx); errors.Is(cause, ErrLimit) {
				err = cause
			}
			return sum, err
		}
		sum.Messages = append(sum.Messages, reply)
		t.log(reply)
		t.observe(Event{Step: step, Kind: EventReply, Text: reply.Content})
		sum.Final = reply.Content
		var note string
		if len(uses) == 0 && len(problems) == 0 && !state.edited {
			// A unified diff, or a whole file under its path, as a chat
			// answer pastes them (aider applies both): run as the calls
			// that make them, as agentls apply runs them; the model reads
			// what came of it. Not after the turn edited: a reply that
			// shows the diff of what it did would be applied twice.
			if pasted := pastedUses(reply.Content, t.Registry, t.Format); len(pasted) > 0 {
				uses, note = pasted, "Your reply holds edits but no tool call; they were applied as these calls.\n"
			}
		}
		if len(uses) == 0 && len(problems) == 0 && t.Format == tools.FormatTool {
			if calls, n := textCalls(reply.Content, t.Registry); len(calls) > 0 {
				uses, note = calls, n
			}
		}
		if len(uses) == 0 && len(problems) == 0 && t.Compact {
			if bare, n := bareCalls(reply.Content, t.Registry, req); len(bare) > 0 {
				uses, note = bare, n
			}
		}
		if len(uses) == 0 && len(problems) == 0 && t.Compact && state.filesNudged {
			if left := state.untouched(); len(left) > 0 {
				// Asked, the model may claim a change it did not make:
				// the user hears what stayed as it was.
				t.observe(Event{Step: step, Kind: EventNotice, Text: fmt.Sprintf("the request named %s, which this turn did not change", strings.Join(left, " and "))})
			}
		}
		if len(uses) == 0 && len(problems) == 0 && t.Compact && !state.filesNudged {
			if left := state.untouched(); len(left) > 0 && asksForChange(req.Prompt) {
				// A small model changes the first of the files a
				// request names and stops (issue 30's constant renamed
				// in config.go, not in client.go): it is asked once.
				state.filesNudged = true
				ask := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: t.untouchedAsk(left, state)}
				t.log(ask)
				sum.Messages = append(sum.Messages, ask)
				continue
			}
		}
		if len(uses) == 0 && len(problems) == 0 {
			lang, shown := shownCode(reply.Content, t.Registry)
			// A compact turn is a small model's, which also claims a
			// change it never made ("I replaced the line ..."): on a
			// request for a change, any reply without a call is told.
			// Only a turn that tried no call, or whose edits all failed:
			// a reply after a refused command is the model saying so.
			claimed := t.Compact && (sum.ToolUses == 0 || state.editFailed)
			// After an edit, code shown in the language of a file the
			// request named and the turn has not changed is that file's
			// change, not yet applied (the real model saved types.ts,
			// then showed app.ts's rename in a ```ts block and stopped).
			pending := fitting(lang, state.untouched())
			if !shown && !claimed || state.edited && (!shown || len(pending) == 0) || !asksForChange(req.Prompt) {
				return sum, nil
			}
			// Code shown, no call, on a request for a change: nothing
			// was applied, which the model is told once, concretely.
			file := nudgeTarget(lang, namedFiles(req))
			if state.edited {
				file = pending[0]
			}
			if state.nudged {
				return sum, nothingApplied(lang, file)
			}
			state.nudged = true
			notice := "the reply calls no tool: nothing was applied; the model is told how to apply a change"
			if shown {
				notice = fmt.Sprintf("the reply shows code in a ```%s block but calls no tool: nothing was applied; the model is told how to apply it", lang)
			}
			t.observe(Event{Step: step, Kind: EventNotice, Text: notice})
			nudge := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: t.nudge(req, lang, file)}
			t.log(nudge)
			sum.Messages = append(sum.Messages, nudge)
			continue
		}
		results, stop := t.runTools(ctx, step, uses, problems, reply, images, len(sum.Messages), state)
		if note != "" && len(results) > 0 {
			results[0].Content = note + results[0].Content
		}
		t.log(results...)
		sum.Messages = append(sum.Messages, results...)
		sum.ToolUses += len(uses)
		if errors.Is(stop, errGoingRound) {
			return sum, nil
		}
		if stop != nil {
			return sum, stop
		}
	}
}

// streamStep calls the model once. Following gptme, a text reply is cut
// right after its first complete tool call, and the generation stopped
// there: the model must see that call's result before it goes on — except
// in a compact turn, whose edits run together (callsToRun). Native tool
// calls arrive whole when the stream finishes.
//
// A call is run only if the finished reply would still hold it: the
// parser reports none while a headless </think> may still turn what came
// before it into thinking (parse.Options.TaggedThinking), so for a
// model that may begin its reply inside thinking the first call runs when
// the reply ends — unless the server sends the reasoning apart
// (reasoning_content), which shows the text holds none, or the model is
// configured as TaggedThinking.
func (t *Turn) streamStep(ctx context.Context, step int, msgs []openai.ChatCompletionMessage, native []openai.Tool, maxBytes int) (openai.ChatCompletionMessage, []tools.ToolUse, []parse.Problem, error) {
	reply := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	st, err := t.Model.Stream(ctx, msgs, native)
	if err != nil {
		return reply, nil, nil, err
	}
	defer st.Close()
	defer func() { t.spent = t.spent.Add(st.Usage()) }()
	var (
		text         strings.Builder
		reasoning    int // bytes of reasoning received
		sawReasoning bool
		p            *parse.Parser
		runaway      string // what the reply kept repeating, when it was stopped for it
		argsSeen     int    // the length of the last native call's arguments, when last checked
	)
	// The parser is made at the first text, after the reasoning servers
	// send first: whether any came decides how the text is read.
	parser := func() *parse.Parser {
		if p == nil {
			p = parse.NewParser(parse.Options{
				Format:         t.Format,
				Lookup:         t.Registry.Lookup,
				TaggedThinking: t.Model.TaggedThinking() || sawReasoning,
			})
		}
		return p
	}
	for {
		d, err := st.Recv()
		if d.Reasoning != "" {
			sawReasoning = true
			reasoning += len(d.Reasoning)
			t.observe(Event{Step: step, Kind: EventReasoning, Text: d.Reasoning})
		}
		if d.Text != "" {
			text.WriteString(d.Text)
			parser().WriteString(d.Text)
			t.observe(Event{Step: step, Kind: EventText, Text: d.Text})
		}
		if p != nil && t.Format != tools.FormatTool {
			if uses := p.ToolUses(); len(uses) > 0 {
				if n, done := t.callsToRun(uses); done {
					// The calls are complete and certain: stop here.
					reply.Content = text.String()[:uses[n-1].End]
					return reply, uses[:n:n], nil, nil
				}
			}
		}
		if keep, what := runawayIn(d.Text, text.String()); keep > 0 {
			// Stopped: the rest would be the same again.
			cut := text.String()[:keep]
			text.Reset()
			text.WriteString(cut)
			p = nil
			parser().WriteString(cut)
			runaway = what
			t.observe(Event{Step: step, Kind: EventNotice, Text: "the model's reply repeated " + what + ": it was stopped there"})
			break
		}
		if calls := st.ToolCalls(); len(calls) > 0 && len(calls[len(calls)-1].Function.Arguments) != argsSeen {
			last := calls[len(calls)-1]
			argsSeen = len(last.Function.Arguments)
			if keep, what := runawayRun(last.Function.Arguments); keep > 0 {
				// A native call's arguments going round: nothing of
				// the call can run.
				t.observe(Event{Step: step, Kind: EventNotice, Text: fmt.Sprintf("the model's %s call repeated %s in its arguments: it was stopped there", last.Function.Name, what)})
				reply.Content = text.String()
				return reply, nil, []parse.Problem{{Message: fmt.Sprintf("your %s call's arguments repeated %s, so the call was stopped and not run: send it again, writing each part once", last.Function.Name, what)}}, nil
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return reply, nil, nil, err
		}
		if text.Len()+reasoning > maxBytes {
			return reply, nil, nil, fmt.Errorf("%w: the model's reply passed %d bytes (reasoning included) without finishing; ask again with a narrower request", ErrLimit, maxBytes)
		}
	}
	p = parser()
	p.Finish()
	reply.Content = text.String()
	uses, problems := p.ToolUses(), p.Problems()
	if runaway != "" {
		problems = append([]parse.Problem{{Message: fmt.Sprintf("your reply repeated %s, so it was stopped after the first: write each line once, and end the reply when its call is complete", runaway)}}, problems...)
	}
	if len(uses) == 0 && len(problems) > 0 && t.Format != tools.FormatTool && st.EndedByModel() {
		if closed, got, ok := closeLastBlock(reply.Content, parse.Options{Format: t.Format, Lookup: t.Registry.Lookup, TaggedThinking: t.Model.TaggedThinking() || sawReasoning}); ok {
			t.observe(Event{Step: step, Kind: EventNotice, Text: "the model ended its reply inside its last block, which holds no other fence: the block was read as closed there"})
			reply.Content, uses, problems = closed, got, nil
		}
	}
	if t.Format != tools.FormatTool && len(uses) > 0 {
		n, _ := t.callsToRun(uses)
		reply.Content = reply.Content[:uses[n-1].End]
		return reply, uses[:n:n], nil, nil
	}
	for _, call := range st.ToolCalls() {
		reply.ToolCalls = append(reply.ToolCalls, call)
		// The @name(id): {json} syntax is the tool format's text form:
		// parsing it gives the same ToolUse, lenient JSON included.
		got := parse.NewParser(parse.Options{Format: tools.FormatTool, Lookup: t.Registry.Lookup})
		got.WriteString(fmt.Sprintf("@%s(%s): %s", call.Function.Name, call.ID, call.Function.Arguments))
		got.Finish()
		if us := got.ToolUses(); len(us) == 1 {
			uses = append(uses, us[0])
		} else {
			problems = append(problems, parse.Problem{Message: fmt.Sprintf("tool call %s (%s): its arguments are not a JSON object: %q", call.ID, call.Function.Name, call.Function.Arguments)})
		}
	}
	return reply, uses, problems, nil
}

// runTools runs the uses of one reply and returns the messages that tell
// the model their results, and what could not be read as a call.
//
// A tool that returns approval.ErrStopTurn (the user chose "Stop turn") ends
// the turn: the calls after it are not run, and the error is returned.
//
// The images a call attached (tools.AttachImage) go with its result as
// image_url parts: in the same user message, or, for a native call (whose
// tool message takes text only), in one user message after all the
// calls' tool messages. base is the conversation's length before out, so
// that images knows where each went.
func (t *Turn) runTools(ctx context.Context, step int, uses []tools.ToolUse, problems []parse.Problem, reply openai.ChatCompletionMessage, images *turnImages, base int, state *turnState) ([]openai.ChatCompletionMessage, error) {
	var out []openai.ChatCompletionMessage
	var native []openai.ChatMessagePart // images of native calls, sent after their tool messages
	var nativeCalls []*callImages
	result := func(callID, text string, attached []tools.Image) {
		if callID != "" && t.Format == tools.FormatTool {
			if len(attached) > 0 {
				text += "\n(the image is in the next message)"
				native = append(native, imageParts(fmt.Sprintf("The image sent by call %s:", callID), attached)...)
			}
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: callID, Content: text})
			return
		}
		// Results go back as user messages: many local models' chat
		// templates reject a system message after the first.
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text}
		if len(attached) > 0 {
			msg = openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: imageParts(text, attached)}
		}
		out = append(out, msg)
	}
	for i := range uses {
		use := &uses[i]
		key := callKey(*use) // what the model wrote: repeats are told by it
		if n, last := state.failures.seen(key); n >= repeatLimit-1 {
			// Sent a third time, nothing changed since: it would fail
			// again. It is not run, and the turn ends.
			err := repeatedError(*use, last)
			t.logCall(ToolCall{Use: *use, Outcome: "not run: " + err.Error()})
			t.observe(Event{Step: step, Kind: EventNotice, Text: fmt.Sprintf("not run: the model sent the same %s call a third time after it failed twice", DescribeUse(*use))})
			result(use.CallID, fmt.Sprintf("Not run: you sent this %s call a third time after it failed twice the same way; the turn ends.", DescribeUse(*use)), nil)
			return out, err
		}
		t.observe(Event{Step: step, Kind: EventToolStart, Use: use})
		call := &callImages{turn: images, use: *use}
		var ran ToolCall
		linksBefore := t.markdownLinks(ctx, *use) // links.go
		if err := t.shrinkingSave(ctx, *use, state); err != nil {
			ran = ToolCall{Use: *use, Err: tools.Unchanged(err)} // refused before it ran
		} else {
			ran = t.runHooked(tools.WithImageAttacher(ctx, call), *use)
		}
		output, err := ran.Output, ran.Err
		if err != nil {
			call.release() // a failed call's images are not sent
		}
		t.logCall(ran)
		t.observe(Event{Step: step, Kind: EventToolDone, Use: use, Text: output, Err: err, Call: &ran, Images: call.images})
		text := fmt.Sprintf("Result of %s:\n%s", DescribeUse(*use), output)
		switch {
		case errors.Is(err, approval.ErrStopTurn):
			result(use.CallID, fmt.Sprintf("The user stopped the turn at %s; it was not run.", DescribeUse(*use)), nil)
			return out, fmt.Errorf("%s: %w", DescribeUse(*use), err)
		case err != nil:
			text = failedText(*use, output, err)
			// An edit refused by the approval gate (the user said no,
			// the policy denies) did not fail: the model is not pushed
			// to make it again.
			var refused *approval.Refusal
			state.editFailed = state.editFailed || edittool.IsEditTool(use.Tool) && !errors.As(err, &refused)
			if state.failures.add(key, err) == repeatLimit-1 {
				text += t.concreteFeedback(ctx, *use, err)
			}
		default:
			if use.Tool == tools.NameSave && ran.Outcome == edittool.OutcomeUnchanged && !state.edited && t.Compact && asksForChange(state.prompt) {
				// The file sent back as it was, first thing, on a
				// request for a change: the real model saved stats.py
				// unchanged, then said it was already right.
				text += "\nNothing changed: you sent the file exactly as it is. The request asks for a change: send it again with the change made."
			}
			if use.Tool == tools.NameRead {
				state.show(edittool.ReadPaths(*use)...)
			}
			if edittool.IsEditTool(use.Tool) {
				state.show(edittool.PathsOf(*use)...)
				state.failures.edited()
				state.edited = true
				state.editedPaths = append(state.editedPaths, edittool.PathsOf(*use)...)
				text += t.brokenLinksNote(ctx, linksBefore, ran.Outcome == edittool.OutcomeUnchanged, state.editedPaths)
			}
			if use.Tool == tools.NameSave {
				if state.saved[key] && ran.Outcome == edittool.OutcomeUnchanged && len(state.untouched()) == 0 {
					// The same save again, and the file already held
					// what it wrote; every file the request named was
					// edited. A small model resends its last call when
					// it has nothing left to do.
					result(use.CallID, text, nil)
					t.observe(Event{Step: step, Kind: EventNotice, Text: fmt.Sprintf("the model sent the same %s call again, which changed nothing; the turn ends", DescribeUse(*use))})
					return out, errGoingRound
				}
				state.saved[key] = true
			}
			if edittool.IsEditTool(use.Tool) && state.succeeded.add(key+"\x00"+output) >= repeatLimit {
				// The same edit, the same result, a third time: the
				// model is going round; what it did stands.
				result(use.CallID, text, nil)
				t.observe(Event{Step: step, Kind: EventNotice, Text: fmt.Sprintf("the model sent the same %s call %d times with the same result; the turn ends", DescribeUse(*use), repeatLimit)})
				return out, errGoingRound
			}
		}
		if len(call.images) > 0 {
			if use.CallID != "" && t.Format == tools.FormatTool {
				nativeCalls = append(nativeCalls, call)
			} else {
				images.sentIn(base+len(out), call)
			}
		}
		result(use.CallID, text, call.images)
	}
	// Native calls whose arguments could not be read still need an answer
	// each, or the API refuses the next request.
	answered := map[string]bool{}
	for _, u := range uses {
		answered[u.CallID] = true
	}
	var unread []string
	for _, p := range problems {
		unread = append(unread, p.Message)
	}
	for _, call := range reply.ToolCalls {
		if !answered[call.ID] {
			result(call.ID, fmt.Sprintf("Error: the arguments of this %s call are not valid JSON; nothing was run. Send the call again with a JSON object.", call.Function.Name), nil)
		}
	}
	if len(reply.ToolCalls) == 0 && len(unread) > 0 {
		text := "These tool calls could not be read, so nothing was run:\n- " + strings.Join(unread, "\n- ") + "\nWrite them again."
		switch n := state.failures.add("unread\x00"+strings.Join(unread, "\x00"), nil); {
		case n >= repeatLimit:
			result("", text, nil)
			return out, fmt.Errorf("%w: it wrote a call that could not be read %d times (%s); nothing was run", ErrRepeated, repeatLimit, errLine(unread[0]))
		case n == repeatLimit-1:
			text += "\nYou wrote this same unreadable call before. Write it differently: follow the tool's example exactly."
		}
		result("", text, nil)
	}
	if len(native) > 0 {
		for _, call := range nativeCalls {
			images.sentIn(base+len(out), call)
		}
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: native})
	}
	return out, nil
}

// turnState is what a turn remembers across its steps to help a small
// model: the calls that failed, whether an edit applied, whether it was
// told that a reply showing code applied nothing.
type turnState struct {
	failures   failures
	succeeded  repeats // calls that succeeded, by call and output
	edited     bool    // an edit call applied
	editFailed bool    // an edit call failed
	nudged     bool
	prompt     string // the request's, for the checks of a compact turn
	// editedPaths are the files edit calls changed; filesNudged: the
	// model was asked about the request's files it left as they were.
	editedPaths []string
	filesNudged bool
	files       []FileText // the request's (Request.Files)
	// toCreate are the files the request asks to create that did not
	// exist when it began ("a new file named strings.go").
	toCreate []string
	saved    map[string]bool // save calls that succeeded, by callKey
	// shown are the files the model has seen this turn, cleaned: the
	// request's, those it read, those it wrote or was shown (salvage.go).
	shown map[string]bool
	// renameOffered are the files a save was refused for on a request
	// to rename, with the save that only renames (rename.go).
	renameOffered map[string]bool
}

// show records that the model has seen paths.
func (s *turnState) show(paths ...string) {
	for _, p := range paths {
		s.shown[cleanRel(p)] = true
	}
}

// cleanRel is a workspace path as the turn compares them ("./a.go" is
// "a.go").
func cleanRel(p string) string { return strings.TrimPrefix(path.Clean(p), "./") }

// untouched returns the files of the request (Request.Files, and those
// it asks to create) no edit changed, once some edit did; nil otherwise.
func (s *turnState) untouched() []string {
	if !s.edited {
		return nil
	}
	var left []string
	for _, f := range s.files {
		if !slices.Contains(s.editedPaths, f.Path) {
			left = append(left, f.Path)
		}
	}
	for _, p := range s.toCreate {
		if !slices.Contains(s.editedPaths, p) {
			left = append(left, p)
		}
	}
	return left
}

// messages returns the turn's opening messages, compact or full.
func (t *Turn) messages(req Request) []openai.ChatCompletionMessage {
	if t.Compact {
		return CompactMessages(t.Registry, t.Format, req)
	}
	return Messages(t.Registry, t.Format, req)
}

// callsToRun says how many of a reply's complete calls so far to run, and
// whether the reply may stop there. A full turn runs the first call and
// stops. A compact turn is a small model's, which writes each file's save
// block one after the other in one reply, as aider's whole-file format
// asks: cut after the first, it imitates the result it expected instead of
// writing the next file (issue 30's two-file rename). So its edit calls
// run together, in order: the reply is read on while every call so far
// edits, and stops at the first that does not (a read or a command, whose
// result the model needs), which runs after them.
func (t *Turn) callsToRun(uses []tools.ToolUse) (n int, done bool) {
	if !t.Compact {
		return 1, true
	}
	for i, u := range uses {
		if !edittool.IsEditTool(u.Tool) {
			return i + 1, true
		}
	}
	return len(uses), false
}

// DescribeUse names a tool use for people and models: the tool and its
// path ("patch a.go").
func DescribeUse(u tools.ToolUse) string {
	if len(u.Args) > 0 {
		return u.Tool + " " + strings.Join(u.Args, " ")
	}
	if p, ok := u.Kwargs["path"].(string); ok {
		return u.Tool + " " + p
	}
	return u.Tool
}

// log writes messages to the turn's log; a failing log is not a reason
// to stop the turn.
func (t *Turn) log(msgs ...openai.ChatCompletionMessage) {
	if t.Log == nil {
		return
	}
	enc := json.NewEncoder(t.Log)
	for _, m := range msgs {
		enc.Encode(m)
	}
}

// logCall writes a call's timing to the turn's log, between the
// messages: {"tool_call": {"tool", "call", "ms", "outcome"}}.
func (t *Turn) logCall(c ToolCall) {
	if t.Log == nil {
		return
	}
	rec := map[string]any{"tool": c.Use.Tool, "call": DescribeUse(c.Use), "ms": c.Duration.Milliseconds()}
	switch {
	case c.Err != nil:
		rec["outcome"] = "failed: " + c.Err.Error()
	case c.Outcome != "":
		rec["outcome"] = c.Outcome
	default:
		rec["outcome"] = "ok"
	}
	json.NewEncoder(t.Log).Encode(map[string]any{"tool_call": rec})
}

func (t *Turn) observe(e Event) {
	if t.Observe != nil {
		t.Observe(e)
	}
}

// failedText is what the model reads of a failed call: the error, what
// the tool printed before it failed (bounded as its output always is),
// and what the call left behind as the tool says (tools.ChangedOf):
// "nothing was changed" only where the tool says so.
func failedText(use tools.ToolUse, output string, err error) string {
	text := fmt.Sprintf("Error from %s: %v", DescribeUse(use), err)
	out := strings.TrimSpace(output)
	if out != "" {
		text += "\nWhat it printed before it failed:\n" + out
	}
	switch change := tools.ChangedOf(err); {
	case change == tools.ChangeNone:
		return text + "\nNothing was changed by this call; correct it and call again."
	case change == tools.ChangePartial:
		return text + "\nPart of this call ran before it failed, and what it changed stays: check what it did before you call again."
	case out != "":
		// It printed something: it ran, and may have changed things.
		return text + "\nSome of it may have run before it failed: check what it did before you call again."
	}
	return text + "\nCorrect it and call again."
}
