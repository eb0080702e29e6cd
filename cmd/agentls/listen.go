package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Who may connect to `agentls serve --listen` (README "Security"): a
// client drives the server as the user who started it — its settings are
// the editor's, fully trusted, and its commands run as that user — so
// only that user may. On a Unix socket the kernel says who connects: the
// socket is the user's alone (mode 0600) and each peer's uid is checked.
// On TCP anyone on the machine can connect, so the connection must first
// present a secret written at start to a file only the user can read
// (lsp.Options.Token), and only loopback is served unless a loudly named
// flag asks for every interface.

// anyInterfaceFlag is the flag that lets --listen take an address off
// this machine: named so that no one passes it by accident.
const anyInterfaceFlag = "listen-insecure-any-interface"

// A listenTarget is where --listen serves.
type listenTarget struct {
	network string // "unix" or "tcp"
	address string // the socket's path, or host:port
}

// parseListen reads --listen: unix:PATH, or HOST:PORT on loopback
// (localhost is 127.0.0.1). Another host, or none (":PORT", every
// interface), is refused unless anyInterface.
func parseListen(value string, anyInterface bool) (listenTarget, error) {
	if path, ok := strings.CutPrefix(value, "unix:"); ok {
		if path == "" {
			return listenTarget{}, fmt.Errorf("--listen unix:PATH needs a path, such as unix:$XDG_RUNTIME_DIR/agentls.sock")
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return listenTarget{}, fmt.Errorf("--listen %s: %w", value, err)
		}
		return listenTarget{network: "unix", address: abs}, nil
	}
	host, port, err := net.SplitHostPort(value)
	if err != nil {
		return listenTarget{}, fmt.Errorf("--listen %s: %w (give 127.0.0.1:PORT, or unix:PATH)", value, err)
	}
	if host == "localhost" {
		// Not whatever the resolver says localhost is.
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && !anyInterface {
		where := "host " + host
		if host == "" || (ip != nil && ip.IsUnspecified()) {
			where = "every network interface"
		}
		return listenTarget{}, fmt.Errorf("--listen %s would listen on %s, where other machines can connect and drive agentls as you: give 127.0.0.1:%s (or unix:PATH); if you mean it, add --%s (a client must still present the token)",
			value, where, port, anyInterfaceFlag)
	}
	return listenTarget{network: "tcp", address: net.JoinHostPort(host, port)}, nil
}

// tokenFile writes a new secret for the server on port to a file only
// the user can read, in the state folder
// ($XDG_STATE_HOME/agentls/serve/PORT.token), and returns the file and
// the secret. The caller removes the file when the server stops.
func tokenFile(getenv func(string) string, port int) (path, token string, err error) {
	state := getenv("XDG_STATE_HOME")
	if state == "" {
		home := getenv("HOME")
		if home == "" {
			return "", "", fmt.Errorf("the token file: neither XDG_STATE_HOME nor HOME is set")
		}
		state = filepath.Join(home, ".local", "state")
	}
	dir := filepath.Join(state, "agentls", "serve")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("the token file: %w", err)
	}
	token = rand.Text()
	path = filepath.Join(dir, strconv.Itoa(port)+".token")
	// A fresh file (O_EXCL, 0600) renamed over the last one: the token is
	// never in a file someone else could have opened first.
	tmp, err := os.CreateTemp(dir, ".token-")
	if err != nil {
		return "", "", fmt.Errorf("the token file: %w", err)
	}
	_, werr := tmp.WriteString(token + "\n")
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", "", fmt.Errorf("the token file: %w", werr)
	}
	return path, token, nil
}

// removeTokenFile removes the token file if it still holds token (another
// server may have taken the port, and the file, since).
func removeTokenFile(path, token string) {
	if data, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(data)) == token {
		os.Remove(path)
	}
}

// listenUnix listens on a Unix socket at path that only this user can
// connect to: created with mode 0600 in a private folder, then moved to
// path. A path that exists is replaced only when it is a socket of this
// user's that nothing answers on (a server that died); anything else is
// left alone and refused.
func listenUnix(path string) (*unixListener, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	case fi.Mode().Type() != fs.ModeSocket:
		return nil, fmt.Errorf("--listen unix:%s: the path exists and is not a socket: it is left alone (give a new path)", path)
	case !ownedByUs(fi):
		return nil, fmt.Errorf("--listen unix:%s: the socket there belongs to another user: it is left alone (give another path)", path)
	default:
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("--listen unix:%s: a server already listens there", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("--listen unix:%s: remove the stale socket: %w", path, err)
		}
	}
	// The socket is made in a folder only we can enter, so no one can
	// connect between its creation and the chmod; the rename then puts
	// it at path whole. (A umask would change the whole process's.)
	private, err := os.MkdirTemp(filepath.Dir(path), ".agentls-")
	if err != nil {
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	defer os.RemoveAll(private)
	tmp := filepath.Join(private, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // the path it would unlink is tmp's
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	made, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("--listen unix:%s: %w", path, err)
	}
	return &unixListener{UnixListener: ln, path: path, made: made, uid: os.Getuid()}, nil
}

func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// A unixListener accepts only peers whose uid is uid (the kernel's word:
// SO_PEERCRED, or LOCAL_PEERCRED), whatever the socket's mode lets
// through; others get one line and are closed.
type unixListener struct {
	*net.UnixListener
	path string
	made fs.FileInfo // the socket as made, so Close removes only it
	uid  int
	// refused, if set, is told of each peer refused (for the log).
	refused func(error)
}

func (l *unixListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.UnixListener.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if err := checkPeer(conn, l.uid); err != nil {
			fmt.Fprintf(conn, "agentls: refused: %v\n", err)
			conn.Close()
			if l.refused != nil {
				l.refused(err)
			}
			continue
		}
		return conn, nil
	}
}

// Close stops listening and removes the socket, unless another took its
// path since.
func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	if now, serr := os.Lstat(l.path); serr == nil && os.SameFile(now, l.made) {
		os.Remove(l.path)
	}
	return err
}

// checkPeer says why conn's peer may not use the server: not the user
// uid, or a peer the system cannot name.
func checkPeer(conn *net.UnixConn, uid int) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("the connecting user cannot be checked: %w", err)
	}
	peer := -1
	var perr error
	if err := raw.Control(func(fd uintptr) { peer, perr = peerUID(int(fd)) }); err != nil {
		return fmt.Errorf("the connecting user cannot be checked: %w", err)
	}
	if perr != nil {
		return fmt.Errorf("the connecting user cannot be checked: %w", perr)
	}
	if peer != uid {
		return fmt.Errorf("this server answers only uid %d (who started it); uid %d connected", uid, peer)
	}
	return nil
}
