package binding

// The models of a run and their HTTP transports (replay, recording,
// tracing), and the options of every run.

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// Transport returns the HTTP transport of the model clients: replay (the
// replayer of --replay, returned too) or the network, then recording, then
// tracing.
func (s *Setup) Transport() (http.RoundTripper, *replay.Replayer, error) {
	key := os.Getenv("OPENAI_API_KEY")
	var transport http.RoundTripper = http.DefaultTransport
	if s.BaseTransport != nil {
		transport = s.BaseTransport
	}
	var replayer *replay.Replayer
	if s.Replay != "" {
		rp, err := replay.NewReplayer(s.Replay, s.MaxFileSize)
		if err != nil {
			return nil, nil, s.usageErr("--replay: %v", inputfile.Hint(err, "give a recording file"))
		}
		replayer, transport = rp, rp
	}
	secrets := append([]string{key}, s.Secrets...)
	if s.Record != "" {
		// Found now, not after the first model calls.
		path, err := replay.RecordTarget(s.Record, s.Force, s.inputFiles())
		if err != nil {
			return nil, nil, s.usageErr("--record: %v", err)
		}
		transport = replay.NewRecorder(path, transport, secrets...)
	}
	if s.Trace {
		transport = replay.NewTracer(s.Stderr, transport, secrets...)
	}
	return transport, replayer, nil
}

// ModelKeys returns the keys of the model endpoints, which the recordings
// and traces of test runs mask: the bindings file's, the providers' keys
// of the environment and those of the bindings file's endpoints.
func (s *Setup) ModelKeys() []string {
	keys := []string{s.APIKey}
	for _, v := range runtime.KeyVars {
		keys = append(keys, os.Getenv(v))
	}
	for _, ep := range s.Bound.Endpoints {
		keys = append(keys, ep.APIKey)
	}
	return slices.DeleteFunc(keys, func(k string) bool { return k == "" })
}

// inputFiles returns the files the command reads, which --record never
// replaces: the agent file and the other .gram files of its package, the
// bindings file, the --history file and the --tool-schema files.
func (s *Setup) inputFiles() []replay.Input {
	var out []replay.Input
	dir := ""
	if s.File != "" && s.File != "-" {
		dir = s.File
		if info, err := os.Stat(s.File); err == nil && !info.IsDir() {
			out = append(out, replay.Input{Path: s.File, What: "the agent file"})
			dir = filepath.Dir(s.File)
		}
	}
	if s.Bound.File != nil {
		out = append(out, replay.Input{Path: s.Bound.File.Path, What: "the bindings file"})
	}
	if s.History != "" {
		out = append(out, replay.Input{Path: s.History, What: "the --history file"})
	}
	for _, spec := range s.ToolSchemas {
		if _, file, ok := strings.Cut(spec, "="); ok {
			out = append(out, replay.Input{Path: strings.TrimSpace(file), What: "a --tool-schema file"})
		}
	}
	if dir != "" {
		paths, _ := project.Files(dir)
		for _, p := range paths {
			out = append(out, replay.Input{Path: p, What: "a file of the agent's package"})
		}
	}
	return out
}

// AgentOptions returns the run options of each of agents, on the
// transport of the model clients (see [Setup.Transport]; its replayer of
// --replay is returned too): those of every run (see [Setup.RunOptions]),
// its model and fallbacks, and the tree of runs it starts: Tree, in which
// it finds the agents it calls or hands off to, and the source of their
// models (see modelSource), which makes its own model too, so that every
// agent of the tree has its model made alike.
func (s *Setup) AgentOptions(agents []*schema.Agent, logger *slog.Logger, injected map[string]any) ([][]runtime.Option, *replay.Replayer, error) {
	transport, replayer, err := s.Transport()
	if err != nil {
		return nil, nil, err
	}
	src, err := s.modelSource(s.Tree.Reachable(agents...), transport, replayer != nil, logger)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]runtime.Option, len(agents))
	for i, a := range agents {
		model, fbs, err := src(a)
		if err != nil {
			return nil, nil, err
		}
		opts := s.RunOptions(model, logger, injected)
		if len(fbs) > 0 {
			opts = append(opts, runtime.WithFallbacks(fbs...))
		}
		out[i] = append(opts, runtime.WithProgram(s.Tree), runtime.WithModelSource(src))
	}
	return out, replayer, nil
}

// modelSource returns the source of the models of the agents of nested
// runs and handoffs: each agent's model and fallbacks made as the command
// makes the top agent's (see newModel and [Setup.Models]), on transport.
// Those of agents are made now, so that a problem with one (a provider
// without a key) is reported before any run; another is made when asked.
func (s *Setup) modelSource(agents []*schema.Agent, transport http.RoundTripper, replay bool, logger *slog.Logger) (runtime.ModelSource, error) {
	type made struct {
		model runtime.Model
		fbs   []runtime.Fallback
	}
	build := s.Models(func(a *schema.Agent) (runtime.Model, error) {
		return s.newModel(a, transport, replay, logger)
	})
	models := map[*schema.Agent]made{}
	for _, a := range agents {
		m, fbs, err := build(a)
		if err != nil {
			return nil, err
		}
		models[a] = made{m, fbs}
	}
	return func(a *schema.Agent) (runtime.Model, []runtime.Fallback, error) {
		if m, ok := models[a]; ok {
			return m.model, m.fbs, nil
		}
		return build(a)
	}, nil
}

// Models returns the source of the models of agents: each agent's model
// made by model, with the fallbacks the bindings file gives the agent,
// each made by model from a copy of the agent with the fallback's model.
func (s *Setup) Models(model func(*schema.Agent) (runtime.Model, error)) runtime.ModelSource {
	return func(a *schema.Agent) (runtime.Model, []runtime.Fallback, error) {
		m, err := model(a)
		if err != nil {
			return nil, nil, err
		}
		fbs, err := runtime.Fallbacks(s.Bound.Fallbacks[a.Name], func(fm schema.Model) (runtime.Model, error) {
			b := *a
			b.Model = fm
			return model(&b)
		})
		if err != nil {
			return nil, nil, err
		}
		return m, fbs, nil
	}
}

// NewModel returns the model client of agent on client (replaying a
// recording when replay is set), as the bindings give it: the model
// endpoint and its key, the providers' endpoints, the agent's retries.
// Its error is the runtime's; newModel makes the command's of it.
func (s *Setup) NewModel(agent *schema.Agent, client *http.Client, replay bool, logger *slog.Logger) (runtime.Model, error) {
	r := s.Bound.Retries[agent.Name]
	return runtime.NewModel(agent.Model, runtime.ModelConfig{BaseURL: s.BaseURL, APIKey: s.APIKey, KeyVar: s.KeyVar,
		Endpoints:  s.Bound.Endpoints,
		HTTPClient: client, Logger: logger, Secrets: s.Secrets, Replay: replay,
		Retry: runtime.NewRetryPolicy(r.Retries, r.Backoff)})
}

// newModel returns the model client of agent on transport (see
// [Setup.NewModel]), its error the command's, with hints.
func (s *Setup) newModel(agent *schema.Agent, transport http.RoundTripper, replay bool, logger *slog.Logger) (runtime.Model, error) {
	model, err := s.NewModel(agent, &http.Client{Transport: transport}, replay, logger)
	if err == nil {
		return model, nil
	}
	msg := fmt.Sprintf("%s: %v", s.Cmd, err)
	var ce *runtime.ConfigError
	if !errors.As(err, &ce) {
		return nil, fail(Failed, "%s", msg)
	}
	local := "  hint: for a local OpenAI-compatible server such as Ollama, add --base-url http://localhost:11434/v1"
	if agent.Model.Provider == schema.Anthropic {
		local = "  hint: for another server of the Messages API, set ANTHROPIC_BASE_URL or the bindings file's (:Model {provider: \"Anthropic\", baseURL})"
	}
	if agent.Model.Provider == schema.Gemini {
		local = "  hint: for another server of the Gemini API, set GEMINI_BASE_URL or the bindings file's (:Model {provider: \"Gemini\", baseURL})"
	}
	if s.Cmd == "gramc serve" {
		// serve has no --replay: each request needs a model.
		return nil, Lines(Config, msg, ConfigHint(ce), local)
	}
	return nil, Lines(Config, msg, ConfigHint(ce), local+";",
		"        to try the agent without a model, replay a recording with --replay FILE")
}

// ConfigHint returns the hint line of a configuration error, or "".
func ConfigHint(ce *runtime.ConfigError) string {
	if ce.Hint == "" {
		return ""
	}
	return "  hint: " + ce.Hint
}

// RunErrorKind returns the kind of the error of a run, and the hint line
// that follows it, if any: an input the agent refuses, or a recording that
// cannot be written, is [Usage]; a configuration error is [Config], with
// its hint (see [ConfigHint]); any other is [Failed].
func RunErrorKind(err error) (Kind, string) {
	var (
		ce *runtime.ConfigError
		ve *runtime.ValidationError
		we *replay.WriteError
	)
	switch {
	case errors.As(err, &we):
		return Usage, ""
	case errors.As(err, &ce):
		return Config, ConfigHint(ce)
	case errors.As(err, &ve):
		return Usage, ""
	}
	return Failed, ""
}

// RunOptions returns the options of every run, with model (nil: the
// caller sets it).
func (s *Setup) RunOptions(model runtime.Model, logger *slog.Logger, injected map[string]any) []runtime.Option {
	opts := []runtime.Option{
		runtime.WithModel(model),
		runtime.WithLogger(logger),
		runtime.WithResultLimit(s.ResultLimit),
		runtime.WithSummary(!s.NoSummary),
		runtime.WithOutputRetries(s.OutputRetries),
		runtime.WithPrices(s.Bound.Bindings.PriceTable()),
	}
	if s.MaxIterations > 0 {
		opts = append(opts, runtime.WithMaxIterations(s.MaxIterations))
	}
	if s.MaxDepth > 0 {
		opts = append(opts, runtime.WithMaxDepth(s.MaxDepth))
	}
	if s.MaxModelCalls > 0 {
		opts = append(opts, runtime.WithMaxModelCalls(s.MaxModelCalls))
	}
	if injected != nil {
		opts = append(opts, runtime.WithInjected(injected))
	}
	if s.Trace {
		opts = append(opts, runtime.WithToolTrace(s.Stderr))
	}
	return append(opts, s.streamingOptions()...)
}

// streamingOptions returns the options that fix whether model answers are
// streamed when that is not for the command to choose: a replayed session
// streams if and only if the recording did, so that its requests match.
func (s *Setup) streamingOptions() []runtime.Option {
	if s.Replay == "" {
		return nil
	}
	if on, ok := recordingStreams(s.Replay, s.MaxFileSize); ok {
		return []runtime.Option{runtime.WithStreaming(on)}
	}
	return nil
}

// recordingStreams reports whether the first request of a recording asked
// for a stream (and whether the recording could be read within limit).
func recordingStreams(path string, limit int64) (bool, bool) {
	rec, err := replay.ReadRecording(path, limit)
	if err != nil || len(rec.Interactions) == 0 {
		return false, false
	}
	var body struct {
		Stream bool `json:"stream"`
	}
	if json.Unmarshal(rec.Interactions[0].Request.Body, &body) != nil {
		return false, false
	}
	return body.Stream, true
}
