package runtime_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gramlang/gram/runtime"
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
	if _, err := runtime.Builtins().Bind(prog.Agents[0].Tools); err != nil {
		t.Error(err)
	}
}
