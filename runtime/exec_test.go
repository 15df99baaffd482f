package runtime_test

import (
	"context"
	"encoding/json"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
)

func needShell(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// TestExecTool: the program gets the arguments as JSON on stdin; JSON
// output is a JSON result, other output text; a failure's message is its
// stderr; a slow program times out.
func TestExecTool(t *testing.T) {
	needShell(t)
	t.Setenv("OPENAI_API_KEY", "sk-should-not-reach-tools")
	ctx := context.Background()
	args := map[string]any{"personName": "Bob", "n": json.Number("2")}

	got, err := runtime.ExecTool("echo", "cat", 0).Invoke(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if raw, ok := got.(json.RawMessage); !ok || string(raw) != `{"n":2,"personName":"Bob"}` {
		t.Errorf("JSON result %#v", got)
	}

	got, err = runtime.ExecTool("greet", `printf 'Hi from %s, %s\n' "$GRAM_TOOL" "$(cat)"`, 0).Invoke(ctx, args)
	if err != nil || got != `Hi from greet, {"n":2,"personName":"Bob"}` {
		t.Errorf("text result %#v, %v", got, err)
	}

	got, err = runtime.ExecTool("env", `printf '%s' "${OPENAI_API_KEY:-unset}"`, 0).Invoke(ctx, args)
	if err != nil || got != "unset" {
		t.Errorf("the tool saw OPENAI_API_KEY: %#v %v", got, err)
	}

	_, err = runtime.ExecTool("bad", "echo 'no such order' >&2; exit 3", 0).Invoke(ctx, args)
	if err == nil || err.Error() != "no such order" {
		t.Errorf("failure: %v", err)
	}
	_, err = runtime.ExecTool("bad", "exit 4", 0).Invoke(ctx, args)
	if err == nil || !strings.Contains(err.Error(), "status 4") {
		t.Errorf("silent failure: %v", err)
	}

	start := time.Now()
	_, err = runtime.ExecTool("slow", "sleep 10", 100*time.Millisecond).Invoke(ctx, args)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 100ms") {
		t.Errorf("timeout: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the timeout took %v", d)
	}
}

// TestBuiltins checks the built-in tools.
func TestBuiltins(t *testing.T) {
	ctx := context.Background()
	if got, _ := runtime.SayHello().Invoke(ctx, map[string]any{"personName": "Ann"}); got != "Hello, Ann! Nice to meet you." {
		t.Errorf("sayHello: %v", got)
	}
	if got, _ := runtime.SayGoodbye().Invoke(ctx, map[string]any{}); got != "Goodbye, world! Have a wonderful day." {
		t.Errorf("sayGoodbye: %v", got)
	}
	now := func() time.Time { return time.Date(2025, 1, 27, 12, 0, 0, 0, time.UTC) }
	ct := runtime.CurrentTime(now)
	if got, _ := ct.Invoke(ctx, map[string]any{"timezone": "Asia/Tokyo"}); got != "2025-01-27T21:00:00+09:00" {
		t.Errorf("currentTime: %v", got)
	}
	if _, err := ct.Invoke(ctx, map[string]any{"timezone": "Mars/Olympus"}); err == nil {
		t.Error("unknown zone accepted")
	}
	if got := strings.Join(runtime.Builtins().Names(), ","); got != "currentTime,sayGoodbye,sayHello" {
		t.Errorf("builtins %s", got)
	}
	prog := compile(t, `
[currentTime:Tool {description: "Now"} | (timezone::String {optional: true})==>(::String)]
[sayGoodbye:Tool {description: "Bye"} | (personName::String {default: "world"})==>(::String)]
[c:Agent {model: "OpenAI/m", instruction: "i"} | currentTime, sayGoodbye]`)
	if _, err := runtime.Builtins().Bind(prog.Agents()[0].Tools); err != nil {
		t.Error(err)
	}
}

// TestExecToolOutputBounded: a program that writes without end (yes) or
// writes hundreds of megabytes is stopped once its output passes the result
// limit; the result is its first bytes and a note that it was cut, and the
// memory used stays near the limit, not the output's size.
func TestExecToolOutputBounded(t *testing.T) {
	needShell(t)
	for _, prog := range []string{"yes", "head -c 300000000 /dev/zero | tr '\\000' a"} {
		h := newHarness(t,
			fakeopenai.Calls(call("sayHello", `{"personName":"Bob"}`)),
			fakeopenai.Text("done"),
		)
		lib := runtime.Builtins()
		_ = lib.Register(runtime.ExecTool("sayHello", prog, time.Minute))
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		resp, err := h.run(t, compile(t, helloSrc).Agents()[0], lib, nil, "hi", runtime.WithResultLimit(16<<10))
		goruntime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", prog, err)
		}
		res, _ := resp.ToolsUsed[0].Result.(string)
		if !strings.Contains(res, "[output cut: the program wrote more than") || len(res) > 32<<10 {
			t.Errorf("%s: result of %d bytes ends %q", prog, len(res), res[max(0, len(res)-200):])
		}
		sent := fakeopenai.LastToolResult(h.srv.Requests()[1])
		if !strings.Contains(sent, "output cut") {
			t.Errorf("%s: the model was not told the output was cut: %.300q", prog, sent)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: %d MB allocated for a 16 KB result", prog, grew>>20)
		}
	}
}
