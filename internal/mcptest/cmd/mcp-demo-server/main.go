// Command mcp-demo-server is a small Model Context Protocol server over
// standard input and output: a task list per user (add_task, list_tasks,
// complete_task), for trying gramc mcp import and gramc run --mcp.
//
//	mcp-demo-server [-extra] [-crash] [-many N]
package main

import (
	"os"

	"github.com/gramlang/gram/internal/mcptest"
)

func main() {
	os.Exit(mcptest.Main(os.Args[1:], os.Stderr))
}
