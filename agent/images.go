package agent

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/tools"
)

// sendableImageTypes are the encodings every vision API takes.
const sendableImageTypes = "image/png, image/jpeg, image/gif, image/webp"

func sendableImageType(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// turnImages are the images a turn's tools sent: bounded in count and
// bytes over the whole turn (each is sent again with every later
// request), and where each went, so that they can be taken back out if
// the model's server refuses them.
type turnImages struct {
	mu                 sync.Mutex
	maxCount, maxBytes int
	count, bytes       int
	sent               []sentImages
	// refused is the model server's refusal of images, once it came: no
	// image is taken after it.
	refused error
}

// sentImages is a message holding images, and the call that sent them.
type sentImages struct {
	msg    int // index in the conversation
	use    tools.ToolUse
	strict bool  // one of them is RefusalEndsTurn
	err    error // why they were taken out (withdraw)
}

// callImages is the ImageAttacher of one tool call.
type callImages struct {
	turn   *turnImages
	use    tools.ToolUse
	images []tools.Image
}

func (c *callImages) AttachImage(img tools.Image) error {
	t := c.turn
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.refused != nil:
		return fmt.Errorf("the model's server refused an image earlier in this turn, so no image is sent to it again (%v); do without the image, and the user can set agentls.vision to off for this model", t.refused)
	case !sendableImageType(img.MIMEType):
		return fmt.Errorf("an image of type %q cannot be sent to the model: it takes %s", img.MIMEType, sendableImageTypes)
	case len(img.Data) == 0:
		return errors.New("the image is empty")
	case t.count+1 > t.maxCount:
		return fmt.Errorf("this turn already sent %d images, the most one turn sends (each is sent again with every request): work with those, or the user can start a new turn", t.count)
	case t.bytes+len(img.Data) > t.maxBytes:
		return fmt.Errorf("this image (%s) would pass the %s of images one turn sends (%s sent so far): work with those, or the user can start a new turn", size(len(img.Data)), size(t.maxBytes), size(t.bytes))
	}
	t.count++
	t.bytes += len(img.Data)
	c.images = append(c.images, img)
	return nil
}

// size says how many bytes n is, for people.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// release gives back what the call took from the turn's bounds: its
// images are not sent (the call failed).
func (c *callImages) release() {
	t := c.turn
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, img := range c.images {
		t.count--
		t.bytes -= len(img.Data)
	}
	c.images = nil
}

// sentIn records that message msg of the conversation holds the images
// of call.
func (t *turnImages) sentIn(msg int, call *callImages) {
	t.mu.Lock()
	defer t.mu.Unlock()
	strict := slices.ContainsFunc(call.images, func(im tools.Image) bool { return im.RefusalEndsTurn })
	t.sent = append(t.sent, sentImages{msg: msg, use: call.use, strict: strict})
}

// strict reports whether an image sent is RefusalEndsTurn.
func (t *turnImages) strict() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.ContainsFunc(t.sent, func(s sentImages) bool { return s.strict })
}

// withPromptImages puts the images the user attached to the prompt
// after the text of the conversation's last user message, the prompt's.
func withPromptImages(msgs []openai.ChatCompletionMessage, images []tools.Image) {
	if len(images) == 0 {
		return
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == openai.ChatMessageRoleUser && msgs[i].MultiContent == nil {
			msgs[i].MultiContent = imageParts(msgs[i].Content, images)
			msgs[i].Content = ""
			return
		}
	}
}

// imageParts is a message's content: text, then each image as an
// image_url part with its data: URL.
func imageParts(text string, images []tools.Image) []openai.ChatMessagePart {
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}
	for _, img := range images {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: img.DataURL(), Detail: openai.ImageURLDetailAuto}})
	}
	return parts
}

// refusedBy reports whether err is the model's server refusing the images
// the conversation holds: a request error that speaks of images, vision or multimodal
// input, with images in the request. Servers say it in their own words
// (OpenAI: "image_url is only supported by certain models"; llama.cpp:
// "image input is not supported"; vLLM: "not a multimodal model"; Ollama:
// "does not support images"), so the words are what is looked at.
func (t *turnImages) refusedBy(err error) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.sent) == 0 || t.refused != nil {
		return false
	}
	var e *Error
	if !errors.As(err, &e) || e.Status < 400 || e.Status == 401 || e.Status == 403 || e.Status == 429 {
		return false
	}
	msg := strings.ToLower(e.Message)
	for _, word := range []string{"image", "vision", "multimodal", "multi-modal", "mmproj"} {
		if strings.Contains(msg, word) {
			return true
		}
	}
	return false
}

// withdraw takes every image out of msgs (their text stays, with a note),
// refuses images for the rest of the turn, and returns the calls that had
// sent them, each with the error its result now is. The results' own
// words are made true too: "(image a.png, 8×6, sent)" becomes "not
// sent", so the model is not told both.
func (t *turnImages) withdraw(msgs []openai.ChatCompletionMessage, refusal error) []sentImages {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refused = refusal
	note := fmt.Sprintf("[the image was not sent: the model's server refused it: %v. If this model takes no images, the user can set agentls.vision to off.]", refusal)
	first := len(msgs)
	for i := range t.sent {
		s := &t.sent[i]
		s.err = fmt.Errorf("the model's server refused the image %s sent (%v): set agentls.vision to off if this model takes no images", DescribeUse(s.use), refusal)
		first = min(first, s.msg)
		m := &msgs[s.msg]
		if m.MultiContent == nil {
			continue // one message holds the images of several native calls
		}
		var text []string
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeText {
				text = append(text, p.Text)
			}
		}
		m.MultiContent = nil
		m.Content = strings.Join(append(text, note), "\n")
	}
	// A native call's result is its tool message, before the message
	// that held its image (runTools).
	for first > 0 && msgs[first-1].Role == openai.ChatMessageRoleTool {
		first--
	}
	for i := first; i < len(msgs); i++ {
		if msgs[i].Role != openai.ChatMessageRoleAssistant {
			msgs[i].Content = notSent(msgs[i].Content)
		}
	}
	sent := t.sent
	t.sent = nil
	return sent
}

// sentMark is how an image tool's result says its image went with it
// (vision.Describe): "(image NAME, W×H, sent)" or "(image …, sent; how it
// was fitted)".
var sentMark = regexp.MustCompile(`\(image ([^\n]*?), sent(; [^\n]*?)?\)`)

// notSent rewrites a result's words about images that were withdrawn:
// sent becomes not sent, and a native call's pointer to the next message
// (runTools) and that message's heading no longer say an image is there.
func notSent(text string) string {
	text = sentMark.ReplaceAllString(text, "(image $1, not sent$2)")
	text = strings.ReplaceAll(text, "\n(the image is in the next message)", "")
	return strings.ReplaceAll(text, "The image sent by call ", "The image of call ")
}
