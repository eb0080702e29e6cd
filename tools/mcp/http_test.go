package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/tools"
)

// TestStreamableHTTP: a url server is reached over streamable HTTP with
// the configured headers on every request, its progress lines come
// before its answer, and its session is not the turn's: a server started
// by a turn that ended serves the next turn.
func TestStreamableHTTP(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "whoami", Description: "Says who asked.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "you are " + req.Extra.Header.Get("Authorization")}}}, nil
		})
	server.AddTool(&sdk.Tool{Name: "progress", Description: "Reports progress, then answers.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "halfway"})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
		})
	var mu sync.Mutex
	var unauthorized int
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			mu.Lock()
			unauthorized++
			mu.Unlock()
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()

	m := NewManager(Options{})
	defer m.Close()
	cfg := Config{Servers: map[string]ServerConfig{"h": {URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer secret"}}}, Allowlist: []string{"h.*"}}
	for turn := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		ft := &fakeTurn{}
		reg, warnings, err := m.SelectTurn(ctx, cfg, empty(t), nil, false, ft.Turn())
		if err != nil || len(warnings) > 0 {
			t.Fatalf("turn %d: %v, %q", turn, err, warnings)
		}
		spec, ok := reg.Get("h.whoami")
		if !ok {
			t.Fatalf("turn %d: no h.whoami", turn)
		}
		got, err := spec.Run(ctx, tools.ToolUse{Tool: spec.Name})
		if err != nil || got != "you are Bearer secret" {
			t.Errorf("turn %d: %q, %v", turn, got, err)
		}
		spec, _ = reg.Get("h.progress")
		for call := range 10 {
			got, err := spec.Run(ctx, tools.ToolUse{Tool: spec.Name})
			ft.mu.Lock()
			progress := ft.progress
			ft.progress = nil
			ft.mu.Unlock()
			if err != nil || got != "done" || !slices.Equal(progress, []string{"h.progress: 1 halfway"}) {
				t.Errorf("turn %d, call %d: %q, %v, progress %q", turn, call, got, err, progress)
			}
		}
		cancel() // the turn ends
	}
	if st := m.Status(); len(st) != 1 || st[0].Restarts != 0 || st[0].Transport != "http" || strings.Contains(st[0].Target, "secret") {
		t.Errorf("status %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if unauthorized > 0 {
		t.Errorf("%d requests went without the configured headers", unauthorized)
	}
}

// TestSessionOutlivesTurn: the same for a stdio server.
func TestSessionOutlivesTurn(t *testing.T) {
	f := newFixture(t, nil)
	for turn := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		if got, err := f.call(t, ctx, "echo", `{"text": "x"}`); err != nil || got != "x" {
			t.Errorf("turn %d: %q, %v", turn, got, err)
		}
		cancel()
	}
	if st := f.m.Status(); st[0].Restarts != 0 {
		t.Errorf("the server was restarted between turns: %+v", st)
	}
}
