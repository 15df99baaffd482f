package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// exampleSrc declares a greeting agent and a tool with an injected user id.
const exampleSrc = `
[sayHello:Tool {description: "Returns a friendly greeting for the given name"} |
  (personName::String {default: "world"})==>(::String)
]
[whoAmI:Tool {description: "Says who the signed-in user is"} |
  (userId::String {injected: true})==>(::String)
]
[greeter:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Greet the user with sayHello."} |
  sayHello, whoAmI
]
`

// exampleAgent compiles exampleSrc and returns its agent.
func exampleAgent() *schema.Agent {
	doc, _ := parser.Parse(diag.NewFile("greeter.gram", []byte(exampleSrc)))
	prog, _ := schema.Compile(doc)
	return prog.Agent("greeter")
}

// exampleLibrary returns the built-in tools and a whoAmI implementation.
func exampleLibrary() *runtime.Library {
	lib := runtime.Builtins()
	_ = lib.Register(runtime.Tool{Name: "whoAmI", Invoke: func(_ context.Context, args map[string]any) (any, error) {
		return "you are " + args["userId"].(string), nil
	}})
	return lib
}

var quiet = runtime.WithLogger(slog.New(slog.DiscardHandler))

// A turn with one tool call, answered by a scripted model: the model asks
// for sayHello, the built-in implementation runs, and the model answers.
func ExampleRun() {
	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("sayHello", `{"personName":"Bob"}`)),
		runtime.TextReply("Hello, Bob! Nice to meet you."),
	)
	resp, err := runtime.Run(context.Background(), exampleAgent(), exampleLibrary(), nil, "Hi, I'm Bob",
		runtime.WithModel(model), runtime.WithInjected(map[string]any{"userId": "u-1"}), quiet)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range resp.ToolsUsed {
		fmt.Printf("%s %s → %v\n", u.Name, u.RawArguments, u.Result)
	}
	fmt.Println(resp.Content)
	fmt.Println(resp.Status, "after", resp.Iterations, "model calls;", len(resp.Conversation), "messages")
	// Output:
	// sayHello {"personName":"Bob"} → Hello, Bob! Nice to meet you.
	// Hello, Bob! Nice to meet you.
	// completed after 2 model calls; 4 messages
}

// Late binding: the same agent runs against two implementations of
// sayHello, as in an A/B test.
func ExampleRun_abTest() {
	shout := runtime.Tool{Name: "sayHello", Invoke: func(_ context.Context, args map[string]any) (any, error) {
		return fmt.Sprintf("HELLO, %s!", args["personName"]), nil
	}}
	for _, lib := range []*runtime.Library{runtime.Builtins(), runtime.NewLibrary(shout)} {
		model := runtime.NewScripted(runtime.CallReply(runtime.Call("sayHello", `{}`)))
		model.Respond = func(req *runtime.Request) (*runtime.Reply, error) {
			last := req.Messages[len(req.Messages)-1]
			return runtime.TextReply("The tool said: " + last.Content), nil
		}
		agent := exampleAgent()
		agent.Tools = agent.Tools[:1] // only sayHello
		resp, _ := runtime.Run(context.Background(), agent, lib, nil, "Hello!", runtime.WithModel(model), quiet)
		fmt.Println(resp.Content)
	}
	// Output:
	// The tool said: Hello, world! Nice to meet you.
	// The tool said: HELLO, world!
}

// The conversation a turn returns carries on into the next turn.
func ExampleRun_multiTurn() {
	model := runtime.NewScripted(runtime.TextReply("Hi! What's your name?"), runtime.TextReply("Nice to meet you, Ann."))
	agent := exampleAgent()
	var conv runtime.Conversation
	for _, input := range []string{"Hello", "I'm Ann"} {
		resp, _ := runtime.Run(context.Background(), agent, exampleLibrary(), conv, input, runtime.WithModel(model),
			runtime.WithInjected(map[string]any{"userId": "u-1"}), quiet)
		conv = resp.Conversation
		fmt.Println(resp.Content)
	}
	fmt.Println(len(conv), "messages; the second request had", len(model.Requests()[1].Messages), "(with the instruction)")
	// Output:
	// Hi! What's your name?
	// Nice to meet you, Ann.
	// 4 messages; the second request had 4 (with the instruction)
}

// Injected parameters are set by the host, never by the model: the model
// does not see userId in the tool's schema, and a value it sends anyway is
// replaced.
func ExampleWithInjected() {
	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("whoAmI", `{"userId":"admin"}`)),
		runtime.TextReply("done"),
	)
	resp, _ := runtime.Run(context.Background(), exampleAgent(), exampleLibrary(), nil, "Who am I?", runtime.WithModel(model),
		runtime.WithInjected(map[string]any{"userId": "alice"}), quiet)
	fmt.Println(resp.ToolsUsed[0].Result)
	params, _ := model.Requests()[0].Tools[1].Parameters.MarshalJSON()
	fmt.Println(string(params))
	// Output:
	// you are alice
	// {"type":"object","properties":{},"required":[],"additionalProperties":false}
}

// Binding fails when an implementation's schema disagrees with the
// specification on a keyword that validates.
func ExampleLibrary_Bind() {
	lib := runtime.NewLibrary(runtime.Tool{
		Name: "sayHello",
		Parameters: `{"type": "object", "properties": {"personName": {"type": "integer"}},
			"required": [], "additionalProperties": false}`,
		Invoke: func(context.Context, map[string]any) (any, error) { return "hi", nil },
	})
	agent := exampleAgent()
	_, err := lib.Bind(agent.Tools[:1])
	fmt.Println(err)
	// Output:
	// tool "sayHello": the specification accepts arguments the implementation's parameter schema refuses: at /properties/personName/type: the declaration is looser: it accepts string, the implementation only integer
}

// Prepare reports every problem of a run's setup before any model call:
// here a misspelt injected value.
func ExamplePrepare() {
	_, err := runtime.Prepare(exampleAgent(), exampleLibrary(), runtime.WithInjected(map[string]any{"userID": "u-1"}))
	var pe *runtime.PrepareError
	if errors.As(err, &pe) {
		for _, p := range pe.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// tool "whoAmI": injected parameter userId (String): the host gave no value (did you mean "userID"?)
	// injected value userID: no tool of the agent has an injected parameter of that name (did you mean "userId"?)
}

// A failed tool call is fed back to the model, which can correct itself.
func ExampleScripted() {
	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("sayHello", `{"personName": 42}`)),
		runtime.CallReply(runtime.Call("sayHello", `{"personName": "Ann"}`)),
		runtime.TextReply("Hello, Ann!"),
	)
	resp, _ := runtime.Run(context.Background(), exampleAgent(), exampleLibrary(), nil, "Hi, I'm Ann", runtime.WithModel(model),
		runtime.WithInjected(map[string]any{"userId": "u-1"}), quiet)
	for _, u := range resp.ToolsUsed {
		if u.Failed() {
			fmt.Println("error:", u.Error)
		} else {
			fmt.Println("result:", u.Result)
		}
	}
	fmt.Println(model.Requests()[1].Messages[3].Content)
	// Output:
	// error: tool "sayHello": invalid arguments: /personName: must be string, not number
	// result: Hello, Ann! Nice to meet you.
	// {"error":"tool \"sayHello\": invalid arguments: /personName: must be string, not number"}
}
