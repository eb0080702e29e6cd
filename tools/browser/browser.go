package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// Bounds on one fetch. The timeout is a setting (browserTimeout); these
// are constants: they keep a hostile server from costing memory or
// holding the turn.
const (
	// MaxRedirects is how many redirects a fetch follows, each checked.
	MaxRedirects = 5
	// MaxBodyBytes is how much of a page is read; the rest is not.
	MaxBodyBytes = 2 << 20
	// MaxTextBytes is how much of a page's text the model reads.
	MaxTextBytes = 48 << 10
	// MaxLinks is how many of a page's links are listed.
	MaxLinks = 100
	// DefaultTimeout bounds a whole fetch, redirects and body included.
	DefaultTimeout = 30 * time.Second
)

// Options configure the browser tool.
type Options struct {
	// Allowlist are globs on hosts ("docs.python.org", "*.go.dev") that
	// are fetched without asking.
	Allowlist []string
	// SearchURL is the search engine: a URL with {query} where the words
	// go. Empty: search is off.
	SearchURL string
	// Timeout bounds a fetch (0: DefaultTimeout).
	Timeout time.Duration
}

// CheckAllowlist says what is wrong with an allowlist, for the settings.
func CheckAllowlist(globs []string) error {
	for _, g := range globs {
		if g == "" || strings.ContainsAny(g, "/:@ ") {
			return fmt.Errorf("%q is not a host glob: give host names only, such as docs.python.org or *.go.dev (no scheme, port or path)", g)
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("%q: %v", g, err)
		}
	}
	return nil
}

// CheckSearchURL says what is wrong with a search URL template.
func CheckSearchURL(t string) error {
	if t == "" {
		return nil
	}
	if !strings.Contains(t, "{query}") {
		return fmt.Errorf("%q has no {query}: write the URL with {query} where the search words go", t)
	}
	u, err := url.Parse(strings.ReplaceAll(t, "{query}", "q"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL", t)
	}
	return nil
}

// A Browser fetches pages for one turn: it remembers the hosts the user
// allowed with "Always" until the turn ends.
type Browser struct {
	opts    Options
	confirm approval.Confirmer
	kept    *approval.Kept // hosts the user allowed for the rest of the turn
}

// New returns a Browser that asks c before fetching from a host opts do
// not allow.
func New(c approval.Confirmer, opts Options) *Browser {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Browser{opts: opts, confirm: c, kept: &approval.Kept{}}
}

// ForTurn returns the Browser of a turn: it asks env's workspace, and
// keeps the hosts allowed with "Always" in env.Hosts (shared with
// screenshot, so one answer covers both), else its own.
func ForTurn(env tools.Env, opts Options) *Browser {
	b := New(env.Workspace, opts)
	if env.Hosts != nil {
		b.kept = env.Hosts
	}
	return b
}

// Tool is the browser tool, configured by opts: bound in a turn, it is
// the turn's Browser (ForTurn).
func Tool(opts Options) tools.Tool {
	return tools.Tool{Spec: browserSpec(), Bind: func(env tools.Env) tools.RunFunc {
		return ForTurn(env, opts).Run
	}}
}

// browserSpec: the browser reads web pages. Each fetch sends its URL out,
// so it asks the user unless the host is in browserAllowlist.
func browserSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameBrowser,
		BlockTypes:   []string{tools.NameBrowser},
		Description:  "Read a web page as text, or search the web.",
		Instructions: `Give a URL (http or https) to read the page's main text, with its links listed at the end as [n] URL; or "search" followed by words to search the web (only when the user configured a search engine) and read the results page. The user is asked before each page is fetched, unless its host is allowed: the URL leaves the machine, so never put secrets, file contents or tokens in it. Pages that need JavaScript show little or nothing.`,
		Parameters: []tools.Parameter{
			{Name: "url", Type: "string", Required: true, Description: `The page to read (an http or https URL), or "search" followed by the words to search the web for.`},
		},
		Requires:     "network access; search needs the searchUrl setting",
		LoadPriority: 30,
		Examples: []tools.Example{
			{Title: "Read a page", Steps: []tools.ExampleStep{
				tools.ExampleUser("what changed in Go 1.26?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameBrowser, "https://go.dev/doc/go1.26")),
				tools.ExampleSystem("Result of browser:\n# Go 1.26 Release Notes\n..."),
			}},
			{Title: "Search", Steps: []tools.ExampleStep{
				tools.ExampleUser("find the docs of x/image/draw"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameBrowser, "search golang.org/x/image/draw Scale")),
			}},
		},
	}
}

// Run reads a call: a URL, or "search" and words.
func (b *Browser) Run(ctx context.Context, use tools.ToolUse) (string, error) {
	arg := strings.TrimSpace(use.Content)
	if arg == "" && len(use.Args) > 0 {
		arg = strings.TrimSpace(strings.Join(use.Args, " "))
	}
	if s, ok := use.Kwargs["url"].(string); ok && arg == "" {
		arg = strings.TrimSpace(s)
	}
	if s, ok := use.Kwargs["search"].(string); ok && arg == "" {
		return b.Search(ctx, s)
	}
	if words, ok := strings.CutPrefix(arg, "search "); ok {
		return b.Search(ctx, words)
	}
	if arg == "" {
		return "", errors.New(`no URL given: write the page's http or https URL, or "search" and the words to search for`)
	}
	return b.Read(ctx, arg)
}

// Search reads the configured search engine's page for words.
func (b *Browser) Search(ctx context.Context, words string) (string, error) {
	words = strings.TrimSpace(words)
	if b.opts.SearchURL == "" {
		return "", errors.New("search is off: no search engine is configured (agentls ships none); read a page whose URL you know, or the user can set agentls.searchUrl to a URL with {query} where the words go")
	}
	if words == "" {
		return "", errors.New("no search words given: write search and the words")
	}
	return b.Read(ctx, strings.ReplaceAll(b.opts.SearchURL, "{query}", url.QueryEscape(words)))
}

// Read fetches a page, asking first unless its host is allowed, and
// returns its readable text.
func (b *Browser) Read(ctx context.Context, raw string) (string, error) {
	u, err := checkURL(raw)
	if err != nil {
		return "", err
	}
	if err := b.approve(ctx, u, ""); err != nil {
		return "", err
	}
	page, err := b.fetch(ctx, u)
	if err != nil {
		return "", err
	}
	return page.render(), nil
}

// Approve checks raw as Read does (http or https, with a host) and asks
// the user unless its host is allowed, for another tool that sends it
// out (screenshot): the URL, or why it may not be fetched.
func (b *Browser) Approve(ctx context.Context, raw string) (*url.URL, error) {
	u, err := checkURL(raw)
	if err != nil {
		return nil, err
	}
	return u, b.approve(ctx, u, "")
}

// checkURL parses a URL the tool may fetch: http or https, with a host.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	return u, checkParsed(u)
}

func checkParsed(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return fmt.Errorf("%q has no scheme: write the full URL, starting with https://", u.String())
	default:
		return fmt.Errorf("%s: URLs, are not read: the browser reads http and https pages only (files of the workspace: use read)", u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%q has no host", u.String())
	}
	return nil
}

// approve asks the user before u is fetched, unless its host is allowed.
// after, for a redirect, is the URL that sent there.
func (b *Browser) approve(ctx context.Context, u *url.URL, after string) error {
	host := strings.ToLower(u.Hostname())
	if b.allows(host) {
		return nil
	}
	reason := "reading a web page sends its URL, and anything in it, to " + host + "; hosts in agentls.browserAllowlist are read without asking"
	if after != "" {
		reason = after + " redirects to another host: " + reason
	}
	q := approval.Question{Action: "fetch " + u.String(), Reason: reason, Pattern: host, Detail: u.String()}
	err := approval.Gate{Confirmer: b.confirm, Memory: b.kept}.Ask(ctx, q)
	return approval.Say(err, func(r *approval.Refusal) string {
		switch r.Reason {
		case approval.NobodyToAsk:
			return fmt.Sprintf("fetching %s needs the user's approval, and nobody can be asked here: nothing was sent; the user can allow %s in agentls.browserAllowlist", u, u.Hostname())
		case approval.PolicyDenies:
			return fmt.Sprintf("fetching %s needs the user's approval, and the approval policy denies that without asking anyone (approvalPolicy: deny): nothing was sent; the user can allow %s in agentls.browserAllowlist", u, u.Hostname())
		case approval.TimedOut:
			return fmt.Sprintf("nobody answered in time whether to fetch %s: nothing was sent; do without it, or ask the user", u)
		}
		return fmt.Sprintf("the user declined to fetch %s: nothing was sent; do without it, or ask the user", u)
	})
}

// allows reports whether host is allowlisted or was allowed this turn.
func (b *Browser) allows(host string) bool {
	for _, g := range b.opts.Allowlist {
		if ok, _ := path.Match(strings.ToLower(g), host); ok {
			return true
		}
	}
	return b.kept.Allows(host)
}

// errRedirectRefused wraps the error that stopped a redirect, so that
// fetch reports it as it is.
type errRedirectRefused struct{ err error }

func (e errRedirectRefused) Error() string { return e.err.Error() }
func (e errRedirectRefused) Unwrap() error { return e.err }

// fetch gets u, following redirects that pass the checks, and reads at
// most MaxBodyBytes of the page.
func (b *Browser) fetch(ctx context.Context, u *url.URL) (*page, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, b.opts.Timeout, fmt.Errorf("the page did not arrive within %s (agentls.browserTimeout)", b.opts.Timeout))
	defer cancel()
	client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > MaxRedirects {
			return errRedirectRefused{fmt.Errorf("%s redirected more than %d times: not followed further", u, MaxRedirects)}
		}
		if err := checkParsed(req.URL); err != nil {
			return errRedirectRefused{fmt.Errorf("%s redirects to %s, which is not read: %w", via[len(via)-1].URL, req.URL, err)}
		}
		prev := via[len(via)-1].URL
		if strings.EqualFold(req.URL.Hostname(), prev.Hostname()) {
			return nil // the host the fetch was allowed to reach
		}
		if err := b.approve(req.Context(), req.URL, prev.String()); err != nil {
			return errRedirectRefused{err}
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	req.Header.Set("User-Agent", "agentls-browser (+https://github.com/agentls/agentls)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		var refused errRedirectRefused
		switch {
		case errors.As(err, &refused):
			return nil, refused.err
		case context.Cause(ctx) != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("fetch %s: %w", u, context.Cause(ctx))
		}
		return nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("fetch %s: the server answered %s", final, resp.Status)
	}
	ctype := resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(ctype)
	kind := pageKind(media)
	if kind == "" {
		return nil, fmt.Errorf("fetch %s: the page is %s, not text or HTML: the browser shows only text", final, ctype)
	}
	// LimitReader: what is past the bound is never read (the connection
	// is closed with it), however large the body is.
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fetch %s: %w", final, context.Cause(ctx))
		}
		return nil, fmt.Errorf("fetch %s: reading the page: %w", final, err)
	}
	clipped := len(body) > MaxBodyBytes
	if clipped {
		body = body[:MaxBodyBytes]
	}
	if r, err := charset.NewReader(strings.NewReader(string(body)), ctype); err == nil {
		if utf8, err := io.ReadAll(r); err == nil {
			body = utf8
		}
	}
	return &page{url: final, kind: kind, body: body, clipped: clipped}, nil
}

// pageKind says how a media type is shown: "html", "text", or "" (not).
func pageKind(media string) string {
	switch {
	case media == "text/html" || media == "application/xhtml+xml" || media == "":
		return "html"
	case strings.HasPrefix(media, "text/"), media == "application/json", strings.HasSuffix(media, "+json"),
		media == "application/xml", strings.HasSuffix(media, "+xml"), media == "application/javascript":
		return "text"
	}
	return ""
}
