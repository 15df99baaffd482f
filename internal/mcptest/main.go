package mcptest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs the task server over standard input and output until the
// client closes standard input or a signal arrives, and returns the exit
// code. Flags: -extra adds the echo and schedule tools, -crash the crash
// tool (the process exits with status 3 when it is called), -many N the
// tools tool_1 to tool_N.
func Main(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp-demo-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	extra := fs.Bool("extra", false, "add the echo and schedule tools")
	crash := fs.Bool("crash", false, "add the crash tool, which makes the server exit")
	many := fs.Int("many", 0, "add `N` tools, tool_1 to tool_N")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := Options{Extra: *extra, Many: *many}
	if *crash {
		opts.Crash = func() {
			fmt.Fprintln(stderr, "mcp-demo-server: crashing on request")
			os.Exit(3)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintln(stderr, "mcp-demo-server: serving on standard input and output")
	err := NewServer(opts).MCP.Run(ctx, &mcp.StdioTransport{})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "mcp-demo-server: %v\n", err)
		return 1
	}
	fmt.Fprintln(stderr, "mcp-demo-server: stopped")
	return 0
}
