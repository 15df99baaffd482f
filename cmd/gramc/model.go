package main

// The model client of a run and its HTTP transports: replay, recording,
// tracing.

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// makeModel returns the run options of agent (see agentOptions): its
// model client on its transports (see modelTransport and newModel), its
// fallback models and the models of the agents it calls or hands off to,
// which share them; and the replayer of --replay.
func makeModel(e *env, agent *schema.Agent, o *runOptions, logger *slog.Logger, injected map[string]any) ([]runtime.Option, *replay.Replayer, error) {
	transport, replayer, err := modelTransport(e, *o)
	if err != nil {
		return nil, nil, err
	}
	opts, err := o.agentOptions([]*schema.Agent{agent}, transport, replayer != nil, logger, injected)
	if err != nil {
		return nil, nil, err
	}
	return opts[0], replayer, nil
}

// agentFallbacks returns agent's fallback models in the bindings file,
// their clients on transport as the agent's.
func agentFallbacks(agent *schema.Agent, o runOptions, transport http.RoundTripper, replay bool, logger *slog.Logger) ([]runtime.Fallback, error) {
	return runtime.Fallbacks(o.bound.Fallbacks[agent.Name], fallbackModel(agent, o, transport, replay, logger))
}

// fallbackModel returns the function that makes the client of a fallback
// model of agent, on transport as the agent's.
func fallbackModel(agent *schema.Agent, o runOptions, transport http.RoundTripper, replay bool, logger *slog.Logger) func(schema.Model) (runtime.Model, error) {
	return func(m schema.Model) (runtime.Model, error) {
		a := *agent
		a.Model = m
		return newModel(&a, o, transport, replay, logger)
	}
}

// modelTransport returns the HTTP transport of the model clients: replay
// or the network, then recording, then tracing.
func modelTransport(e *env, o runOptions) (http.RoundTripper, *replay.Replayer, error) {
	key := os.Getenv("OPENAI_API_KEY")
	var transport http.RoundTripper = http.DefaultTransport
	if o.baseTransport != nil {
		transport = o.baseTransport
	}
	var replayer *replay.Replayer
	if o.replay != "" {
		rp, err := replay.NewReplayer(o.replay, o.maxFileSize)
		if err != nil {
			return nil, nil, o.usageErr("--replay: %v", inputHint(err, "give a recording file"))
		}
		replayer, transport = rp, rp
	}
	secrets := append([]string{key}, o.secrets...)
	if o.record != "" {
		// Found now, not after the first model calls.
		path, err := replay.RecordTarget(o.record, o.force, o.inputFiles())
		if err != nil {
			return nil, nil, o.usageErr("--record: %v", err)
		}
		transport = replay.NewRecorder(path, transport, secrets...)
	}
	if o.trace {
		transport = replay.NewTracer(e.stderr, transport, secrets...)
	}
	return transport, replayer, nil
}

// inputFiles returns the files the command reads, which --record never
// replaces: the agent file and the other .gram files of its package, the
// bindings file, the --history file and the --tool-schema files.
func (o *runOptions) inputFiles() []replay.Input {
	var out []replay.Input
	dir := ""
	if o.file != "" && o.file != "-" {
		dir = o.file
		if info, err := os.Stat(o.file); err == nil && !info.IsDir() {
			out = append(out, replay.Input{Path: o.file, What: "the agent file"})
			dir = filepath.Dir(o.file)
		}
	}
	if o.bound.File != nil {
		out = append(out, replay.Input{Path: o.bound.File.Path, What: "the bindings file"})
	}
	if o.history != "" {
		out = append(out, replay.Input{Path: o.history, What: "the --history file"})
	}
	for _, spec := range o.toolSchemas {
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

// newModel returns the model client of agent on transport (replaying a
// recording when replay is set).
func newModel(agent *schema.Agent, o runOptions, transport http.RoundTripper, replay bool, logger *slog.Logger) (runtime.Model, error) {
	model, err := runtime.NewModel(agent.Model, runtime.ModelConfig{BaseURL: o.baseURL, APIKey: o.apiKey, KeyVar: o.keyVar,
		Endpoints:  runtime.Endpoints(o.bound.Endpoints),
		HTTPClient: &http.Client{Transport: transport}, Logger: logger, Secrets: o.secrets, Replay: replay,
		Retry: retryPolicy(o.bound.Retries[agent.Name])})
	if err != nil {
		msg := fmt.Sprintf("%s: %v", o.cmd, err)
		var ce *runtime.ConfigError
		if errors.As(err, &ce) {
			local := "  hint: for a local OpenAI-compatible server such as Ollama, add --base-url http://localhost:11434/v1"
			if agent.Model.Provider == schema.Anthropic {
				local = "  hint: for another server of the Messages API, set ANTHROPIC_BASE_URL or the bindings file's (:Model {provider: \"Anthropic\", baseURL})"
			}
			if agent.Model.Provider == schema.Gemini {
				local = "  hint: for another server of the Gemini API, set GEMINI_BASE_URL or the bindings file's (:Model {provider: \"Gemini\", baseURL})"
			}
			if o.cmd == "gramc serve" {
				// serve has no --replay: each request needs a model.
				return nil, fail(exitConfig, "%s", joinLines(msg, configHint(ce), local))
			}
			return nil, fail(exitConfig, "%s", joinLines(msg, configHint(ce), local+";",
				"        to try the agent without a model, replay a recording with --replay FILE"))
		}
		return nil, fail(exitError, "%s", msg)
	}
	return model, nil
}

// retryPolicy returns the runtime's policy of a retry setting of the
// bindings file (the default one when it sets nothing).
func retryPolicy(r project.Retry) runtime.RetryPolicy {
	return runtime.NewRetryPolicy(r.Retries, r.Backoff)
}

// configHint returns the hint line of a configuration error, or "".
func configHint(ce *runtime.ConfigError) string {
	if ce.Hint == "" {
		return ""
	}
	return "  hint: " + ce.Hint
}
