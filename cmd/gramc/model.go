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
		path, err := recordTarget(o.record, o.force, o.inputFiles())
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

// inputFile is a file a command reads: its path and what it is to the
// command, for messages ("the agent file").
type inputFile struct{ path, what string }

// inputFiles returns the files the command reads, which --record never
// replaces: the agent file and the other .gram files of its package, the
// bindings file, the --history file and the --tool-schema files.
func (o *runOptions) inputFiles() []inputFile {
	var out []inputFile
	dir := ""
	if o.file != "" && o.file != "-" {
		dir = o.file
		if info, err := os.Stat(o.file); err == nil && !info.IsDir() {
			out = append(out, inputFile{o.file, "the agent file"})
			dir = filepath.Dir(o.file)
		}
	}
	if o.bound.File != nil {
		out = append(out, inputFile{o.bound.File.Path, "the bindings file"})
	}
	if o.history != "" {
		out = append(out, inputFile{o.history, "the --history file"})
	}
	for _, spec := range o.toolSchemas {
		if _, file, ok := strings.Cut(spec, "="); ok {
			out = append(out, inputFile{strings.TrimSpace(file), "a --tool-schema file"})
		}
	}
	if dir != "" {
		paths, _ := project.Files(dir)
		for _, p := range paths {
			out = append(out, inputFile{p, "a file of the agent's package"})
		}
	}
	return out
}

// recordTarget returns the file a recording for path is written to (the
// target of a symbolic link, so that the link stays), or why it cannot be
// written there: it is one of inputs (the same file, whatever its name,
// even with force), it is a directory or not a regular file, it is a file
// that is neither empty nor a recording (unless force), or it cannot be
// written. Nothing is changed.
func recordTarget(name string, force bool, inputs []inputFile) (string, error) {
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
		if in, ok := sameInput(info, inputs); ok {
			what := in.what
			if filepath.Clean(in.path) != filepath.Clean(name) {
				what += " " + in.path + " under another name"
			}
			return "", fmt.Errorf("%s is %s, which this command reads: --record never replaces an input, even with --force; give another file name, such as %s", name, what, recordingName(in.path))
		}
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

// sameInput returns the input that is the file of info (compared as files,
// by os.SameFile, not by name).
func sameInput(info os.FileInfo, inputs []inputFile) (inputFile, bool) {
	for _, in := range inputs {
		if other, err := os.Stat(in.path); err == nil && os.SameFile(info, other) {
			return in, true
		}
	}
	return inputFile{}, false
}

// recordingName suggests a name for a recording of a session of the file
// at path: hello.gram gives hello.replay.json.
func recordingName(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ".replay.json"
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
			local := "  hint: for a local OpenAI-compatible server such as Ollama, add --base-url http://localhost:11434/v1"
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

// configHint returns the hint line of a configuration error, or "".
func configHint(ce *runtime.ConfigError) string {
	if ce.Hint == "" {
		return ""
	}
	return "  hint: " + ce.Hint
}
