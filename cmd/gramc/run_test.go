package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/runtime/replay"
)

// demoKey is the key the recordings are made with; it never reaches them.
const demoKey = "sk-demo-not-a-real-key-0000"

// replayFixture is a recording made by running gramc against the
// in-process fake OpenAI server.
type replayFixture struct {
	// file is the recording's path, or the txtar archive holding it as
	// member.
	file, member string
	// gram is the agent file: a path, or a member of the archive.
	gram string
	// args follow the agent file; $DIR is the directory the archive's
	// other members are written to.
	args []string
	// steps script the server.
	steps func() []fakeopenai.Step
}

// withResult answers with the last tool result wrapped in text.
func withResult(format string) fakeopenai.Step {
	return fakeopenai.Textf(func(req *fakeopenai.Request) string {
		return fmt.Sprintf(format, fakeopenai.LastToolResult(req))
	})
}

var helloSteps = func() []fakeopenai.Step {
	return []fakeopenai.Step{
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		withResult("%s How can I help you today?"),
	}
}

var replayFixtures = []replayFixture{
	{file: "../../examples/hello.replay.json", gram: "../../examples/hello.gram",
		args: []string{"-m", "Hi, I'm Bob"}, steps: helloSteps},
	{file: "testdata/script/run.txtar", member: "multi.replay.json", gram: "hello.gram",
		args:  []string{"-m", "Hi, I'm Bob", "-m", "Thanks, bye!"},
		steps: func() []fakeopenai.Step { return append(helloSteps(), fakeopenai.Text("Goodbye, Bob!")) }},
	{file: "testdata/script/run_exec.txtar", member: "exec.replay.json", gram: "exec.gram",
		args: []string{"-m", "Hi, I'm Bob", "--tool", "sayHello=sh $DIR/greet.sh"},
		steps: func() []fakeopenai.Step {
			return []fakeopenai.Step{
				fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
				withResult("The tool said: %s"),
			}
		}},
	{file: "testdata/script/run_exec.txtar", member: "fail.replay.json", gram: "exec.gram",
		args: []string{"-m", "Hi, I'm Bob", "--tool", "sayHello=sh $DIR/fail.sh"},
		steps: func() []fakeopenai.Step {
			return []fakeopenai.Step{
				fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
				fakeopenai.Text("Sorry, the greeting failed."),
			}
		}},
}

// record runs gramc with --record against a fake server and returns the
// recording.
func (fx replayFixture) record(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	gram := fx.gram
	if fx.member != "" {
		ar, err := txtar.ParseFile(fx.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.Name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gram = filepath.Join(dir, fx.gram)
	}
	srv := fakeopenai.New(t, fx.steps()...)
	srv.APIKey = demoKey
	t.Setenv("OPENAI_API_KEY", demoKey)
	out := filepath.Join(dir, "recording.json")
	args := []string{"run", gram, "--record", out, "--base-url", srv.URL}
	for _, a := range fx.args {
		args = append(args, strings.ReplaceAll(a, "$DIR", dir))
	}
	var stdout, stderr bytes.Buffer
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("gramc %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	if srv.Pending() != 0 {
		t.Fatalf("%d scripted responses unused", srv.Pending())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(demoKey)) {
		t.Fatal("the recording contains the key")
	}
	return b
}

// TestReplayFiles re-records every recording the scripts and the demo
// replay and checks that the committed ones are identical, so they keep
// matching the requests gramc makes; it also checks that the copies of the
// example files in run.txtar are up to date. With -update it rewrites them
// all: go test ./cmd/gramc -run TestReplayFiles -update
func TestReplayFiles(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the exec tools")
	}
	copies := map[string]string{"hello.gram": "../../examples/hello.gram", "hello.replay.json": "../../examples/hello.replay.json"}
	for _, fx := range replayFixtures {
		name := filepath.Base(fx.file)
		if fx.member != "" {
			name += "/" + fx.member
		}
		t.Run(name, func(t *testing.T) {
			if fx.member == "" {
				got := fx.record(t)
				want, _ := os.ReadFile(fx.file)
				if *update {
					if err := os.WriteFile(fx.file, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s is out of date; run go test ./cmd/gramc -run TestReplayFiles -update", fx.file)
				}
				return
			}
			ar, err := txtar.ParseFile(fx.file)
			if err != nil {
				t.Fatal(err)
			}
			if *update && strings.HasSuffix(fx.file, "/run.txtar") {
				for member, src := range copies {
					b, err := os.ReadFile(src)
					if err != nil {
						t.Fatal(err)
					}
					setMember(ar, member, b)
				}
				if err := os.WriteFile(fx.file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := fx.record(t)
			if *update {
				ar, _ = txtar.ParseFile(fx.file)
				setMember(ar, fx.member, got)
				if err := os.WriteFile(fx.file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := member(ar, fx.member); !bytes.Equal(got, want) {
				t.Errorf("%s in %s is out of date; run go test ./cmd/gramc -run TestReplayFiles -update", fx.member, fx.file)
			}
		})
	}
	if *update {
		return
	}
	ar, err := txtar.ParseFile("testdata/script/run.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for m, src := range copies {
		b, _ := os.ReadFile(src)
		if !bytes.Equal(member(ar, m), b) {
			t.Errorf("%s in run.txtar differs from %s; run go test ./cmd/gramc -run TestReplayFiles -update", m, src)
		}
	}
}

// member returns the data of an archive member, nil if there is none.
func member(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// setMember replaces (or adds) an archive member.
func setMember(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// gramc runs Main in-process.
func gramc(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestRunDemo runs the README's offline demo on the shipped files: no
// network, no key.
func TestRunDemo(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	code, out, errOut := gramc(t, "", "run", "../../examples/hello.gram", "--replay", "../../examples/hello.replay.json", "-m", "Hi, I'm Bob")
	want := "sayHello {\"personName\":\"Bob\"} → \"Hello, Bob! Nice to meet you.\"\nHello, Bob! Nice to meet you. How can I help you today?\n"
	if code != exitOK || out != want || errOut != "" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestRunLive runs gramc against the fake server with --base-url: a
// conversation of two turns, --json, the iteration limit and an API error.
func TestRunLive(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}, fakeopenai.Call{Name: "sayGoodbye", Arguments: `{}`}),
		fakeopenai.Text("Hi Bob."),
		fakeopenai.Text("Bye Bob."),
	)
	code, out, errOut := gramc(t, "", "run", "../../examples/greeter.gram", "--base-url", srv.URL, "-m", "Hi, I'm Bob", "-m", "Bye")
	// The two calls run concurrently and are printed as they finish.
	lines := strings.Split(out, "\n")
	if len(lines) == 5 && strings.HasPrefix(lines[0], "sayGoodbye") {
		lines[0], lines[1] = lines[1], lines[0]
	}
	want := "sayHello {\"personName\":\"Bob\"} → \"Hello, Bob! Nice to meet you.\"\n" +
		"sayGoodbye {} → \"Goodbye, world! Have a wonderful day.\"\nHi Bob.\nBye Bob.\n"
	if got := strings.Join(lines, "\n"); code != exitOK || got != want {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if msgs := srv.Requests()[2].Body.Messages; len(msgs) != 7 {
		t.Errorf("the second turn sent %d messages, want 7", len(msgs))
	}

	// --json=final, one object per turn; the iteration limit exits 1 with a warning.
	srv.Push(
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"A"}`}),
		fakeopenai.Text("I greeted A."),
	)
	code, out, errOut = gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "--json=final", "--max-iterations", "1", "-m", "go")
	var resp runtime.Response
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != exitError || resp.Status != runtime.StatusMaxIterations || resp.Content != "I greeted A." || len(resp.ToolsUsed) != 1 {
		t.Errorf("exit %d, %+v", code, resp)
	}
	if !strings.Contains(errOut, "warning: the agent reached its limit of 1 model calls") {
		t.Errorf("stderr:\n%s", errOut)
	}

	// An API error that is not retried: exit 1, the user message in JSON.
	srv.Push(fakeopenai.Error(http.StatusBadRequest, "model not found"))
	code, out, errOut = gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "--json=final", "-m", "go")
	if code != exitError || !strings.Contains(out, `"status": "error"`) || !strings.Contains(out, "trouble connecting") ||
		!strings.Contains(errOut, "LLM API error: 400 Bad Request: model not found") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestRunStdinTurns: without -m, each line of standard input is a turn.
func TestRunStdinTurns(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := fakeopenai.New(t, fakeopenai.Text("one"), fakeopenai.Text("two"))
	code, out, errOut := gramc(t, "first\n\n  second  \n", "run", "../../examples/hello.gram", "--base-url", srv.URL)
	if code != exitOK || out != "one\ntwo\n" {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := fakeopenai.LastUser(srv.Requests()[1]); got != "second" {
		t.Errorf("second turn %q", got)
	}
}

// TestRunInjectAndTrace: --inject reaches the tool through an exec tool;
// --trace prints the requests and responses on stderr.
func TestRunInjectAndTrace(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	gram := filepath.Join(dir, "who.gram")
	src := `[whoAmI:Tool {description: "Who is signed in"} | (userId::String {injected: true})==>(::String)]
[w:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Say who the user is."} | whoAmI]`
	if err := os.WriteFile(gram, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakeopenai.New(t, fakeopenai.Calls(fakeopenai.Call{Name: "whoAmI", Arguments: `{"userId":"root"}`}), withResult("%s"))
	code, out, errOut := gramc(t, "", "run", gram, "--base-url", srv.URL, "--tool", "whoAmI=cat", "--inject", "userId=alice", "--trace", "-m", "who am I?")
	if code != exitOK || !strings.HasSuffix(out, "{\"userId\":\"alice\"}\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"--> request 1: POST " + srv.URL + "/chat/completions", "<-- response 2: 200 OK", `"tool_call_id": "call_1_1"`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("trace lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "userId\": {") {
		t.Error("the injected parameter was sent to the model")
	}
}

// TestRunCanary: the API key never appears in gramc's output, trace, logs,
// errors or recording, even when the server echoes it in an error.
func TestRunCanary(t *testing.T) {
	const canary = "sk-canary-1e2d3c4b5a69788"
	srv := fakeopenai.New(t,
		fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"Bob"}`}),
		fakeopenai.Text("Hello Bob"),
		fakeopenai.Error(http.StatusUnauthorized, "Incorrect API key provided: "+canary),
	)
	srv.APIKey = canary
	t.Setenv("OPENAI_API_KEY", canary)
	rec := filepath.Join(t.TempDir(), "rec.json")
	code, out, errOut := gramc(t, "", "run", "../../examples/hello.gram", "--base-url", srv.URL, "--trace", "--record", rec,
		"--log-level", "debug", "-m", "Hi, I'm Bob", "-m", "again")
	if code != exitConfig {
		t.Errorf("exit %d, want 3 for the 401", code)
	}
	b, _ := os.ReadFile(rec)
	for name, text := range map[string]string{"stdout": out, "stderr": errOut, "recording": string(b)} {
		if strings.Contains(text, canary) {
			t.Errorf("the key appears in %s:\n%s", name, text)
		}
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+canary {
		t.Errorf("the server got %q", got)
	}
	if !strings.Contains(errOut, "Incorrect API key provided: "+replay.Redacted) || !strings.Contains(errOut, "level=INFO") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// TestRunStdinTurnTooLong: a turn on standard input longer than the limit
// of a line (here one without any newline) is refused with that limit
// named, before any model call.
func TestRunStdinTurnTooLong(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	code, out, errOut := gramc(t, strings.Repeat("a", maxTurnSize+1), "run", "../../examples/hello.gram", "--replay", "../../examples/hello.replay.json")
	want := "gramc run: reading standard input: a line is longer than the limit of 4.2 MB: a turn is one line; give a longer message with -m"
	if code != exitUsage || !strings.Contains(errOut, want) || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, exitUsage, want)
	}
}
