package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

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
	if !isTerminal(e.stdin) || !isTerminal(e.stderr) {
		return func(_ context.Context, el mcp.Elicitation) (mcp.ElicitAnswer, error) {
			fmt.Fprintf(e.stderr, "gramc run: the MCP server %s asks a question, declined: it can only be answered on a terminal (standard input and standard error); its message: %s\n",
				el.Server, diag.Visible(clip(strings.Join(strings.Fields(el.Message), " "), 300)))
			return mcp.ElicitAnswer{Action: mcp.ElicitDecline}, nil
		}
	}
	ask := mcp.TerminalElicitor(e.stdin, e.stderr)
	return func(ctx context.Context, el mcp.Elicitation) (mcp.ElicitAnswer, error) {
		shown.Add(1)
		return ask(ctx, el)
	}
}

// isTerminal reports whether x is a terminal (a character device other
// than the null device).
func isTerminal(x any) bool {
	for {
		u, ok := x.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	f, ok := x.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}

// promptCount returns how many elicitation prompts the terminal has shown
// (0 when there is none to show them).
func (o *runOptions) promptCount() int64 {
	if o.prompts == nil {
		return 0
	}
	return o.prompts.Load()
}
