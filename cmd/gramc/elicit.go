package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/gramlang/gram/console"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime/mcp"
)

// terminalElicitor returns what answers the MCP servers' elicitation
// requests (the client then declares the capability): on a terminal
// (standard input and standard error), a prompt there, each counted in
// shown (the live output then leaves the lines above it as they are);
// otherwise a refusal, a decline noted on standard error, as no person can
// be asked.
func terminalElicitor(e *env, shown *atomic.Int64) mcp.Elicitor {
	if !diag.IsTerminal(e.stdin) || !diag.IsTerminal(e.stderr) {
		return func(_ context.Context, el mcp.Elicitation) (mcp.ElicitAnswer, error) {
			fmt.Fprintf(e.stderr, "gramc run: the MCP server %s asks a question, declined: it can only be answered on a terminal (standard input and standard error); its message: %s\n",
				el.Server, diag.Visible(console.Clip(strings.Join(strings.Fields(el.Message), " "), 300)))
			return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, nil
		}
	}
	ask := mcp.TerminalElicitor(e.stdin, e.stderr)
	return func(ctx context.Context, el mcp.Elicitation) (mcp.ElicitAnswer, error) {
		shown.Add(1)
		return ask(ctx, el)
	}
}
