// The clients of a test's runs: the transport that replays or records its
// cassette, and the model client of each agent it reaches.

package agenttest

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// transport returns the HTTP transport of run rep of job j's test: the
// test's cassette replayed or recorded as source says (see runCassette),
// traced when the setup says so.
func (r *Runner) transport(j Job, source string, rep int) (http.RoundTripper, *replay.Replayer, error) {
	t := j.Test
	cassette := r.CassettePath(j.Path, t.Name)
	var transport http.RoundTripper = http.DefaultTransport
	var replayer *replay.Replayer
	switch source {
	case "replay":
		rp, err := replay.NewReplayer(cassette, r.setup().MaxFileSize)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, nil, fmt.Errorf("%w for test %s at %s: record one with gramc test --record", errNoCassette, t.Name, cassette)
			}
			return nil, nil, &runtime.ConfigError{Message: "reading the cassette of test " + t.Name, Err: err}
		}
		replayer, transport = rp, rp
	case "record":
		transport = replay.NewRecorder(r.runCassette(j, rep), transport, r.setup().ModelKeys()...)
	}
	if s := r.setup(); s.Trace {
		transport = replay.NewTracer(s.Stderr, transport, append(s.ModelKeys(), s.Secrets...)...)
	}
	return transport, replayer, nil
}

// models returns the function that gives the model client of an agent (the
// tested agent, or a judge) in one run, made once per agent.
func (r *Runner) models(client *http.Client, replay bool) func(*schema.Agent) (runtime.Model, error) {
	models := map[*schema.Agent]runtime.Model{}
	var mu sync.Mutex // sub-agents called in one reply run at once
	return func(a *schema.Agent) (runtime.Model, error) {
		mu.Lock()
		defer mu.Unlock()
		if m := models[a]; m != nil {
			return m, nil
		}
		m, err := r.setup().NewModel(a, client, replay, cmp.Or(r.Logger, slog.New(slog.DiscardHandler)))
		if err != nil {
			return nil, err
		}
		models[a] = m
		return m, nil
	}
}

// setup returns the runner's Setup, or an empty one.
func (r *Runner) setup() *binding.Setup {
	if r.Setup == nil {
		return &binding.Setup{}
	}
	return r.Setup
}

// Start readies r for the runs of jobs with its Setup: it sets each job's
// test as the bindings give it; when a test runs against the model (see
// [Runner.Live]) and a model endpoint's key the bindings file reads is not
// set, it returns keyErr of the line that says so; then check's error (nil:
// none). Else it starts the tools into Library (see
// [binding.Setup.ToolLibrary]) and puts the setup's run options, with the
// tests' injected values (see [binding.Setup.TestInjects]), before
// Options. Call the returned function when the runs are done.
func (r *Runner) Start(ctx context.Context, jobs []Job, logger *slog.Logger, keyErr func(missing string) error, check func() error) (func(), error) {
	s := r.Setup
	agents := make([]*schema.Agent, len(jobs))
	for i := range jobs {
		jobs[i].Test = s.Bound.Test(jobs[i].Test)
		agents[i] = jobs[i].Test.Agent
	}
	if m := s.MissingKey(os.LookupEnv); m != "" && slices.ContainsFunc(jobs, r.Live) {
		return nil, keyErr(m)
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, err
		}
	}
	lib, closeTools, err := s.ToolLibrary(ctx, logger, nil)
	if err != nil {
		return nil, err
	}
	r.Library, r.Options = lib, append(s.RunOptions(nil, logger, s.TestInjects(agents)), r.Options...)
	return closeTools, nil
}
