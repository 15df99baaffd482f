//go:build unix

package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

var mcpScale = flag.Int("mcpscale", 5000, "the smallest number of tools of BenchmarkMCPScale")

// scaleAgent uses one tool of a server with many tools.
const scaleAgent = `[tool_1:Tool {description: "Tool number 1"} | (query::String)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Use tool_1."} | tool_1]
`

// BenchmarkMCPScale runs gramc mcp import, and gramc run for an agent that
// uses one tool, against a server (streamable HTTP, in process) with n, 2n,
// 4n and 8n tools (n is -mcpscale), and reports the time and memory
// allocated at each size, and each size's CPU time (of the process: client,
// server and garbage collector) over the previous one's: about 2 where the
// work grows linearly. The CPU time is steadier than the wall time on a
// loaded machine.
func BenchmarkMCPScale(b *testing.B) {
	n := *mcpScale
	sizes := []int{n, 2 * n, 4 * n, 8 * n}
	urls := make([]string, len(sizes))
	for i, size := range sizes {
		srv := mcptest.NewServer(mcptest.Options{Many: size})
		hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.MCP }, nil))
		b.Cleanup(hs.Close)
		urls[i] = hs.URL
	}
	model := fakeopenai.New(b)
	b.Setenv("OPENAI_API_KEY", fakeKey)
	file := filepath.Join(b.TempDir(), "a.gram")
	if err := os.WriteFile(file, []byte(scaleAgent), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, cmd := range []string{"import", "run"} {
		b.Run(cmd, func(b *testing.B) {
			took := make([]time.Duration, len(sizes))
			cpu := make([]time.Duration, len(sizes))
			alloc := make([]uint64, len(sizes))
			for b.Loop() {
				for i, url := range urls {
					args := []string{"mcp", "import", "--mcp-url", url}
					if cmd == "run" {
						model.Push(fakeopenai.Text("ok"))
						args = []string{"run", file, "--mcp-url", url, "--base-url", model.URL, "-m", "hi"}
					}
					var before, after goruntime.MemStats
					goruntime.ReadMemStats(&before)
					start, startCPU := time.Now(), cpuTime(b)
					var stderr strings.Builder
					if code := Main(args, nil, io.Discard, &stderr); code != exitOK {
						b.Fatalf("gramc %s with %d tools: exit %d: %s", cmd, sizes[i], code, stderr.String())
					}
					took[i] += time.Since(start)
					cpu[i] += cpuTime(b) - startCPU
					goruntime.ReadMemStats(&after)
					alloc[i] += after.TotalAlloc - before.TotalAlloc
				}
			}
			var report strings.Builder
			for i, size := range sizes {
				fmt.Fprintf(&report, "\n%7d tools: %8v (CPU %8v) %6d MB allocated", size, (took[i] / time.Duration(b.N)).Round(time.Millisecond),
					(cpu[i] / time.Duration(b.N)).Round(time.Millisecond), alloc[i]/uint64(b.N)>>20)
				if i > 0 {
					ratio := float64(cpu[i]) / float64(cpu[i-1])
					fmt.Fprintf(&report, "  ×%.2f", ratio)
					b.ReportMetric(ratio, fmt.Sprintf("ratio-%dn/%dn", 1<<i, 1<<(i-1)))
				}
			}
			b.Logf("gramc %s, per run:%s", cmd, report.String())
		})
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
