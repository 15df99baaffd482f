package runtime_test

import (
	"context"
	"fmt"

	"github.com/gramlang/gram/runtime"
)

// The events of a turn, from the Events iterator: the model's turns, the
// tool call as it starts and finishes, the text, and the end of the run
// with its response. (A scripted model does not stream, so its text comes
// in one delta; an OpenAIModel's comes in pieces as it is generated.)
func ExampleEvents() {
	model := runtime.NewScripted(
		runtime.CallReply(runtime.Call("sayHello", `{"personName":"Bob"}`)),
		runtime.TextReply("Hello, Bob!"),
	)
	for e := range runtime.Events(context.Background(), exampleAgent(), exampleLibrary(), nil, "Hi, I'm Bob",
		runtime.WithModel(model), runtime.WithInjected(map[string]any{"userId": "u-1"}), quiet) {
		switch e.Type {
		case runtime.EventTextDelta:
			fmt.Printf("%s %q\n", e.Type, e.Text)
		case runtime.EventToolCallStarted:
			fmt.Println(e.Type, e.Name, e.Arguments)
		case runtime.EventToolCallFinished:
			fmt.Println(e.Type, e.Name, "→", e.Tool.Result)
		case runtime.EventModelTurnFinished:
			fmt.Println(e.Type, e.Iteration, e.FinishReason)
		case runtime.EventRunFinished:
			fmt.Println(e.Type, e.Response.Status, e.Err)
		}
	}
	// Output:
	// model_turn_finished 1 tool_calls
	// tool_call_started sayHello {"personName":"Bob"}
	// tool_call_finished sayHello → Hello, Bob! Nice to meet you.
	// text_delta "Hello, Bob!"
	// model_turn_finished 2 stop
	// run_finished completed <nil>
}
