package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary, run with serverEnv set, is an MCP server over stdio
// (TestMain): a real process on real pipes, made with the SDK.
const (
	serverEnv  = "AGENTLS_MCP_TEST_SERVER"
	markerEnv  = "AGENTLS_MCP_TEST_MARKERS" // where the server leaves marks for the test
	goodbyeEnv = "AGENTLS_MCP_TEST_GOODBYE" // write to stdout once stdin closes
)

// runTestServer serves the test tools until stdin closes.
func runTestServer() int {
	markers := os.Getenv(markerEnv)
	mark := func(name, content string) {
		if markers != "" {
			os.WriteFile(filepath.Join(markers, name), []byte(content), 0o644)
		}
	}
	mark(fmt.Sprintf("started-%d", os.Getpid()), "")
	s := sdk.NewServer(&sdk.Implementation{Name: "agentls-test", Version: "1"}, nil)
	textSchema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["text"]}`)
	empty := json.RawMessage(`{"type":"object"}`)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	args := func(req *sdk.CallToolRequest) map[string]any {
		var m map[string]any
		json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text back.\nSecond line of help.", InputSchema: textSchema,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			a := args(req)
			out := fmt.Sprint(a["text"])
			if n, ok := a["n"].(float64); ok {
				out += fmt.Sprintf(" n=%d", int(n))
			}
			return text(out), nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Always fails.", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r := text("disk on fire")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits mid-call.", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers; marks its cancellation.", InputSchema: empty},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			mark("hanging", "")
			<-ctx.Done()
			mark("cancelled", ctx.Err().Error())
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "garbage", Description: "Writes what is not JSON-RPC on stdout.", InputSchema: empty},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Stdout.WriteString("\x00\x01 this is not JSON {{{\n")
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "badprogress", Description: "Writes two progress notifications the SDK drops, then a good one, then answers.", InputSchema: empty},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			token, _ := json.Marshal(req.Params.GetProgressToken())
			for _, params := range []string{`{"ProgressToken":` + string(token) + `,"progress":1,"message":"wrong case"}`,
				`{"progressToken":` + string(token) + `,"progress":"half","message":"not a number"}`,
				`{"progressToken":` + string(token) + `,"progress":3,"message":"good"}`} {
				os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/progress","params":` + params + "}\n")
			}
			return text("done"), nil
		})
	s.AddTool(&sdk.Tool{Name: "big", Description: "Returns 10 MB.", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Repeat("0123456789abcdef", 10<<20/16)), nil
		})
	s.AddTool(&sdk.Tool{Name: "image", Description: "Returns text and an image.", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a chart:"}, &sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG....")}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "progress", Description: "Reports progress, then answers.", InputSchema: empty},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2, Message: fmt.Sprintf("step %d", i)})
			}
			return text("done"), nil
		})
	s.AddTool(&sdk.Tool{Name: "spawn", Description: "Starts a child that would outlive the server; returns its pid.", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			return text(strconv.Itoa(cmd.Process.Pid)), nil
		})
	s.AddTool(&sdk.Tool{Name: "grow", Description: "Adds the tool late, which the server announces (tools/list_changed).", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "late", Description: "Came later.", InputSchema: empty},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return text("late but here"), nil
				})
			return text("grown"), nil
		})
	s.AddTool(&sdk.Tool{Name: "bad name!", Description: "Cannot be called in a fenced block.", InputSchema: empty},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("?"), nil })
	err := s.Run(context.Background(), &sdk.StdioTransport{})
	if os.Getenv(goodbyeEnv) == "1" {
		// Like a Node server that writes a last message as its stdin
		// closes: a write to a stdout nobody reads any more is EPIPE, which
		// Node reports with a stack trace on stderr.
		signal.Ignore(syscall.SIGPIPE)
		if _, werr := os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}` + "\n"); werr != nil {
			mark("epipe", werr.Error())
			fmt.Fprintln(os.Stderr, "Error: write EPIPE")
			return 1
		}
		mark("goodbye", "")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		return 1
	}
	return 0
}
