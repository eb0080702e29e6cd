package vision

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/toolstest"
)

// collect is an ImageAttacher that keeps what it is given.
type collect struct{ images []tools.Image }

func (c *collect) AttachImage(img tools.Image) error {
	c.images = append(c.images, img)
	return nil
}

// gradient is a w×h image with some detail, so that encoders have work.
func gradient(w, h int) *image.NRGBA {
	im := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			im.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	return im
}

func pngBytes(t testing.TB, im image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t testing.TB, im image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, im, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gifBytes(t testing.TB, im image.Image) []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, im, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpGray is a 1×1 lossy WebP (the standard library writes none).
func webpGray(t testing.TB) []byte {
	b, err := base64.StdEncoding.DecodeString("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pngClaiming is a real 1×1 PNG whose header claims w×h pixels (its CRC
// fixed, so it is well formed up to the pixel data): a decompression bomb
// as an attacker would write it.
func pngClaiming(t testing.TB, w, h uint32) []byte {
	b := pngBytes(t, image.NewGray(image.Rect(0, 0, 1, 1)))
	// 8-byte signature, 4-byte length, "IHDR", then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestViewImage(t *testing.T) {
	root := t.TempDir()
	small := pngBytes(t, gradient(80, 60))
	write(t, root, "small.png", small)
	write(t, root, "photo.jpg", jpegBytes(t, gradient(300, 200)))
	write(t, root, "tall.png", pngBytes(t, gradient(20, 1600)))
	write(t, root, "anim.gif", gifBytes(t, gradient(40, 30)))
	write(t, root, "pic.webp", webpGray(t))
	write(t, root, "disguised.txt", small) // a PNG whatever its name says
	for _, tc := range []struct {
		path      string
		maxSide   int
		mime      string
		w, h      int
		same      bool // the file's bytes are sent as they are
		wantShown string
	}{
		{path: "small.png", mime: "image/png", w: 80, h: 60, same: true, wantShown: "(image small.png, 80×60, sent)"},
		{path: "photo.jpg", maxSide: 150, mime: "image/jpeg", w: 150, h: 100, wantShown: "(image photo.jpg, 150×100, sent; downscaled from 300×200)"},
		{path: "tall.png", mime: "image/png", w: 20, h: 1568, wantShown: "(image tall.png, 20×1568, sent; downscaled from 20×1600)"}, // the default bound
		{path: "anim.gif", mime: "image/png", w: 40, h: 30, wantShown: "sent as PNG"},
		{path: "pic.webp", mime: "image/jpeg", w: 1, h: 1, wantShown: "sent as JPEG"},
		{path: "disguised.txt", mime: "image/png", w: 80, h: 60, same: true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var got collect
			ctx := tools.WithImageAttacher(context.Background(), &got)
			out, err := ViewImage(ctx, root, tc.path, Options{MaxSide: tc.maxSide})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.wantShown) {
				t.Errorf("text %q does not say %q", out, tc.wantShown)
			}
			if len(got.images) != 1 {
				t.Fatalf("attached %d images, want 1", len(got.images))
			}
			im := got.images[0]
			if im.MIMEType != tc.mime || im.Width != tc.w || im.Height != tc.h || im.Name != tc.path {
				t.Errorf("sent %s %s %d×%d, want %s %s %d×%d", im.Name, im.MIMEType, im.Width, im.Height, tc.path, tc.mime, tc.w, tc.h)
			}
			// What is sent decodes to what it claims.
			cfg, format, err := image.DecodeConfig(bytes.NewReader(im.Data))
			if err != nil || "image/"+format != im.MIMEType || cfg.Width != im.Width || cfg.Height != im.Height {
				t.Errorf("sent bytes decode as %s %d×%d (%v)", format, cfg.Width, cfg.Height, err)
			}
			if tc.same && !bytes.Equal(im.Data, small) {
				t.Errorf("an image within the bounds was re-encoded")
			}
			if !strings.HasPrefix(im.DataURL(), "data:"+tc.mime+";base64,") {
				t.Errorf("data URL starts %q", im.DataURL()[:30])
			}
		})
	}
}

// TestViewImageRefuses: hostile and wrong input is refused with a message
// saying what to do, and nothing is attached.
func TestViewImageRefuses(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "secret.png", pngBytes(t, gradient(10, 10)))
	root := t.TempDir()
	write(t, root, "notes.png", []byte("these are notes, not a picture\n"))
	write(t, root, "logo.svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`))
	write(t, root, "inline-svg.png", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>`))
	write(t, root, "bomb.png", pngClaiming(t, 100_000, 100_000))
	write(t, root, "broken.jpg", jpegBytes(t, gradient(64, 64))[:200])
	if err := os.Symlink(filepath.Join(outside, "secret.png"), filepath.Join(root, "link.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(root, "huge.png"))
	if err != nil {
		t.Fatal(err)
	}
	big.Write(pngBytes(t, gradient(4, 4)))
	big.Truncate(MaxFileBytes + 1) // sparse: the size is checked before any read
	big.Close()

	for _, tc := range []struct {
		name, path string
		opts       Options
		want       string
	}{
		{"vision off", "notes.png", Options{Mode: ModeOff}, "the vision setting is off"},
		{"no path", "", Options{}, "no path given"},
		{"not an image, named .png", "notes.png", Options{}, "not an image view_image reads (its bytes look like text/plain"},
		{"svg", "logo.svg", Options{}, "SVG images are not shown: agentls has no SVG renderer"},
		{"svg by its bytes", "inline-svg.png", Options{}, "no SVG renderer"},
		{"decompression bomb", "bomb.png", Options{}, "100000×100000 pixels, over the 40 megapixels"},
		{"truncated", "broken.jpg", Options{}, "a broken image/jpeg image"},
		{"huge file", "huge.png", Options{}, "over the 32 MB view_image reads"},
		{"outside by ..", "../" + filepath.Base(outside) + "/secret.png", Options{}, "outside"},
		{"absolute", filepath.Join(outside, "secret.png"), Options{}, "absolute"},
		{"symlink out", "link.png", Options{}, "outside"},
		{"folder symlink out", "dirlink/secret.png", Options{}, "outside"},
		{"missing", "nope.png", Options{}, "no such file"},
		{"folder", "folder", Options{}, "not a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got collect
			ctx := tools.WithImageAttacher(context.Background(), &got)
			out, err := ViewImage(ctx, root, tc.path, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, %v; want an error saying %q", out, err, tc.want)
			}
			if len(got.images) != 0 {
				t.Errorf("attached %d images with a refusal", len(got.images))
			}
		})
	}
}

// refuse is an attacher that refuses every image (the turn's bound).
type refuse struct{}

func (refuse) AttachImage(tools.Image) error { return errors.New("this turn already sent 10 images") }

func TestViewImageAttacherRefuses(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.png", pngBytes(t, gradient(8, 8)))
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"no turn", context.Background(), "only an agent turn sends them"},
		{"turn's bound", tools.WithImageAttacher(context.Background(), refuse{}), "already sent 10 images"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ViewImage(tc.ctx, root, "a.png", Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestRunsReadsPathArgument: the path comes from a block's tag, a named
// argument, or the body.
func TestRunsReadsPathArgument(t *testing.T) {
	root := t.TempDir()
	write(t, root, "img/a.png", pngBytes(t, gradient(8, 8)))
	run := Tool(Options{}).Bind(toolstest.Env(root, nil))
	for _, use := range []tools.ToolUse{
		{Tool: "view_image", Args: []string{"img/a.png"}},
		{Tool: "view_image", Kwargs: map[string]any{"path": "img/a.png"}},
		{Tool: "view_image", Content: "img/a.png\n"},
	} {
		var got collect
		out, err := run(tools.WithImageAttacher(context.Background(), &got), use)
		if err != nil || len(got.images) != 1 || !strings.Contains(out, "img/a.png") {
			t.Errorf("%+v: %q, %v, %d images", use, out, err, len(got.images))
		}
	}
}

// A noisy PNG that must be re-encoded (here: scaled) and is still over
// the bound on what is sent as PNG is sent as JPEG.
func TestFitNoisyPNGSentAsJPEG(t *testing.T) {
	im := image.NewNRGBA(image.Rect(0, 0, 160, 160))
	x := uint32(1)
	for i := range im.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		im.Pix[i] = uint8(x)
	}
	const maxSent = 48 << 10 // the noise is ~75 KB as PNG at 150×150, ~30 KB as JPEG
	got, note, err := fit("noise.png", pngBytes(t, im), 150, maxSent)
	if err != nil {
		t.Fatal(err)
	}
	if got.MIMEType != "image/jpeg" || len(got.Data) > maxSent || !strings.Contains(note, "sent as JPEG") {
		t.Errorf("sent %s, %d bytes, note %q", got.MIMEType, len(got.Data), note)
	}
}

// BenchmarkFit measures fitting a JPEG photo to the default bound, by
// size: decode, scale (Catmull-Rom), encode.
func BenchmarkFit(b *testing.B) {
	for _, size := range [][2]int{{800, 600}, {1600, 1200}, {3200, 2400}, {6000, 4000}} {
		data := jpegBytes(b, gradient(size[0], size[1]))
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			b.SetBytes(int64(size[0] * size[1]))
			for b.Loop() {
				if _, _, err := Fit("a.jpg", data, DefaultMaxSide); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzFit: any bytes are refused or fitted within the bounds, never a
// panic or an image over them.
func FuzzFit(f *testing.F) {
	f.Add(pngBytes(f, gradient(20, 10)))
	f.Add(jpegBytes(f, gradient(30, 30)))
	f.Add(gifBytes(f, gradient(5, 7)))
	f.Add(webpGray(f))
	f.Add(pngClaiming(f, 100_000, 100_000))
	f.Add([]byte("<svg></svg>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, _, err := Fit("f", data, 16)
		if err != nil {
			return
		}
		if img.Width <= 0 || img.Height <= 0 || img.Width > 16 || img.Height > 16 || len(img.Data) == 0 || len(img.Data) > MaxSentBytes {
			t.Fatalf("sent %d×%d, %d bytes", img.Width, img.Height, len(img.Data))
		}
	})
}
