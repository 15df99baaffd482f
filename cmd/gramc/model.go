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

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// replayBaseURL is the base URL used with --replay; nothing is ever sent to
// it.
const replayBaseURL = "http://replay.invalid/v1"

// makeModel builds the model client of agent with its transports; see
// modelTransport and newModel.
func makeModel(e *env, agent *schema.Agent, o runOptions, logger *slog.Logger) (runtime.Model, *replay.Replayer, error) {
	transport, replayer, err := modelTransport(e, o)
	if err != nil {
		return nil, nil, err
	}
	model, err := newModel(agent, o, transport, replayer != nil, logger)
	return model, replayer, err
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
		path, err := recordTarget(o.record, o.force)
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

// recordTarget returns the file a recording for path is written to (the
// target of a symbolic link, so that the link stays), or why it cannot be
// written there: it is a directory or not a regular file, it is a file
// that is neither empty nor a recording (unless force), or it cannot be
// written. Nothing is changed.
func recordTarget(name string, force bool) (string, error) {
	path := name
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return "", fmt.Errorf("%s is a directory; give a file name", name)
	case err == nil && !info.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file; give a file name", name)
	case err == nil:
		if _, rerr := replay.ReadRecording(path, 0); rerr != nil && info.Size() > 0 && !force {
			return "", fmt.Errorf("%s exists and is not a recording; give another file name, or add --force to replace it", name)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return "", fmt.Errorf("cannot write %s: %w", name, err)
		}
		return path, f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("cannot create %s: %w", name, err)
	}
	f.Close()
	return path, os.Remove(path)
}

// newModel returns the model client of agent on transport (replaying a
// recording when replay is set).
func newModel(agent *schema.Agent, o runOptions, transport http.RoundTripper, replay bool, logger *slog.Logger) (runtime.Model, error) {
	client := &http.Client{Transport: transport}
	var (
		model runtime.Model
		err   error
	)
	if replay {
		model, err = runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: agent.Model.Provider, BaseURL: replayBaseURL,
			HTTPClient: client, Logger: logger, Secrets: o.secrets})
	} else {
		model, err = runtime.NewModel(agent.Model, runtime.ModelConfig{BaseURL: o.baseURL, APIKey: o.apiKey, KeyVar: o.keyVar, HTTPClient: client, Logger: logger, Secrets: o.secrets})
	}
	if err != nil {
		msg := fmt.Sprintf("%s: %v", o.cmd, err)
		var ce *runtime.ConfigError
		if errors.As(err, &ce) {
			return nil, fail(exitConfig, "%s", joinLines(msg, configHint(ce),
				"  hint: for a local OpenAI-compatible server such as Ollama, add --base-url http://localhost:11434/v1;",
				"        to try the agent without a model, replay a recording with --replay FILE"))
		}
		return nil, fail(exitError, "%s", msg)
	}
	return model, nil
}

// configHint returns the hint line of a configuration error, or "".
func configHint(ce *runtime.ConfigError) string {
	if ce.Hint == "" {
		return ""
	}
	return "  hint: " + ce.Hint
}
