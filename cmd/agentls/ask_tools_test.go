package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// askWithTools sets up agentls ask with the user's settings file naming
// view_image and browser (127.0.0.1 allowlisted) and returns the
// workspace.
func askWithTools(t *testing.T) string {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
	os.WriteFile(filepath.Join(config, "agentls", "settings.json"), []byte(`{"tools": ["read", "view_image", "browser"], "browserAllowlist": ["127.0.0.1"]}`), 0o644)
	return t.TempDir()
}

// TestAskViewImage: the model looks at an image; agentls ask says it was
// sent, and the model's next request carries it.
func TestAskViewImage(t *testing.T) {
	dir := askWithTools(t)
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)))
	os.WriteFile(filepath.Join(dir, "a.png"), b.Bytes(), 0o644)
	srv := modeltest.New(modeltest.Text("```view_image a.png\n```\n", 7), modeltest.Text("A gray square.", 9))
	defer srv.Close()
	_, stderr, code := runCLI(t, "", "ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "what is a.png?")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	if !strings.Contains(stderr, "[agentls] (image a.png, 8×8, sent)") {
		t.Errorf("stderr does not say the image was sent: %q", stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Body.Messages[3].Images) != 1 || !strings.HasPrefix(reqs[1].Body.Messages[3].Images[0], "data:image/png;base64,") {
		t.Errorf("the second request does not carry the image: %+v", reqs)
	}
}

// TestAskBrowser: an allowlisted page is read; a page on another host
// needs the user, and with nobody at a terminal to ask it gets no request.
func TestAskBrowser(t *testing.T) {
	dir := askWithTools(t)
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<p>The answer is 42.</p>")
	}))
	defer page.Close()
	u, _ := url.Parse(page.URL)
	for _, tc := range []struct {
		host, want string
		hits       int32
	}{
		{"127.0.0.1", "The answer is 42.", 1},
		{"localhost", "needs the user's approval, and nobody can be asked here: nothing was sent", 0},
	} {
		t.Run(tc.host, func(t *testing.T) {
			hits.Store(0)
			srv := modeltest.New(modeltest.Text("```browser\nhttp://"+tc.host+":"+u.Port()+"/\n```\n", 7), modeltest.Text("done", 9))
			defer srv.Close()
			_, stderr, code := runCLI(t, "", "ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "read it")
			if code != exitOK {
				t.Fatalf("exit %d\nstderr: %s", code, stderr)
			}
			if got := srv.Requests()[1].Body.Messages[3].Content; !strings.Contains(got, tc.want) {
				t.Errorf("the model was told %q, want %q", got, tc.want)
			}
			if n := hits.Load(); n != tc.hits {
				t.Errorf("the page got %d requests, want %d", n, tc.hits)
			}
		})
	}
}
