//go:build linux

package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime"
)

// TestSubRunCancel: cancelling the top run cancels its sub-agent's run and
// kills the program of the tool call in progress.
func TestSubRunCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	worker := treeAgent("worker", "Work.", libTool("slow"))
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	lib := runtime.NewLibrary(runtime.ExecTool("slow", "echo $$ > "+pidFile+"; exec sleep 60", time.Minute))
	m := runtime.NewScripted(
		runtime.CallReply(runtime.Call("worker", `{"message":"go"}`)),
		runtime.CallReply(runtime.Call("slow", `{"q":"x"}`)),
	)
	m.Respond = func(*runtime.Request) (*runtime.Reply, error) { return runtime.TextReply("done"), nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runtime.Run(ctx, boss, lib, nil, "go", runtime.WithModel(m), runtime.WithProgram(program(boss, worker)), runtime.WithLogger(discard()))
		done <- err
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the tool program did not start")
		}
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the run ended with %v; want the context's cancellation", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end after its context was cancelled")
	}
	if alive(pid) {
		t.Errorf("the tool program (pid %d) still runs after the top run was cancelled", pid)
	}
}

// alive reports whether the process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestSubRunToolTrace: what a nested run's program writes on standard
// error is traced under a line naming the agents of the run.
func TestSubRunToolTrace(t *testing.T) {
	worker := treeAgent("worker", "Work.", libTool("noisy"))
	boss := treeAgent("boss", "Delegate.", worker.AsTool)
	lib := runtime.NewLibrary(runtime.ExecTool("noisy", "echo working >&2; echo ok", time.Minute))
	m := runtime.NewScripted(
		runtime.CallReply(runtime.ToolCall{ID: "c1", Name: "worker", Arguments: `{"message":"go"}`}),
		runtime.CallReply(runtime.ToolCall{ID: "c2", Name: "noisy", Arguments: `{"q":"x"}`}),
		runtime.TextReply("worked"),
		runtime.TextReply("done"),
	)
	var trace bytes.Buffer
	if _, err := runtime.Run(context.Background(), boss, lib, nil, "go", runtime.WithModel(m), runtime.WithProgram(program(boss, worker)),
		runtime.WithToolTrace(&trace), runtime.WithLogger(discard())); err != nil {
		t.Fatal(err)
	}
	if want := "--- tool noisy (call c2) of boss > worker: standard error\nworking\n"; !strings.Contains(trace.String(), want) {
		t.Errorf("trace:\n%s\nwant %q", trace.String(), want)
	}
}
