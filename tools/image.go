package tools

import (
	"context"
	"encoding/base64"
	"errors"
)

// An Image is a picture a tool call shows the model (view_image; an MCP
// tool's image content), sent with the call's result as an image content
// part. Data is already encoded and bounded by the tool that made it.
type Image struct {
	// Name says what the image is, for people and logs ("a.png").
	Name string
	// MIMEType is Data's encoding: image/png, image/jpeg, image/gif or
	// image/webp (what the model APIs take).
	MIMEType string
	Data     []byte
	// Width and Height are in pixels, as sent (0 when the tool does not
	// know them).
	Width, Height int
	// RefusalEndsTurn: the user said the model takes images (the vision
	// setting "on"), so the model's server refusing this one is an error
	// that ends the turn. Otherwise the turn takes the image back out of
	// the conversation, tells the model and the user why, and goes on.
	RefusalEndsTurn bool
}

// DataURL returns the image as a data: URL, the form an image_url part
// carries inline.
func (im Image) DataURL() string {
	return "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// An ImageAttacher takes the images of one tool call: the turn that runs
// the call puts one in the call's context, and sends what it took with
// the call's result. It refuses an image that passes the turn's bounds or
// that the model cannot take, saying why.
type ImageAttacher interface {
	AttachImage(Image) error
}

// ErrNoImages is AttachImage's error where nothing sends images to a model
// (a tool run outside an agent turn, a runner that sends text only).
var ErrNoImages = errors.New("images cannot be sent to the model from here (only an agent turn sends them)")

type attacherKey struct{}

// WithImageAttacher returns ctx carrying a, for the tool call run with it.
func WithImageAttacher(ctx context.Context, a ImageAttacher) context.Context {
	return context.WithValue(ctx, attacherKey{}, a)
}

// AttachImage sends img with the result of the tool call ctx was given
// to. A tool's Run calls it; the text it returns should still say what
// the image is, for the conversation's text and the user. It returns
// ErrNoImages when ctx has no attacher, else the attacher's refusal.
func AttachImage(ctx context.Context, img Image) error {
	a, ok := ctx.Value(attacherKey{}).(ImageAttacher)
	if !ok || a == nil {
		return ErrNoImages
	}
	return a.AttachImage(img)
}
