package vision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// Mode is the vision setting: whether the model is sent images.
type Mode string

const (
	// ModeAuto sends images; a model server that refuses image input is
	// turned into a tool error telling the user to set vision off.
	ModeAuto Mode = "auto"
	// ModeOn sends images: the user says the model takes them.
	ModeOn Mode = "on"
	// ModeOff refuses view_image: the model takes no images.
	ModeOff Mode = "off"
)

// Modes are the values of the vision setting.
func Modes() []string { return []string{string(ModeAuto), string(ModeOn), string(ModeOff)} }

// DefaultMaxSide is the default bound of an image's longer side, in
// pixels: Anthropic's advice for its models, and above what OpenAI's
// high-detail tiles keep (2048 then 768 on the short side).
const DefaultMaxSide = 1568

// Bounds on what view_image reads and decodes. They are constants, not
// settings: they keep a hostile file from costing memory, and the image
// sent is bounded by MaxSide anyway.
const (
	// MaxFileBytes is the largest file read.
	MaxFileBytes = 32 << 20
	// MaxPixels is the most pixels decoded (a 24-megapixel photo is
	// 6000×4000): a file that claims more is refused before it is decoded,
	// since decoding allocates 4 bytes a pixel whatever the file's size.
	MaxPixels = 40_000_000
	// MaxSentBytes is the largest encoded image sent (Anthropic refuses
	// images over 5 MB); a PNG over it is sent as JPEG instead.
	MaxSentBytes = 5 << 20
)

// Options configure view_image.
type Options struct {
	// Mode is the vision setting ("" is auto).
	Mode Mode
	// MaxSide bounds the sent image's longer side (0: DefaultMaxSide).
	MaxSide int
}

// Tool is view_image, configured by opts: bound in a turn, it reads the
// Env's workspace and asks its user before an image that may hold
// secrets is sent (allowSecret).
func Tool(opts Options) tools.Tool {
	return tools.Tool{Spec: viewImageSpec(), Bind: func(env tools.Env) tools.RunFunc {
		ws := env.Workspace
		return func(ctx context.Context, use tools.ToolUse) (string, error) {
			return viewImage(ctx, ws.Root(), pathArg(use), opts, ws)
		}
	}}
}

// viewImageSpec is gptme's vision.
func viewImageSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameViewImage,
		BlockTypes:   []string{tools.NameViewImage},
		PathArg:      true,
		Description:  "Look at an image file of the workspace (PNG, JPEG, GIF or WebP).",
		Instructions: `The image is sent to you with the call's result, downscaled when it is large. Give its path relative to the workspace root. SVG files are not shown: read them as text. Use it for screenshots, diagrams and UI mock-ups the user points you to.`,
		Parameters: []tools.Parameter{
			tools.PathParam("image file to look at"),
		},
		Hints: []string{"read-only"},
		// Always available: it needs no program, only a model that takes
		// images, which the vision setting says (off: the tool refuses).
		Requires:     "a model that takes images (the vision setting not off)",
		LoadPriority: 20,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("does the login page in docs/login.png match the design?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameViewImage, "", "docs/login.png")),
				tools.ExampleSystem("Result of view_image docs/login.png:\n(image docs/login.png, 1280×800, sent)"),
			}},
		},
	}
}

// pathArg is the call's path: its argument, its named one, or its body.
func pathArg(use tools.ToolUse) string {
	if len(use.Args) > 0 {
		return strings.TrimSpace(use.Args[0])
	}
	if p, ok := use.Kwargs["path"].(string); ok {
		return strings.TrimSpace(p)
	}
	return strings.TrimSpace(use.Content)
}

// ViewImage loads the image at rel (relative to root), fits it to opts,
// attaches it to the call ctx belongs to, and returns what the
// conversation's text says of it. Nobody is asked: an image that may hold
// secrets is refused (allowSecret).
func ViewImage(ctx context.Context, root, rel string, opts Options) (string, error) {
	return viewImage(ctx, root, rel, opts, nil)
}

// viewImage is ViewImage asking c (nil: nobody) before an image that may
// hold secrets is sent.
func viewImage(ctx context.Context, root, rel string, opts Options, c approval.Confirmer) (string, error) {
	if opts.Mode == ModeOff {
		return "", errors.New("images cannot be shown to this model: the vision setting is off (the model is configured without image input); describe what you need from the image in words, or the user can set agentls.vision to auto")
	}
	if rel == "" {
		return "", errors.New("no path given: write the image's path relative to the workspace root, e.g. view_image docs/screenshot.png")
	}
	img, note, err := Load(root, rel, opts.MaxSide) // a path outside the workspace is refused unasked
	if err != nil {
		return "", err
	}
	if err := allowSecret(ctx, root, rel, c); err != nil {
		return "", err
	}
	text, err := attach(ctx, img, note, opts)
	if err != nil {
		return "", fmt.Errorf("view_image %s: %w", rel, err)
	}
	return text, nil
}

// Send fits data (an image another tool made or got: a screenshot, an
// MCP result) to opts, attaches it to the call ctx belongs to, and
// returns what the conversation's text says of it. name is how the text
// names it.
func Send(ctx context.Context, name string, data []byte, opts Options) (string, error) {
	maxSide := opts.MaxSide
	if maxSide <= 0 {
		maxSide = DefaultMaxSide
	}
	img, note, err := Fit(name, data, maxSide)
	if err != nil {
		return "", err
	}
	return attach(ctx, img, note, opts)
}

// attach attaches a fitted image to the call ctx belongs to (a refusal
// ends the turn when vision is on: the user said the model sees images)
// and returns what the conversation's text says of it.
func attach(ctx context.Context, img tools.Image, note string, opts Options) (string, error) {
	img.RefusalEndsTurn = opts.Mode == ModeOn
	if err := tools.AttachImage(ctx, img); err != nil {
		return "", err
	}
	return Describe(img, note), nil
}

// Describe is the text that goes with a sent image, in the conversation
// and to the user: "(image a.png, 800×600, sent)", with what was done to
// fit it.
func Describe(img tools.Image, note string) string {
	s := fmt.Sprintf("(image %s, %d×%d, sent", img.Name, img.Width, img.Height)
	if note != "" {
		s += "; " + note
	}
	return s + ")"
}

// Load reads, checks and fits the image at rel: the image to send and a
// note on what was changed ("" when it is sent as it is). maxSide 0 is
// DefaultMaxSide.
func Load(root, rel string, maxSide int) (tools.Image, string, error) {
	if maxSide <= 0 {
		maxSide = DefaultMaxSide
	}
	data, err := readFile(root, rel)
	if err != nil {
		return tools.Image{}, "", err
	}
	return Fit(filepath.ToSlash(rel), data, maxSide)
}

// readFile reads rel under root, refusing what resolves outside it, what
// is not a regular file, and files over MaxFileBytes.
func readFile(root, rel string) ([]byte, error) {
	abs, err := edits.ResolveInRoot(root, rel)
	if err != nil {
		return nil, fmt.Errorf("view_image %s: %w", rel, err)
	}
	// O_NOFOLLOW: the path was just resolved; a symlink put in its place
	// since is refused rather than followed out of the workspace.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("view_image %s: no such file in the workspace", rel)
	}
	if err != nil {
		return nil, fmt.Errorf("view_image %s: %w", rel, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("view_image %s: %w", rel, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("view_image %s: not a file (%s): give the path of an image file", rel, info.Mode().Type())
	}
	if info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("view_image %s: the file is %d MB, over the %d MB view_image reads: make a smaller copy (e.g. convert -resize 1568x1568) and view that", rel, info.Size()>>20, MaxFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("view_image %s: %w", rel, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("view_image %s: the file grew past %d MB while it was read", rel, MaxFileBytes>>20)
	}
	return data, nil
}

// format is an image encoding view_image reads.
type format struct {
	mime   string
	decode func(io.Reader) (image.Image, error)
	config func(io.Reader) (image.Config, error)
	// keep: bytes within the bounds may be sent as they are (PNG and
	// JPEG, which every vision API takes); the others are re-encoded.
	keep bool
	// sendAs is the MIME type a re-encoded image of this format is sent
	// as: PNG for the lossless ones, JPEG for the photographic ones.
	sendAs string
}

// sniff says which image format data is, from its bytes, not its name.
func sniff(name string, data []byte) (format, error) {
	switch mime := http.DetectContentType(data); mime {
	case "image/png":
		return format{mime: mime, decode: png.Decode, config: png.DecodeConfig, keep: true, sendAs: "image/png"}, nil
	case "image/jpeg":
		return format{mime: mime, decode: jpeg.Decode, config: jpeg.DecodeConfig, keep: true, sendAs: "image/jpeg"}, nil
	case "image/gif":
		// Re-encoded: its first frame as PNG (APIs refuse animated GIFs).
		return format{mime: mime, decode: gif.Decode, config: gif.DecodeConfig, sendAs: "image/png"}, nil
	case "image/webp":
		// Re-encoded as JPEG: local servers' decoders (stb_image in
		// llama.cpp) do not read WebP.
		return format{mime: mime, decode: webp.Decode, config: webp.DecodeConfig, sendAs: "image/jpeg"}, nil
	default:
		if isSVG(name, data) {
			return format{}, fmt.Errorf("view_image %s: SVG images are not shown: agentls has no SVG renderer (Go's standard library has none); read the file's XML with read instead, or export it as PNG (e.g. rsvg-convert -o out.png %s) and view that", name, name)
		}
		return format{}, fmt.Errorf("view_image %s: not an image view_image reads (its bytes look like %s); it shows PNG, JPEG, GIF and WebP files", name, mime)
	}
}

// isSVG reports whether a file that is not a raster image is SVG: by its
// name, or an <svg element near its start.
func isSVG(name string, data []byte) bool {
	if strings.EqualFold(filepath.Ext(name), ".svg") || strings.EqualFold(filepath.Ext(name), ".svgz") {
		return true
	}
	head := data[:min(len(data), 4096)]
	return bytes.Contains(bytes.ToLower(head), []byte("<svg"))
}

// Fit checks data is an image within the bounds and returns it as sent:
// its bytes as they are when they fit, else decoded, scaled so that its
// longer side is at most maxSide, and re-encoded. note says what was done.
func Fit(name string, data []byte, maxSide int) (tools.Image, string, error) {
	return fit(name, data, maxSide, MaxSentBytes)
}

// fit is Fit with the bound on what is sent as a parameter, for tests.
func fit(name string, data []byte, maxSide, maxSent int) (tools.Image, string, error) {
	f, err := sniff(name, data)
	if err != nil {
		return tools.Image{}, "", err
	}
	cfg, err := f.config(bytes.NewReader(data))
	if err != nil {
		return tools.Image{}, "", fmt.Errorf("view_image %s: a broken %s image: %v", name, f.mime, err)
	}
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 {
		return tools.Image{}, "", fmt.Errorf("view_image %s: the image claims %d×%d pixels: nothing to show", name, w, h)
	}
	// Checked on the header's claim, before anything is allocated for the
	// pixels: a few-kilobyte file can claim a gigapixel.
	if int64(w)*int64(h) > MaxPixels {
		return tools.Image{}, "", fmt.Errorf("view_image %s: the image is %d×%d pixels, over the %d megapixels view_image decodes: make a smaller copy (e.g. convert -resize 4000x4000) and view that", name, w, h, MaxPixels/1_000_000)
	}
	scaled := w > maxSide || h > maxSide
	if f.keep && !scaled && len(data) <= maxSent {
		return tools.Image{Name: name, MIMEType: f.mime, Data: data, Width: w, Height: h}, "", nil
	}
	src, err := f.decode(bytes.NewReader(data))
	if err != nil {
		return tools.Image{}, "", fmt.Errorf("view_image %s: a broken %s image: %v", name, f.mime, err)
	}
	nw, nh := w, h
	if scaled {
		nw, nh = fitSides(w, h, maxSide)
	}
	out, mime, err := encode(src, nw, nh, f.sendAs, maxSent)
	if err != nil {
		return tools.Image{}, "", fmt.Errorf("view_image %s: %w", name, err)
	}
	var notes []string
	if scaled {
		notes = append(notes, fmt.Sprintf("downscaled from %d×%d", w, h))
	}
	if mime != f.mime {
		notes = append(notes, fmt.Sprintf("sent as %s", strings.ToUpper(strings.TrimPrefix(mime, "image/"))))
	}
	return tools.Image{Name: name, MIMEType: mime, Data: out, Width: nw, Height: nh}, strings.Join(notes, ", "), nil
}

// fitSides scales w×h so that the longer side is maxSide, keeping the
// aspect ratio (rounded, at least one pixel).
func fitSides(w, h, maxSide int) (int, int) {
	if w >= h {
		return maxSide, max(1, int((int64(h)*int64(maxSide)+int64(w)/2)/int64(w)))
	}
	return max(1, int((int64(w)*int64(maxSide)+int64(h)/2)/int64(h))), maxSide
}

// encode draws src into a w×h image and encodes it as mime; a PNG over
// maxSent bytes (noise, photographs saved as PNG) is sent as JPEG.
func encode(src image.Image, w, h int, mime string, maxSent int) ([]byte, string, error) {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	op := draw.Src
	if o, ok := src.(interface{ Opaque() bool }); mime == "image/jpeg" && !(ok && o.Opaque()) {
		// JPEG has no alpha: transparent parts show white, as viewers
		// show them, not black. (An opaque source, such as a decoded
		// JPEG, is drawn with Src: the scaler's fast paths.)
		draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		op = draw.Over
	}
	if src.Bounds().Dx() == w && src.Bounds().Dy() == h {
		draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, op)
	} else {
		// Catmull-Rom: a kernel scaler that widens its support when it
		// shrinks, so text in a screenshot stays legible (the approximate
		// scalers alias).
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), op, nil)
	}
	var buf bytes.Buffer
	if mime == "image/png" {
		if err := png.Encode(&buf, dst); err != nil {
			return nil, "", fmt.Errorf("encode PNG: %w", err)
		}
		if buf.Len() <= maxSent {
			return buf.Bytes(), mime, nil
		}
		return encode(src, w, h, "image/jpeg", maxSent)
	}
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85}); err != nil {
		return nil, "", fmt.Errorf("encode JPEG: %w", err)
	}
	if buf.Len() > maxSent {
		return nil, "", fmt.Errorf("the image is still %d MB as JPEG at %d×%d: lower imageMaxSide", buf.Len()>>20, w, h)
	}
	return buf.Bytes(), mime, nil
}
