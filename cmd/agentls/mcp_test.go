package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpTestServer is the scripts' MCP server (agentls-test-mcp, see
// TestMain): a real stdio server made with the SDK, with one read-only
// tool that echoes its text.
func mcpTestServer() {
	s := sdk.NewServer(&sdk.Implementation{Name: "agentls-test-mcp", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args struct{ Text string }
			json.Unmarshal(req.Params.Arguments, &args)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: args.Text}}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "agentls-test-mcp:", err)
		os.Exit(1)
	}
}
