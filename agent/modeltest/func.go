package modeltest

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// NewFunc starts a server that answers each request with respond(req)
// instead of a fixed script: a model whose reply depends on what it is
// asked (the conversation so far, the tool results in it), as a demo
// needs when a person tries things in any order. respond may be called
// from several requests at once.
func NewFunc(respond func(Request) Reply) *Server {
	s := &Server{respond: respond}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Serve is NewFunc on the caller's listener, for a server that must be
// at an address chosen beforehand (a port the user gave). The server owns
// ln from then on: Close closes it.
func Serve(ln net.Listener, respond func(Request) Reply) *Server {
	s := &Server{respond: respond}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// The listener httptest made for itself is replaced before Start, as
	// its documentation allows.
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s
}
