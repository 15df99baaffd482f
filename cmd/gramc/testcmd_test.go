package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestTestCommand runs the scripts in testdata/testcmd, the cases of gramc
// test. Besides the commands of TestScript they have `fake-openai FILE`,
// which starts an in-process OpenAI-compatible server answering with the
// steps in FILE and points OPENAI_BASE_URL at it (with OPENAI_API_KEY set to
// a secret that must never be written anywhere, and is sent to the server),
// `openai-requests N` (see cmdOpenAIRequests) and `junit-valid FILE`,
// which checks a JUnit report with a strict parser.
func TestTestCommand(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/testcmd",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("OPENAI_API_KEY", "")
			env.Setenv("OPENAI_BASE_URL", "")
			env.Setenv("ANTHROPIC_API_KEY", "")
			env.Setenv("ANTHROPIC_BASE_URL", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":             cmdStatus,
			"fake-openai":        cmdFakeOpenAI,
			"openai-requests":    cmdOpenAIRequests,
			"junit-valid":        cmdJUnitValid,
			"fake-anthropic":     cmdFakeAnthropic,
			"anthropic-requests": cmdAnthropicRequests,
		},
	})
}

// fakeKey is the API key scripts give the fake server's clients.
const fakeKey = "sk-fake-5ecret-never-written"

// fakeStep is one line of a fake-openai script: the model answers with
// text, asks for tool calls, or fails with an HTTP status.
type fakeStep struct {
	Text  *string `json:"text"`
	Calls []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"calls"`
	Status  int    `json:"status"`
	Message string `json:"message"`
	// Finish is the finish_reason of a text step ("stop" when empty).
	Finish string `json:"finish"`
	// On makes the step a rule: it answers every request, once the steps
	// without one are used, whose last message, written "ROLE: TEXT",
	// matches this regular expression. The first rule that matches
	// answers.
	On string `json:"on"`
	// Cut, for a streamed answer, drops the connection after that many
	// chunks.
	Cut int `json:"cut"`
	// Raw answers 200 with this body as it is (Content-Type
	// application/json).
	Raw *string `json:"raw"`
}

// cmdFakeOpenAI implements `fake-openai [-cycle] [-key KEY] FILE`: each non-empty line of FILE
// that does not start with # is a JSON step, {"text": "..."},
// {"calls": [{"name": "tool", "arguments": "{...}"}]}, {"status": 500,
// "message": "..."} or {"raw": "BODY"}, each optionally with "on": REGEX
// (see fakeStep.On).
// With -cycle the steps start over when they run out (for runs of several
// tests), otherwise the server answers 400 then. With -key it answers 401
// to a request without "Authorization: Bearer KEY". It stops when the
// script ends.
func cmdFakeOpenAI(ts *testscript.TestScript, neg bool, args []string) {
	cycle, key := false, ""
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-cycle":
			cycle, args = true, args[1:]
		case "-key":
			key, args = args[1], args[2:]
		default:
			ts.Fatalf("fake-openai: unknown option %s", args[0])
		}
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fake-openai [-cycle] [-key KEY] FILE")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	var steps []fakeopenai.Step
	type rule struct {
		re   *regexp.Regexp
		step fakeopenai.Step
	}
	var rules []rule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var st fakeStep
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			ts.Fatalf("fake-openai: %s: %v", line, err)
		}
		var step fakeopenai.Step
		switch {
		case st.Text != nil && st.Finish != "":
			msg, err := json.Marshal(map[string]any{"role": "assistant", "content": *st.Text})
			ts.Check(err)
			step = fakeopenai.Completion(msg, st.Finish)
		case st.Text != nil:
			step = fakeopenai.Text(*st.Text)
		case len(st.Calls) > 0:
			var calls []fakeopenai.Call
			for _, c := range st.Calls {
				calls = append(calls, fakeopenai.Call{Name: c.Name, Arguments: c.Arguments})
			}
			step = fakeopenai.Calls(calls...)
		case st.Status != 0:
			step = fakeopenai.Error(st.Status, st.Message)
		case st.Raw != nil:
			step = fakeopenai.Raw(*st.Raw, "")
		default:
			ts.Fatalf("fake-openai: a step needs text, calls, status or raw: %s", line)
		}
		if st.Cut > 0 {
			step = fakeopenai.Cut(st.Cut, step)
		}
		if st.On != "" {
			re, err := regexp.Compile(st.On)
			ts.Check(err)
			rules = append(rules, rule{re, step})
			continue
		}
		steps = append(steps, step)
	}
	ts.Check(sc.Err())
	if cycle {
		one := steps
		for range 200 {
			steps = append(steps, one...)
		}
	}
	if len(rules) > 0 {
		// The rules answer as many requests as a script makes.
		answer := func(req *fakeopenai.Request) fakeopenai.Response {
			msgs := req.Body.Messages
			last := ""
			if len(msgs) > 0 {
				last = msgs[len(msgs)-1].Role + ": " + msgs[len(msgs)-1].Text()
			}
			for _, r := range rules {
				if r.re.MatchString(last) {
					return r.step(req)
				}
			}
			return fakeopenai.Error(400, "no rule answers "+last)(req)
		}
		steps = append(steps, repeatStep(answer, 1000)...)
	}
	// Everything is set before the server starts: requests come from other
	// processes, which the race detector cannot see synchronize with us.
	srv := fakeopenai.NewWithKey(nil, key, steps...)
	fakeServers.Store(ts, srv)
	ts.Defer(func() { fakeServers.Delete(ts); srv.Close() })
	ts.Setenv("OPENAI_BASE_URL", srv.URL)
	ts.Setenv("OPENAI_API_KEY", fakeKey)
}

// fakeServers are the servers started by fake-openai, by script.
var fakeServers sync.Map // *testscript.TestScript -> *fakeopenai.Server

// cmdOpenAIRequests implements `openai-requests N [FILE]`: the server of
// the last fake-openai has received N requests; with FILE, their bodies
// are written to it, one a line.
func cmdOpenAIRequests(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := fakeServers.Load(ts)
	if neg || !ok || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: openai-requests N [FILE], after fake-openai")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	reqs := v.(*fakeopenai.Server).Requests()
	if len(args) == 2 {
		var b bytes.Buffer
		for _, r := range reqs {
			ts.Check(json.Compact(&b, r.Raw))
			b.WriteByte('\n')
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
	}
	if got := len(reqs); got != want {
		ts.Fatalf("the OpenAI server got %d requests, want %d", got, want)
	}
}

// cmdJUnitValid implements `junit-valid FILE`.
func cmdJUnitValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: junit-valid FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	err = validateJUnit(b)
	switch {
	case err != nil && !neg:
		ts.Fatalf("invalid JUnit XML: %v", err)
	case err == nil && neg:
		ts.Fatalf("the JUnit XML is valid")
	case err != nil:
		fmt.Fprintf(ts.Stdout(), "invalid: %v\n", err)
	}
}

// repeatStep returns n copies of a step, for a server that must answer
// every request with it: the steps are all given when the server starts.
func repeatStep(step fakeopenai.Step, n int) []fakeopenai.Step {
	out := make([]fakeopenai.Step, n)
	for i := range out {
		out[i] = step
	}
	return out
}
