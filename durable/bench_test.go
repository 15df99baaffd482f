package durable_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/gramlang/gram/durable"
	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/pgtest"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// benchSteps is the number of tool steps of a benchmark run: N tool calls,
// one per model reply, then an answer (2N+1 steps in all).
const benchSteps = 20

const benchSrc = `{ kind: "agents" }
[lookup:Tool {description: "Looks a thing up"} |
  (q::String)==>(::String)
]
[clerk:Agent {model: "OpenAI/gpt-4o-mini", maxIterations: 50, instruction: "Help."} |
  lookup
]
`

// benchRun is the agent, tools and options of a run of benchSteps steps.
func benchRun(b *testing.B) (*schema.Agent, *runtime.Library, func() []runtime.Option) {
	prog := gramtest.Compile(b, benchSrc)
	w := newWorld(nil) // its binder, which compiles with a test, is not used
	for range benchSteps {
		w.replies = append(w.replies, runtime.CallReply(runtime.Call("lookup", `{"q":"bob"}`)))
	}
	w.replies = append(w.replies, runtime.TextReply("done"))
	opts := func() []runtime.Option {
		return []runtime.Option{runtime.WithModel(w.model()), runtime.WithLogger(slog.New(slog.DiscardHandler))}
	}
	return prog.Agent("clerk"), w.library(), opts
}

// BenchmarkCheckpoint measures what checkpoints add to a step: a run of
// benchSteps tool steps (and benchSteps+1 model steps) without a store,
// and in SQLite and PostgreSQL stores. ns/toolstep is the run's time over
// its tool steps; the difference from "none" is the cost of the
// checkpoints of one tool step and its model step.
func BenchmarkCheckpoint(b *testing.B) {
	agent, lib, opts := benchRun(b)
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			resp, err := runtime.Run(context.Background(), agent, lib, nil, "go", opts()...)
			if err != nil || resp.Status != runtime.StatusCompleted {
				b.Fatal(err, resp.Status)
			}
		}
		perStep(b)
	})
	bind := func(ctx context.Context, spec durable.Spec) (*runtime.Bound, error) {
		return &runtime.Bound{Agent: agent, Library: lib, Options: opts()}, nil
	}
	store := func(b *testing.B, url string) {
		s, err := durable.Open(context.Background(), url, durable.Options{Bind: bind})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		spec := durable.Spec{Agent: "clerk", Input: "go"}
		for b.Loop() {
			id, err := s.Start(context.Background(), spec)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			r, err := s.Wait(ctx, id)
			cancel()
			if err != nil || r.Status != "completed" {
				b.Fatal(err, r)
			}
		}
		perStep(b)
	}
	b.Run("sqlite", func(b *testing.B) { store(b, filepath.Join(b.TempDir(), "runs.db")) })
	b.Run("postgres", func(b *testing.B) { store(b, pgtest.Start(b).URL) })
}

func perStep(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchSteps), "ns/toolstep")
	b.ReportMetric(0, "ns/op")
}
