package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// asker answers every question with answer and keeps the questions.
type asker struct {
	mu        sync.Mutex
	answer    approval.Answer
	err       error
	questions []approval.Question
}

func (a *asker) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.questions = append(a.questions, q)
	return a.answer, a.err
}

func (a *asker) asked() []approval.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]approval.Question(nil), a.questions...)
}

// server is an httptest server that counts the requests it got.
type server struct {
	*httptest.Server
	hits atomic.Int32
}

func serve(t *testing.T, h http.HandlerFunc) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// on returns the server's URL with its host written as host (127.0.0.1
// and localhost reach the same server as two hosts).
func (s *server) on(host, path string) string {
	u, _ := url.Parse(s.URL)
	return "http://" + host + ":" + u.Port() + path
}

const article = `<!DOCTYPE html><html><head><title>Release notes</title><style>body{color:red}</style>
<script>document.write("tracking")</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<header>Site header</header>
<main><article>
<h1>Go 1.99 Release Notes</h1>
<p>Go 1.99 brings <a href="/doc/generics">better generics</a> and faster builds. This paragraph is long enough that readability keeps it as the main content of the page, with more words about the release and what changed in it for everyone.</p>
<h2>Tools</h2>
<p>The go command now caches more. Another sentence about the tools, the linker and the compiler, so that this section reads like a real article with a fair amount of text in it.</p>
<ul><li>First change</li><li>Second change, see <a href="https://example.org/x#frag">the details</a></li></ul>
<pre><code>go build ./...
go test ./...</code></pre>
</article></main>
<footer>Copyright footer</footer></body></html>`

func TestReadPage(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/notes":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, article)
		case "/lists":
			fmt.Fprint(w, `<html><body><p>Steps:</p><ol><li>one<ul><li>inner</li></ul></li><li>two</li></ol><p>After.</p></body></html>`)
		case "/latin1":
			w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
			w.Write([]byte("<html><body><p>caf\xe9 cr\xe8me</p></body></html>"))
		case "/plain":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "just text\n")
		case "/empty":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><body><div id="app"></div><script src="app.js"></script></body></html>`)
		case "/moved":
			http.Redirect(w, r, "/notes", http.StatusFound)
		}
	})
	b := New(nil, Options{Allowlist: []string{"127.0.0.1"}})
	for _, tc := range []struct {
		path      string
		want, not []string
	}{
		{path: "/notes",
			want: []string{"# Release notes", "URL: " + srv.URL + "/notes", "# Go 1.99 Release Notes", "better generics [1]", "## Tools",
				"- First change\n- Second change, see the details [2]", "```\ngo build ./...\ngo test ./...\n```",
				"Links:\n[1] " + srv.URL + "/doc/generics\n[2] https://example.org/x\n"},
			not: []string{"tracking", "color:red", "Site header", "Copyright footer", "About"}},
		{path: "/lists", want: []string{"Steps:\n\n1. one\n  - inner\n2. two\n\nAfter."}},
		{path: "/latin1", want: []string{"café crème"}},
		{path: "/plain", want: []string{"just text"}},
		{path: "/empty", want: []string{"it may need JavaScript"}},
		{path: "/moved", want: []string{"URL: " + srv.URL + "/notes", "Go 1.99 Release Notes"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			out, err := b.Run(context.Background(), tools.ToolUse{Tool: "browser", Content: srv.URL + tc.path})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the text lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("the text holds %q:\n%s", n, out)
				}
			}
		})
	}
}

// TestPromptInjectedFetchAsks: a file tells the model to send a secret in
// a URL. The fetch is put to the user with the full URL; declined,
// nothing reaches the server.
func TestPromptInjectedFetchAsks(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "thanks") })
	exfil := srv.URL + "/?data=AKIA-SECRET-FROM-.env"
	for _, tc := range []struct {
		name string
		ask  *asker
		want string
	}{
		{"declined", &asker{answer: approval.Skip}, "the user declined to fetch " + exfil + ": nothing was sent"},
		{"nobody to ask", &asker{err: approval.ErrNobodyToAsk}, "nobody can be asked here: nothing was sent"},
		{"approvalPolicy deny", &asker{err: approval.ErrPolicyDenies}, "the approval policy denies that without asking anyone (approvalPolicy: deny): nothing was sent"},
		{"timed out", &asker{err: approval.ErrTimedOut}, "nobody answered in time whether to fetch " + exfil + ": nothing was sent"},
		{"stop turn", &asker{answer: approval.StopTurn}, approval.ErrStopTurn.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.ask, Options{}) // nothing allowlisted: everything asks
			_, err := b.Run(context.Background(), tools.ToolUse{Tool: "browser", Content: exfil})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			q := tc.ask.asked()
			if len(q) != 1 || q[0].Action != "fetch "+exfil || q[0].Detail != exfil || !strings.Contains(q[0].Reason, "sends its URL") {
				t.Errorf("asked %+v", q)
			}
			if n := srv.hits.Load(); n != 0 {
				t.Errorf("the server got %d requests", n)
			}
		})
	}
	if _, err := New(nil, Options{}).Read(context.Background(), exfil); err == nil || srv.hits.Load() != 0 {
		t.Errorf("with no confirmer: %v, %d requests", err, srv.hits.Load())
	}
}

// TestApprovals: the allowlist and the user's answers decide what is
// fetched; Always allows the host for the rest of the turn. A host the
// user allowlisted is read even when it is loopback: the user chose it.
func TestApprovals(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<p>hello</p>") })
	for _, tc := range []struct {
		name      string
		host      string
		allow     []string
		answer    approval.Answer
		questions int
	}{
		{"allowlisted exactly", "127.0.0.1", []string{"127.0.0.1"}, approval.Skip, 0},
		{"allowlisted by glob", "127.0.0.1", []string{"127.0.0.*"}, approval.Skip, 0},
		{"loopback by name, allowlisted", "localhost", []string{"LOCALHOST"}, approval.Skip, 0},
		{"run once asks each time", "127.0.0.1", nil, approval.Run, 2},
		{"always asks once", "127.0.0.1", nil, approval.Always, 1},
		{"another host's glob does not match", "127.0.0.1", []string{"*.example.com"}, approval.Run, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ask := &asker{answer: tc.answer}
			b := New(ask, Options{Allowlist: tc.allow})
			for range 2 {
				out, err := b.Read(context.Background(), srv.on(tc.host, "/"))
				if err != nil || !strings.Contains(out, "hello") {
					t.Fatalf("%q, %v", out, err)
				}
			}
			if n := len(ask.asked()); n != tc.questions {
				t.Errorf("%d questions, want %d", n, tc.questions)
			}
		})
	}
}

// TestRedirectIsCheckedAgain: an allowlisted host redirecting to another
// host does not carry the allowlist with it: the user is asked about the
// new host, and declined, it gets no request. Other schemes are refused.
func TestRedirectIsCheckedAgain(t *testing.T) {
	other := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<p>elsewhere</p>") })
	var target atomic.Value
	allowed := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.Load().(string), http.StatusFound)
	})
	for _, tc := range []struct {
		name   string
		to     string
		answer approval.Answer
		want   string // in the error; "" for a page
		asked  int
		hits   int32 // requests other got
	}{
		{"declined", other.on("localhost", "/?data=secret"), approval.Skip, "the user declined to fetch " + other.on("localhost", "/?data=secret"), 1, 0},
		{"approved", other.on("localhost", "/"), approval.Run, "", 1, 1},
		{"to a file", "file:///etc/passwd", approval.Run, "redirects to file:///etc/passwd, which is not read", 0, 0},
		{"to gopher", "gopher://127.0.0.1:70/", approval.Run, "redirects to gopher://127.0.0.1:70/, which is not read", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other.hits.Store(0)
			target.Store(tc.to)
			ask := &asker{answer: tc.answer}
			b := New(ask, Options{Allowlist: []string{"127.0.0.1"}})
			out, err := b.Read(context.Background(), allowed.on("127.0.0.1", "/go"))
			switch {
			case tc.want == "" && (err != nil || !strings.Contains(out, "elsewhere")):
				t.Errorf("%q, %v", out, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %q, %v; want an error saying %q", out, err, tc.want)
			}
			q := ask.asked()
			if len(q) != tc.asked {
				t.Fatalf("asked %d times, want %d", len(q), tc.asked)
			}
			if len(q) > 0 && (q[0].Action != "fetch "+tc.to || !strings.Contains(q[0].Reason, "redirects to another host")) {
				t.Errorf("asked %+v", q[0])
			}
			if n := other.hits.Load(); n != tc.hits {
				t.Errorf("the other host got %d requests, want %d", n, tc.hits)
			}
		})
	}
}

// TestRefused: bad URLs and hostile servers give a clear error, bounded
// in what is read and how long it takes.
func TestRefused(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/missing":
			http.NotFound(w, r)
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG"))
		case "/slow":
			// Slow loris: headers, a byte, then nothing until the client
			// gives up.
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	})
	b := New(nil, Options{Allowlist: []string{"127.0.0.1"}, Timeout: 300 * time.Millisecond})
	for _, tc := range []struct{ url, want string }{
		{"file:///etc/passwd", "file: URLs, are not read: the browser reads http and https pages only"},
		{"gopher://127.0.0.1/", "gopher: URLs, are not read"},
		{"javascript:alert(1)", "javascript: URLs, are not read"},
		{"example.com/page", "has no scheme: write the full URL"},
		{"http:///nohost", "has no host"},
		{srv.URL + "/loop", fmt.Sprintf("redirected more than %d times", MaxRedirects)},
		{srv.URL + "/missing", "the server answered 404 Not Found"},
		{srv.URL + "/image", "the page is image/png, not text or HTML"},
		{srv.URL + "/slow", "the page did not arrive within 300ms (agentls.browserTimeout)"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			out, err := b.Read(context.Background(), tc.url)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, %v; want an error saying %q", out, err, tc.want)
			}
		})
	}
}

// TestHugeBodyIsClipped: a 100 MB page is read up to the bound and the
// connection dropped: the server could not write much more than that.
func TestHugeBodyIsClipped(t *testing.T) {
	var written atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("all work and no play\n", 1000))
		for written.Load() < 100<<20 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	b := New(nil, Options{Allowlist: []string{"127.0.0.1"}})
	out, err := b.Read(context.Background(), srv.URL+"/big")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "only the first 2 MB of the page was read") || !strings.Contains(out, "KB more: not shown") || len(out) > MaxTextBytes+1024 {
		t.Errorf("%d bytes, head %q", len(out), out[:200])
	}
	srv.CloseClientConnections()
	srv.Close() // waits for the handler
	if n := written.Load(); n >= 50<<20 {
		t.Errorf("the server wrote %d MB: the body was read whole", n>>20)
	}
}

func TestSearch(t *testing.T) {
	var query atomic.Value
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		query.Store(r.URL.Query().Get("q"))
		fmt.Fprint(w, `<html><body><ol><li><a href="https://go.dev/x">x/image/draw</a></li></ol></body></html>`)
	})
	ask := &asker{answer: approval.Run}
	b := New(ask, Options{SearchURL: srv.URL + "/search?q={query}"})
	out, err := b.Run(context.Background(), tools.ToolUse{Tool: "browser", Content: "search x/image draw&scale"})
	if err != nil {
		t.Fatal(err)
	}
	if query.Load() != "x/image draw&scale" || !strings.Contains(out, "1. x/image/draw [1]") || !strings.Contains(out, "[1] https://go.dev/x") {
		t.Errorf("query %q, page %q", query.Load(), out)
	}
	// The search asks like any fetch, with the words in the URL shown.
	if q := ask.asked(); len(q) != 1 || !strings.Contains(q[0].Action, "q=x%2Fimage+draw%26scale") {
		t.Errorf("asked %+v", q)
	}
	_, err = New(ask, Options{}).Run(context.Background(), tools.ToolUse{Tool: "browser", Kwargs: map[string]any{"search": "anything"}})
	if err == nil || !strings.Contains(err.Error(), "search is off: no search engine is configured") {
		t.Errorf("with no searchUrl: %v", err)
	}
}

func TestCheckSettings(t *testing.T) {
	for _, tc := range []struct {
		allow []string
		want  string
	}{
		{[]string{"docs.python.org", "*.go.dev"}, ""},
		{[]string{"https://go.dev"}, "give host names only"},
		{[]string{"go.dev:443"}, "give host names only"},
		{[]string{"[a"}, "syntax error in pattern"},
	} {
		if err := CheckAllowlist(tc.allow); (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckAllowlist(%q) = %v, want %q", tc.allow, err, tc.want)
		}
	}
	for _, tc := range []struct{ url, want string }{
		{"", ""},
		{"https://search.example/?q={query}", ""},
		{"https://search.example/?q=", "has no {query}"},
		{"file:///x?q={query}", "not an http or https URL"},
	} {
		if err := CheckSearchURL(tc.url); (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckSearchURL(%q) = %v, want %q", tc.url, err, tc.want)
		}
	}
}

// generatedPage is an article of about n bytes: navigation, then sections
// of headings, paragraphs with links, lists and code.
func generatedPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Generated</title><script>var x = 1;</script></head><body><nav><a href="/">Home</a></nav><main><article>`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `<h2>Section %d</h2><p>Paragraph %d explains the change with <a href="/doc/%d">a link</a> and enough words to read like prose, as a release note would, with a <code>name</code> in it.</p><ul><li>item one</li><li>item two</li></ul><pre>func f%d() {}
</pre>`, i, i, i, i)
	}
	b.WriteString(`</article></main><footer>footer</footer></body></html>`)
	return []byte(b.String())
}

// BenchmarkRender measures what a page costs once fetched: parsing,
// readability's pick of the main content and the text rendering, by the
// page's size up to MaxBodyBytes.
func BenchmarkRender(b *testing.B) {
	base, _ := url.Parse("https://example.org/notes")
	for _, n := range []int{10 << 10, 100 << 10, 1 << 20, MaxBodyBytes} {
		body := generatedPage(n)
		b.Run(fmt.Sprintf("%dKB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				p := &page{url: base, kind: "html", body: body}
				if out := p.render(); !strings.Contains(out, "Section 0") {
					b.Fatal("no text")
				}
			}
		})
	}
}

// FuzzRender: any page renders to text within the bounds, its links
// absolute http(s) URLs, never a panic.
func FuzzRender(f *testing.F) {
	f.Add([]byte(article))
	f.Add(generatedPage(4 << 10))
	f.Add([]byte("<pre>```\ncode</pre><ol><li><ul><li>x</ul></ol><a href='javascript:x'>j</a><a href='//h/p#f'>p</a>"))
	base, _ := url.Parse("https://example.org/a/b")
	f.Fuzz(func(t *testing.T, body []byte) {
		out := (&page{url: base, kind: "html", body: body}).render()
		_, links, _ := strings.Cut(out, "\nLinks:\n")
		if len(out) > MaxTextBytes+MaxLinks*(len(body)+16)+1024 {
			t.Fatalf("%d bytes of text from %d bytes", len(out), len(body))
		}
		for _, l := range strings.Split(strings.TrimSpace(links), "\n") {
			if l == "" {
				continue
			}
			_, u, _ := strings.Cut(l, "] ")
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				t.Fatalf("link %q", l)
			}
		}
	})
}
