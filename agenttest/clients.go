// The clients of a test's runs: the transport that replays or records its
// cassette, and the model client of each agent it reaches.

package agenttest

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// transport returns the HTTP transport of run rep of job j's test: the
// test's cassette replayed or recorded as source says (see runCassette),
// wrapped by the runner's Transport.
func (r *Runner) transport(j Job, source string, rep int) (http.RoundTripper, *replay.Replayer, error) {
	t := j.Test
	cassette := r.CassettePath(j.Path, t.Name)
	var transport http.RoundTripper = http.DefaultTransport
	var replayer *replay.Replayer
	switch source {
	case "replay":
		rp, err := replay.NewReplayer(cassette, r.MaxFileSize)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, nil, fmt.Errorf("%w for test %s at %s: record one with gramc test --record", errNoCassette, t.Name, cassette)
			}
			return nil, nil, &runtime.ConfigError{Message: "reading the cassette of test " + t.Name, Err: err}
		}
		replayer, transport = rp, rp
	case "record":
		transport = replay.NewRecorder(r.runCassette(j, rep), transport, r.secrets()...)
	}
	if r.Transport != nil {
		transport = r.Transport(transport)
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
		logger := r.Logger
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		m, err := runtime.NewModel(a.Model, runtime.ModelConfig{BaseURL: r.BaseURL, APIKey: r.APIKey, KeyVar: r.KeyVar,
			Endpoints:  r.Endpoints,
			HTTPClient: client, Logger: logger, Replay: replay,
			Retry: runtime.NewRetryPolicy(r.Retries[a.Name].Retries, r.Retries[a.Name].Backoff)})
		if err != nil {
			return nil, err
		}
		models[a] = m
		return m, nil
	}
}
