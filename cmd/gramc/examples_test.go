package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// exampleTestArgs are the flags the example tests need: none binding tools,
// since examples/bindings.gram binds the order desk's tools to a canned
// program and injects the signed-in customer.
func exampleTestArgs() []string {
	return []string{"test", "--parallel", "1"}
}

// TestExampleTests runs the tests of every example agent offline, from the
// cassettes committed in examples/cassettes, and checks that every example
// agent has a test. With -update it first records the cassettes against an
// in-process OpenAI-compatible server playing the model (exampleModel).
func TestExampleTests(t *testing.T) {
	const dir = "../../examples"
	agents, tested := exampleAgents(t, dir)
	for _, a := range agents {
		if !tested[a] {
			t.Errorf("example agent %s has no test", a)
		}
	}
	args := exampleTestArgs()
	if *update {
		srv := fakeopenai.New(t, repeatStep(exampleModel, 1000)...)
		var out, errOut bytes.Buffer
		code := Main(append(args, "--record", "--base-url", srv.URL, dir), nil, &out, &errOut)
		if code != exitOK {
			t.Fatalf("recording: exit %d\n%s%s", code, out.String(), errOut.String())
		}
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	var out, errOut bytes.Buffer
	code := Main(append(args, "--replay", dir), nil, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	n := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "ok    ") && strings.HasSuffix(line, "[replay]") {
			n++
		}
	}
	if n < len(agents) || !strings.Contains(out.String(), fmt.Sprintf("\n%d passed, 0 failed\n", n)) {
		t.Errorf("want every test replayed and passing:\n%s", out.String())
	}
}

// exampleAgents returns the agents of the example files and which of them
// a test tests.
func exampleAgents(t *testing.T, dir string) ([]string, map[string]bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.gram"))
	var agents []string
	tested := map[string]bool{}
	pkgs, _, err := agenttest.Load(files, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		s := pkgs[filepath.Dir(f)].Lookup(f)
		if s == nil || s.Diags.HasErrors() {
			t.Fatalf("%s is not loaded or has errors: %v", f, s)
		}
		if !strings.HasSuffix(f, schema.TestSuffix) {
			for _, a := range s.Program.Agents() {
				agents = append(agents, a.Name)
			}
		}
		for _, tc := range s.Program.Tests {
			tested[tc.AgentName] = true
		}
	}
	if len(agents) == 0 {
		t.Fatal("no example agents")
	}
	return agents, tested
}

// exampleModel plays the model of the example tests: it answers from the
// conversation's last user message and last message, as a well-behaved
// model would.
func exampleModel(req *fakeopenai.Request) fakeopenai.Response {
	msgs := req.Body.Messages
	system, user, last := "", "", msgs[len(msgs)-1]
	for _, m := range msgs {
		switch m.Role {
		case "system":
			system = m.Text()
		case "user":
			user = m.Text()
		}
	}
	call := func(name, args string) fakeopenai.Response {
		return fakeopenai.Calls(fakeopenai.Call{Name: name, Arguments: args})(req)
	}
	text := func(s string) fakeopenai.Response { return fakeopenai.Text(s)(req) }
	result := last.Text()
	if r, ok := supportModel(system, user, last.Role, result, call, text); ok {
		return r
	}
	if last.Role == "user" {
		switch {
		case strings.HasPrefix(user, "Judge "):
			return text(`{"score": 0.95, "reason": "The assistant says goodbye to Ann by name and wishes her well."}`)
		case user == "Hi, I'm Bob":
			return call("sayHello", `{"personName":"Bob"}`)
		case user == "Hello there!":
			return call("sayHello", `{}`)
		case user == "Hi, I'm Ann":
			return call("sayHello", `{"personName":"Ann"}`)
		case strings.HasPrefix(user, "I have to go"):
			return call("sayGoodbye", `{"personName":"Ann"}`)
		case strings.HasPrefix(system, "Summarise"):
			return call("findOrders", `{}`)
		case strings.HasPrefix(user, "Which of my orders"):
			return call("findOrders", `{"status":"open","limit":10}`)
		case regexp.MustCompile(`order 1042`).MatchString(user):
			return call("getOrder", `{"orderId":1042}`)
		}
		return fakeopenai.Error(400, "the example model has no answer to "+user)(req)
	}
	// After a tool result.
	switch {
	case strings.HasPrefix(result, "Hello, Bob!"), strings.HasPrefix(result, "Hello, world!"):
		return text(result)
	case strings.HasPrefix(result, "Hello, Ann!"):
		return text(result + " How can I help you today?")
	case strings.HasPrefix(result, "Goodbye, Ann!"):
		return text(result + " It was a pleasure to help.")
	case strings.HasPrefix(system, "Summarise"):
		return text("- #1042: open, 2 × MUG-0001, 19 EUR\n- #977: shipped, 1 × TEA-0042, 12 EUR\n- One order is still open.")
	case strings.HasPrefix(user, "Which of my orders"):
		return text("You have one open order: #1042 (2 × MUG-0001, 19 EUR).")
	case strings.HasPrefix(user, "What is the status"):
		return text("Order 1042 is open: 2 × MUG-0001, 19 EUR in total.")
	case strings.HasPrefix(user, "Please cancel") && strings.Contains(result, `"status":"open"`):
		return call("cancelOrder", `{"orderId":1042,"reason":"found_cheaper","comment":"Found it cheaper elsewhere"}`)
	case strings.HasPrefix(user, "Please cancel"):
		return text("Order 1042 is now cancelled. Sorry to see it go!")
	case strings.HasPrefix(user, "Give me order 1042"):
		return text(strings.TrimSpace(result))
	}
	return fakeopenai.Error(400, "the example model has no answer after "+result)(req)
}

// supportModel plays the model of the support desk (examples/support.gram),
// told apart by the agents' instructions: triage asks billing or hands a
// delivery over to shipping, billing answers with the invoice it looked up,
// shipping tracks the parcel. It reports false for the other agents.
func supportModel(system, user, role, result string, call func(name, args string) fakeopenai.Response, text func(string) fakeopenai.Response) (fakeopenai.Response, bool) {
	switch {
	case strings.HasPrefix(system, "You are the front desk") && role == "user" && strings.Contains(user, "owe"):
		return call("billing", `{"question":"How much is still owed for order 1042?"}`), true
	case strings.HasPrefix(system, "You are the front desk") && role == "user":
		return call("transfer_to_shipping", `{}`), true
	case strings.HasPrefix(system, "You are the front desk"):
		return text("You still owe 19 EUR for order 1042, due by 15 December 2026."), true
	case strings.HasPrefix(system, "You answer billing questions") && role == "user":
		return call("getInvoice", `{"orderId":1042}`), true
	case strings.HasPrefix(system, "You answer billing questions"):
		return text(strings.TrimSpace(result)), true
	case strings.HasPrefix(system, "You help the customer with a delivery") && (role == "user" || strings.HasPrefix(result, "Transferred to")):
		return call("trackParcel", `{"orderId":1042}`), true
	case strings.HasPrefix(system, "You help the customer with a delivery"):
		return text("The parcel of order 1042 was last seen at DHL's Leipzig hub on 24 November and is now reported lost. I have asked for a replacement to be sent today; you will get its tracking link by email."), true
	}
	return fakeopenai.Response{}, false
}
