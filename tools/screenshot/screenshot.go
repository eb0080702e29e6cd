// Package screenshot is the screenshot tool: a web page rendered by
// headless Chromium (Debian's chromium, driven over the DevTools protocol
// with chromedp), or the X screen (`screenshot screen`, the computer
// tool's screenshot action, asked as that is), its image sent to the model
// as view_image sends one.
//
// Trust (DESIGN §8a): a screenshot *sends* its URL out and brings the
// page's look into the model's context, so the URL is approved as the
// browser tool's fetches are (browser.Browser.Approve: asked unless its
// host is in browserAllowlist). The page's scripts run, in Chromium's
// sandbox, and may try to reach other hosts: every request but the page's
// own host and port goes to a proxy that does not exist
// (--proxy-server to a closed port, --proxy-bypass-list naming only the
// page's host:port, with <-loopback> so that other local ports are not
// bypassed either), so it fails without leaving the machine. UDP, which
// the proxy cannot carry, is not spoken: WebRTC may use only proxied
// transports (STUN and TURN at any host:port get nothing) and QUIC is
// off. DNS
// prefetching, background networking and extensions are off. It writes
// nothing but Chromium's temporary profile, removed when it exits.
package screenshot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/computer"
	"github.com/agentls/agentls/tools/vision"
)

// DefaultTimeout bounds one screenshot: Chromium's start, the page's load
// and the capture.
const DefaultTimeout = 30 * time.Second

// Viewport is the window the page is rendered in, in CSS pixels.
const (
	ViewportWidth  = 1280
	ViewportHeight = 800
)

// deadProxy is where every request not to the page's own origin is sent:
// the discard port of the loopback address, which nothing serves here, so
// the connection is refused at once.
const deadProxy = "http://127.0.0.1:9"

// An Approver asks before a URL is sent out (the browser tool's
// Browser.Approve), returning the URL to load.
type Approver interface {
	Approve(ctx context.Context, raw string) (*url.URL, error)
}

// Options configure screenshot.
type Options struct {
	// Chromium is the browser's program ("": chromium, else
	// chromium-browser, on PATH).
	Chromium string
	// Vision says whether the model takes images, and bounds them.
	Vision vision.Options
	// Timeout bounds one screenshot (0: DefaultTimeout).
	Timeout time.Duration
	// Screen, when set, grabs the X screen for `screenshot screen` (the
	// computer tool's screenshot action: asked like it, unless the
	// computerAllowlist allows it). Nil where there is no X screen.
	Screen func(ctx context.Context) (string, error)
}

// Find returns the Chromium program on PATH, "" when there is none.
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Available reports whether Chromium is installed.
func Available() bool { return Find() != "" }

// Tool is screenshot, configured by opts: bound in a turn, it approves
// URLs as the turn's Browser does (browser.ForTurn with web: an "Always"
// for a host covers both), and `screenshot screen` is the computer tool's
// screenshot action on screen's display, asked as that is (the screen
// leaves the machine), where there is one.
func Tool(opts Options, web browser.Options, screen computer.Options) tools.Tool {
	return tools.Tool{Spec: screenshotSpec(), Bind: func(env tools.Env) tools.RunFunc {
		a := browser.ForTurn(env, web)
		o := opts
		if computer.Available(screen.Display) {
			c := computer.New(env.Workspace, screen)
			o.Screen = func(ctx context.Context) (string, error) {
				return c.Run(ctx, tools.ToolUse{Tool: tools.NameComputer, Args: []string{"screenshot"}})
			}
		}
		return func(ctx context.Context, use tools.ToolUse) (string, error) {
			return Take(ctx, a, urlArg(use), o)
		}
	}}
}

// screenshotSpec: screenshot renders a web page in headless Chromium,
// approving each URL as browser does.
func screenshotSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameScreenshot,
		BlockTypes:   []string{tools.NameScreenshot},
		Description:  "Look at a web page as a browser renders it (headless Chromium, 1280×800), or at the user's X screen.",
		Instructions: `Give an http or https URL: the page is loaded, its scripts run, and its image is sent to you with the call's result. Only the page's own host and port are reached; anything the page loads from elsewhere fails. The user is asked first unless the host is allowed, since the URL leaves the machine. Use it to check a layout or a local dev server's page; use browser to read text. Give screen instead of a URL to see the user's X screen (the user is asked first).`,
		Parameters: []tools.Parameter{
			{Name: "url", Type: "string", Required: true, Description: "The page to render (http or https), or screen for the X screen."},
		},
		Available:    func() bool { return tools.OnPath("chromium")() || tools.OnPath("chromium-browser")() },
		Requires:     "Chromium on PATH (Debian: apt install chromium) and a model that takes images",
		LoadPriority: 30,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("does the page at localhost:8080 look right?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameScreenshot, "http://localhost:8080/")),
				tools.ExampleSystem("Result of screenshot:\n(image screenshot of http://localhost:8080/, 1280×800, sent)"),
			}},
		},
	}
}

func urlArg(use tools.ToolUse) string {
	if s := strings.TrimSpace(use.Content); s != "" {
		return s
	}
	if len(use.Args) > 0 {
		return strings.TrimSpace(use.Args[0])
	}
	s, _ := use.Kwargs["url"].(string)
	return strings.TrimSpace(s)
}

// Take renders the page at raw once the user (or the allowlist) approved
// it, and attaches its image to the call ctx belongs to.
func Take(ctx context.Context, a Approver, raw string, opts Options) (string, error) {
	if opts.Vision.Mode == vision.ModeOff {
		return "", errors.New("images cannot be shown to this model: the vision setting is off; use the browser tool to read the page as text")
	}
	if raw == "" {
		return "", errors.New("no URL given: write the page's URL, e.g. screenshot http://localhost:8080/ (or screenshot screen for the X screen)")
	}
	if raw == "screen" {
		if opts.Screen == nil {
			return "", errors.New("there is no X screen to grab here ($DISPLAY is not set, or xdotool and ImageMagick's import are missing); give a page's URL instead")
		}
		return opts.Screen(ctx)
	}
	chromium := opts.Chromium
	if chromium == "" {
		chromium = Find()
	}
	if chromium == "" {
		return "", errors.New("screenshot needs Chromium, which is not installed (Debian: apt install chromium); use the browser tool to read the page as text")
	}
	u, err := a.Approve(ctx, raw)
	if err != nil {
		return "", err
	}
	png, err := capture(ctx, chromium, u, opts.Timeout)
	if err != nil {
		return "", fmt.Errorf("screenshot %s: %w", u, err)
	}
	text, err := vision.Send(ctx, "screenshot of "+u.String(), png, opts.Vision)
	if err != nil {
		return "", fmt.Errorf("screenshot %s: %w", u, err)
	}
	return text, nil
}

// origin is the page's host:port, as the proxy bypass list names it.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// flags are Chromium's: headless, the page's origin the only one reached
// (see the package doc), nothing in the background, and no sandbox only
// where Chromium refuses to start with one (as root).
func flags(chromium string, u *url.URL) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.ExecPath(chromium),
		chromedp.WindowSize(ViewportWidth, ViewportHeight),
		chromedp.ProxyServer(deadProxy),
		chromedp.Flag("proxy-bypass-list", "<-loopback>;"+origin(u)),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		// WebRTC's ICE talks UDP, which no proxy carries: it may use
		// only what goes through the proxy (TCP, to the dead one). Of
		// the switches that name this policy, Debian's Chromium 156
		// honours this one (--force-webrtc-ip-handling-policy and
		// --enforce-webrtc-ip-permission-check left STUN going out;
		// TestScreenshotPageReachesOnlyItsOrigin). QUIC (HTTP/3,
		// WebTransport) is off as well, so no other UDP is spoken.
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-quic", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}

// capture starts Chromium, loads u and returns the viewport as PNG.
func capture(ctx context.Context, chromium string, u *url.URL, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, flags(chromium, u)...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	fail := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("the page did not load within %s", timeout)
		}
		return err
	}
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(ViewportWidth, ViewportHeight), chromedp.Navigate(u.String())); err != nil {
		return nil, fail(err)
	}
	png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		return nil, fail(err)
	}
	return png, nil
}
