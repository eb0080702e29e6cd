package screenshot

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
)

// holdLimit bounds how long the test page's load waits for its script to
// say it is done; it is a safety net for a browser that never says so,
// not a synchronisation (the page reports back as soon as ICE gathering
// and its other attempts end).
const holdLimit = 20 * time.Second

// TestScreenshotPageReachesOnlyItsOrigin is the attack on every transport a
// page script has besides HTTP: WebRTC's ICE (a STUN server and a TURN
// server over UDP, a TURN server over TCP), WebTransport (QUIC over UDP)
// and a WebSocket, all at other local ports the test listens on (stand-ins
// for any host:port a prompt-injected page would send what it read to).
// The listeners must receive nothing. The page's load is held until its
// script reports that its attempts ended, so the screenshot is taken after
// them.
func TestScreenshotPageReachesOnlyItsOrigin(t *testing.T) {
	needChromium(t)
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	var udpGot atomic.Int32
	udpDone := make(chan struct{})
	go func() {
		defer close(udpDone)
		buf := make([]byte, 2048)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			udpGot.Add(1)
		}
	}()
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	var tcpGot atomic.Int32
	tcpDone := make(chan struct{})
	go func() {
		defer close(tcpDone)
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			tcpGot.Add(1)
			c.Close()
		}
	}()
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	tcpPort := tcp.Addr().(*net.TCPAddr).Port

	done := make(chan string, 1)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/done":
			select {
			case done <- r.URL.Query().Get("what"):
			default:
			}
		case "/hold.png": // the page's load waits for this
			select {
			case what := <-done:
				done <- what
			case <-time.After(holdLimit):
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			fmt.Fprintf(w, transportPage, udpPort, tcpPort)
		}
	}))
	defer page.Close()

	ctx := tools.WithImageAttacher(context.Background(), &images{})
	if _, err := Take(ctx, &approver{}, page.URL+"/", Options{}); err != nil {
		t.Fatal(err)
	}
	var what string
	select {
	case what = <-done:
	default:
		t.Fatalf("the page's script did not report within %s", holdLimit)
	}
	t.Logf("the page reported: %s", what)
	// Chromium has exited: whatever it sent is queued on the sockets.
	// Reading them out is bounded by a deadline, as nothing more comes.
	udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	<-udpDone
	tcp.Close()
	<-tcpDone
	if n := udpGot.Load(); n != 0 {
		t.Errorf("the page's script sent %d UDP packets to 127.0.0.1:%d (WebRTC STUN/TURN or QUIC)", n, udpPort)
	}
	if n := tcpGot.Load(); n != 0 {
		t.Errorf("the page's script opened %d TCP connections to 127.0.0.1:%d (TURN over TCP, WebSocket)", n, tcpPort)
	}
	if !strings.Contains(what, "ice") {
		t.Errorf("the page's report %q does not say ICE gathering ended", what)
	}
}

// transportPage tries every non-HTTP way out, then reports to its own
// origin (/done) what happened; its image (/hold.png, after the script,
// which a stylesheet would block) holds the load
// until then.
const transportPage = `<html><body><h1>transports</h1><script>
const udp = %[1]d, tcp = %[2]d;
const seen = [];
const tries = [];
tries.push(new Promise((resolve) => {
  try {
    const pc = new RTCPeerConnection({iceServers: [
      {urls: "stun:127.0.0.1:" + udp},
      {urls: "turn:127.0.0.1:" + udp + "?transport=udp", username: "u", credential: "p"},
      {urls: "turn:127.0.0.1:" + tcp + "?transport=tcp", username: "u", credential: "p"},
    ]});
    pc.onicecandidate = (e) => { if (e.candidate) seen.push(e.candidate.type); };
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") resolve("ice complete"); };
    pc.createDataChannel("x");
    pc.createOffer().then((o) => pc.setLocalDescription(o)).catch((e) => resolve("ice error " + e));
    setTimeout(() => resolve("ice timeout"), 15000);
  } catch (e) { resolve("ice error " + e); }
}));
tries.push(new Promise((resolve) => {
  try {
    const wt = new WebTransport("https://127.0.0.1:" + udp + "/");
    wt.ready.then(() => resolve("webtransport open"), (e) => resolve("webtransport refused"));
    setTimeout(() => resolve("webtransport timeout"), 15000);
  } catch (e) { resolve("webtransport error " + e); }
}));
tries.push(new Promise((resolve) => {
  try {
    const ws = new WebSocket("ws://127.0.0.1:" + tcp + "/");
    ws.onopen = () => resolve("websocket open");
    ws.onerror = () => resolve("websocket refused");
    setTimeout(() => resolve("websocket timeout"), 15000);
  } catch (e) { resolve("websocket error " + e); }
}));
Promise.all(tries).then((r) => fetch("/done?what=" + encodeURIComponent(r.join(", ") + "; candidates: " + seen.join(" "))));
</script><img src="/hold.png"></body></html>`

// TestMain lets CI insist on Chromium (AGENTLS_REQUIRE_CHROMIUM), so the
// screenshot tests cannot pass by skipping there.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTLS_REQUIRE_CHROMIUM") != "" && !Available() {
		fmt.Fprintln(os.Stderr, "AGENTLS_REQUIRE_CHROMIUM is set, but Chromium is not installed")
		os.Exit(1)
	}
	os.Exit(m.Run())
}
