package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// benchIterations is the number of tool-calling iterations per turn; the
// turn then ends with a text answer.
const benchIterations = 5

// benchServer answers with a sayHello call until the request carries
// benchIterations tool results, then with text.
// A streaming request gets the same answers as server-sent events, in
// pieces of fakeopenai.DefaultPiece bytes.
func benchServer(b *testing.B) *fakeopenai.Server {
	srv := fakeopenai.New(b)
	srv.Default = func(req *fakeopenai.Request) fakeopenai.Response {
		n := len(toolMessages(req))
		if n < benchIterations {
			return fakeopenai.Calls(call("sayHello", fmt.Sprintf(`{"personName":"P%d"}`, n)))(req)
		}
		return fakeopenai.Text("Greeted all five of them.")(req)
	}
	return srv
}

// BenchmarkLoop measures one turn of benchIterations tool-calling
// iterations against the in-process server: "gram" through Run, "bare"
// with a minimal openai-go loop making the same requests. Their ratio is
// the loop's own overhead (binding, validation, logging, bookkeeping).
//
// "gram-stream" is "gram" with the answers streamed and every event
// delivered: against "gram", the cost of streaming.
func BenchmarkLoop(b *testing.B) {
	b.Run("gram", benchGram)
	b.Run("gram-stream", benchGramStream)
	b.Run("bare", benchBare)
}

func benchGram(b *testing.B) { benchRun(b, benchServer(b)) }

// benchGramStream runs the loop with streamed answers and an event
// callback that counts the text deltas.
func benchGramStream(b *testing.B) {
	deltas := 0
	benchRun(b, benchServer(b), runtime.WithEvents(func(e runtime.Event) {
		if e.Type == runtime.EventTextDelta {
			deltas++
		}
	}))
	if deltas == 0 {
		b.Fatal("no text deltas: the answers were not streamed")
	}
}

func benchRun(b *testing.B, srv *fakeopenai.Server, opts ...runtime.Option) {
	agent := compile(b, loopSrc).Agents()[0]
	agent.Settings.MaxIterations = benchIterations + 1
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: srv.URL, APIKey: testKey, Logger: discard()})
	if err != nil {
		b.Fatal(err)
	}
	lib := runtime.Builtins()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := runtime.Run(ctx, agent, lib, nil, "greet", append([]runtime.Option{runtime.WithModel(m), runtime.WithLogger(discard())}, opts...)...)
		if err != nil || resp.Iterations != benchIterations+1 {
			b.Fatalf("%v %+v", err, resp)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchIterations+1)), "ns/iteration")
}

func benchBare(b *testing.B) {
	srv := benchServer(b)
	agent := compile(b, loopSrc).Agents()[0]
	svc := openai.NewChatCompletionService(option.WithBaseURL(srv.URL), option.WithAPIKey(testKey),
		option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: http.DefaultTransport}))
	params := shared.FunctionParameters{}
	for _, m := range schema.ParametersSchema(agent.Tools[0], false) {
		params[m.Key] = m.Value
	}
	tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "sayHello", Description: openai.String(agent.Tools[0].Description), Parameters: params,
	})}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(agent.Instruction), openai.UserMessage("greet")}
		for i := 0; ; i++ {
			comp, err := svc.New(ctx, openai.ChatCompletionNewParams{Model: shared.ChatModel(agent.Model.ID), Messages: msgs, Tools: tools})
			if err != nil {
				b.Fatal(err)
			}
			msg := comp.Choices[0].Message
			if len(msg.ToolCalls) == 0 {
				if i != benchIterations {
					b.Fatalf("answer after %d iterations", i)
				}
				break
			}
			msgs = append(msgs, msg.ToParam())
			for _, tc := range msg.ToolCalls {
				var args map[string]any
				if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
					b.Fatal(err)
				}
				out, _ := runtime.SayHello().Invoke(ctx, args)
				msgs = append(msgs, openai.ToolMessage(out.(string), tc.ID))
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchIterations+1)), "ns/iteration")
}

// TestLoopOverhead checks that the loop costs at most 1.2 times a bare
// openai-go loop. Timing is only meaningful without the race detector and
// on a quiet machine, so it runs only when GRAM_OVERHEAD_TEST=1.
func TestLoopOverhead(t *testing.T) {
	if os.Getenv("GRAM_OVERHEAD_TEST") != "1" {
		t.Skip("set GRAM_OVERHEAD_TEST=1 to measure")
	}
	best := bestRatio(t, "gram", benchGram, "bare", benchBare)
	if best > 1.2 {
		t.Errorf("the loop costs %.2f times a bare openai-go loop, want at most 1.2", best)
	}
}

// TestStreamOverhead checks that a turn with its answers streamed (and
// every event delivered) costs at most 1.1 times the same turn unstreamed,
// measured side by side. Like TestLoopOverhead it runs only when
// GRAM_OVERHEAD_TEST=1.
func TestStreamOverhead(t *testing.T) {
	if os.Getenv("GRAM_OVERHEAD_TEST") != "1" {
		t.Skip("set GRAM_OVERHEAD_TEST=1 to measure")
	}
	best := bestRatio(t, "streamed", benchGramStream, "unstreamed", benchGram)
	if best > 1.1 {
		t.Errorf("streaming costs %.2f times the unstreamed loop, want at most 1.1", best)
	}
}

// bestRatio runs the benchmarks a and b side by side three times, logs
// each round, and returns the smallest ratio of a's time per op to b's.
func bestRatio(t *testing.T, aName string, a func(*testing.B), bName string, b func(*testing.B)) float64 {
	best := 1e9
	for range 3 {
		ra, rb := testing.Benchmark(a), testing.Benchmark(b)
		ratio := float64(ra.NsPerOp()) / float64(rb.NsPerOp())
		t.Logf("%s %d ns/op (%d B/op), %s %d ns/op (%d B/op), ratio %.3f",
			aName, ra.NsPerOp(), ra.AllocedBytesPerOp(), bName, rb.NsPerOp(), rb.AllocedBytesPerOp(), ratio)
		best = min(best, ratio)
	}
	return best
}
