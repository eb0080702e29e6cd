// Package xvfbtest starts a private X server (Xvfb) for tests that act on
// a real screen: the computer tool's, and the agent turns that use it.
package xvfbtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Width and Height are the test screen's size.
const (
	Width  = 1024
	Height = 768
)

// Need skips the test, saying what to install, when Xvfb or xdotool is
// missing; with AGENTLS_REQUIRE_X11=1 (CI) it fails it instead.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range append([]string{"Xvfb", "xdotool"}, programs...) {
		if _, err := exec.LookPath(p); err != nil {
			msg := fmt.Sprintf("%s is not installed (Debian: apt install xvfb xdotool imagemagick xterm x11-utils): the X11 tests need it", p)
			if os.Getenv("AGENTLS_REQUIRE_X11") == "1" {
				t.Fatal(msg + "; AGENTLS_REQUIRE_X11=1 makes this a failure")
			}
			t.Skip(msg)
		}
	}
}

// Start runs Xvfb on a free display, which it picks itself
// (-displayfd), and returns the display (":N"); the server is killed when
// the test ends. It calls Need first.
func Start(t testing.TB, programs ...string) string {
	t.Helper()
	Need(t, programs...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// fd 3 in the child is ExtraFiles[0]; -nolisten tcp keeps the server
	// off the network.
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", Width, Height), "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb did not say its display (%v): %s", err, stderr.String())
	}
	return ":" + strings.TrimSpace(line)
}

// WaitFor polls cond every few milliseconds until it holds, failing the
// test with what after a minute (a generous bound for a loaded machine:
// it is never reached when the condition comes).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
