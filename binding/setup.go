// Package binding sets up the runs of agents from what a command line
// gives and the project's bindings file: which bindings file is used and
// what it gives under the flags, the secrets to mask, the tool library and
// the checks before the first model call, the models with their fallbacks,
// retries and HTTP transports (replay, recording, tracing), the injected
// values fitted to their declared types, and the options of every run.
// gramc run, gramc mcp serve, gramc serve and gramc test set up here.
//
// # Entry points
//
//   - [Resolve] reads the bindings file under the [Options] and returns
//     the [Setup]; [Setup.Check] reports its problems, [Setup.Protect]
//     lists the secrets the process holds.
//   - [Setup.Bind] builds the tool library of agents and checks that their
//     tools bind and their injected parameters have values;
//     [Setup.ToolLibrary] builds the library alone.
//   - [Setup.Transport], [Setup.AgentOptions] and [Setup.RunOptions]: the
//     models and the options of the runs; [Setup.NewModel] and
//     [Setup.Models]: the model clients and fallbacks of an agent on
//     another transport (the test runner's cassettes).
//   - [ParseInjects], [SpecNames], [NewLogger]: the values of the flags.
//
// Every problem is an [*Error], whose [Kind] is the exit code of the
// command that reports it.
package binding

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// Kind is the kind of problem an [Error] reports, and the exit code of a
// command that ends with it.
type Kind int

// The kinds of [Error].
const (
	// Failed: the agent, a tool or the model failed (exit code 1).
	Failed Kind = 1
	// Usage: a flag or an input is wrong, or cannot be read (2).
	Usage Kind = 2
	// Config: the configuration is wrong or incomplete: a missing key, a
	// bindings file with errors, an injected parameter without value (3).
	Config Kind = 3
	// Interrupted: the command was interrupted (130, 128 + SIGINT).
	Interrupted Kind = 130
)

// Error is a problem found while setting up a run, or any other that ends
// a command: its message, a line or lines each starting with the
// command's name ("" when the problem was reported already), and its
// kind, the exit code.
type Error struct {
	Kind Kind
	Msg  string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// fail returns the [*Error] of kind with the message format makes.
func fail(kind Kind, format string, a ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, a...)}
}

// Lines returns the [*Error] of kind whose message is the lines that are
// not empty.
func Lines(kind Kind, lines ...string) *Error {
	var out []string
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return &Error{Kind: kind, Msg: strings.Join(out, "\n")}
}

// Options are what the command line gives.
type Options struct {
	// Cmd is the command, for messages: "gramc run".
	Cmd string
	// File is the agent file or directory ("-" for standard input), and
	// History the --history file: the files --record never replaces.
	File, History string
	// Tools (NAME=COMMAND), ToolSchemas (NAME=FILE) and Injects
	// (NAME=VALUE) are the --tool, --tool-schema and --inject values.
	Tools, ToolSchemas, Injects []string
	// MCP are the --mcp and --mcp-url servers, in the order given;
	// Headers are the --header values, NAME: VALUE or NAME=VALUE (see
	// [mcp.CutHeader]), sent to the URLs among them (see [Setup.header]).
	MCP     []mcp.Source
	Headers []string
	// Elicitor answers the MCP servers' elicitation requests (gramc run on
	// a terminal); nil: none, and the capability is not declared.
	Elicitor mcp.Elicitor
	// BaseURL is --base-url: the model endpoint, which replaces the
	// bindings file's and its key.
	BaseURL string
	// Record and Replay are the recording files; Force lets --record
	// replace a file that is not a recording.
	Record, Replay string
	Force          bool
	// Trace prints each model request and response, and the --tool
	// programs' standard error, on Stderr; LogLevel is --log-level, and
	// Stderr gets the MCP servers' standard error too unless it is "off".
	Trace    bool
	LogLevel string
	Stderr   io.Writer
	// The limits of each run (0: the runtime's defaults, for the first
	// three).
	MaxIterations, MaxDepth, MaxModelCalls int
	ResultLimit, OutputRetries             int
	NoSummary                              bool
	// ToolTimeout limits each tool call; MCPTimeout each step of starting
	// an MCP session (0: none).
	ToolTimeout, MCPTimeout time.Duration
	// MaxFileSize is the size limit of the files read.
	MaxFileSize int64
	// From are the paths given, whose bindings file is used; BindingsFile
	// names one instead (--bindings FILE), NoBindings uses none
	// (--bindings none).
	From         []string
	BindingsFile string
	NoBindings   bool
	// NoModel says that every answer is replayed: the endpoint's key is
	// not needed.
	NoModel bool
	// PerRequest are the injected parameters whose values come with each
	// request (gramc serve: from the caller's identity), so none is needed
	// before the start.
	PerRequest []string
	// BaseTransport, when set, makes the model requests instead of
	// http.DefaultTransport (gramc serve keeps more connections open).
	BaseTransport http.RoundTripper
}

// Setup is a run's setup: the [Options], the bindings under them, and what
// was found from both.
type Setup struct {
	Options
	// Bound is what the project's bindings file gives under the flags.
	Bound Bound
	// APIKey and KeyVar are the model endpoint's key and its variable,
	// from the bindings file (else OPENAI_API_KEY is read).
	APIKey, KeyVar string
	// Secrets are every secret the process holds (see [Setup.Protect]).
	Secrets []string
	// Tree is the program in which the agents run find the agents they
	// call or hand off to, with the models the bindings give them (see
	// [Setup.SetProgram]).
	Tree *schema.Program
}

// Protect returns, and keeps in Secrets, every secret the process holds:
// the keys of its environment, the --header values, the credentials of
// the URLs it is given and the values the bindings file reads. A command
// masks them in everything it writes, from before it prints anything.
func (s *Setup) Protect() []string {
	urls := []string{s.BaseURL, os.Getenv("OPENAI_BASE_URL")}
	for _, m := range s.MCP {
		urls = append(urls, m.URL)
	}
	secrets := replay.ProcessSecrets(os.Environ(), s.header(), urls...)
	for _, v := range s.Bound.Secrets {
		if v = strings.TrimSpace(v); len(v) >= 8 {
			secrets = append(secrets, v)
		}
	}
	s.Secrets = secrets
	return secrets
}

// Check returns the problems of the bindings file and of the flags, to
// report once what is written is masked: the error diagnostics of the file
// to print, and the error that reports its problem or the environment
// variables it reads that are not set (the model endpoint's key only when
// a model is called: not with --replay, and not when --base-url replaces
// the endpoint), or else the first problem of the flags.
func (s *Setup) Check() (diag.List, error) {
	if err := s.checkHeaders(); err != nil {
		return nil, err
	}
	errs, err := s.checkFile()
	if err == nil {
		err = s.checkFlags()
	}
	return errs, err
}

// header returns the headers of the --header values that are sent: those
// written NAME: VALUE or NAME=VALUE, but for the headers
// [mcp.UnsentHeader] refuses (see checkHeaders).
func (s *Setup) header() http.Header {
	h := http.Header{}
	for _, v := range s.Headers {
		if name, value, ok := mcp.CutHeader(v); ok && mcp.UnsentHeader(name) == "" {
			h.Add(name, value)
		}
	}
	return h
}

// checkHeaders returns the usage error of the first --header value that
// is not NAME: VALUE, which says which one it is without repeating it (it
// may hold a secret), or else of the first header that is not sent as
// given (see [mcp.UnsentHeader]), naming it.
func (s *Setup) checkHeaders() error {
	for i, v := range s.Headers {
		if _, _, ok := mcp.CutHeader(v); !ok {
			which := "--header"
			if len(s.Headers) > 1 {
				which = fmt.Sprintf("the %s --header", gramtext.Ordinal(i+1))
			}
			return s.usageErr("%s: write NAME: VALUE or NAME=VALUE, e.g. --header 'Authorization: Bearer TOKEN' (what was given is not shown: it may hold a secret)", which)
		}
	}
	for _, v := range s.Headers {
		if name, _, _ := mcp.CutHeader(v); mcp.UnsentHeader(name) != "" {
			return s.usageErr("--header %s: this header cannot be set: %s", http.CanonicalHeaderKey(name), mcp.UnsentHeader(name))
		}
	}
	return nil
}

// checkFlags returns the first problem of the flags of the tools and of
// the model's recording.
func (s *Setup) checkFlags() error {
	if s.Record != "" && s.Replay != "" {
		return s.usageErr("--record and --replay cannot be used together")
	}
	for _, spec := range s.Tools {
		name, command, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(command) == "" {
			return s.usageErr("--tool %q: write NAME=COMMAND", spec)
		}
	}
	for _, spec := range s.ToolSchemas {
		name, file, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(file) == "" {
			return s.usageErr("--tool-schema %q: write NAME=FILE", spec)
		}
		if !slices.Contains(SpecNames(s.Tools), strings.TrimSpace(name)) {
			return s.usageErr("--tool-schema %q: there is no --tool %s=COMMAND to give a schema to", spec, strings.TrimSpace(name))
		}
	}
	return nil
}

// checkFile returns the problems of the bindings file (see [Setup.Check]).
func (s *Setup) checkFile() (diag.List, error) {
	st := &s.Bound
	var errs diag.List
	if len(st.Diags) > 0 && st.File != nil {
		for _, d := range st.Diags {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
	}
	if st.Err != nil {
		if ue := (*project.UntrustedError)(nil); st.File != nil && !errors.As(st.Err, &ue) {
			return errs, fail(Config, "%s: %s: %v; see gramc check %s", s.Cmd, st.File.Path, st.Err, st.File.Path)
		}
		return errs, fail(Config, "%s: bindings: %v", s.Cmd, st.Err)
	}
	if st.Bindings == nil {
		return errs, nil
	}
	missing := st.Bindings.Missing(st.File, os.LookupEnv)
	if !s.NoModel && s.Replay == "" {
		if m := s.MissingKey(os.LookupEnv); m != "" {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return errs, Lines(Config, s.Cmd+": "+strings.Join(missing, "\n"+s.Cmd+": "),
			"  hint: the bindings file refers to environment variables and never holds their values: export each one before the command")
	}
	return errs, nil
}

// KeyError is the configuration error that reports missing, the line that
// says why a model endpoint's key cannot be read (see
// [Setup.MissingKey]).
func (s *Setup) KeyError(missing string) error {
	return Lines(Config, s.Cmd+": "+missing,
		"  hint: the bindings file names the variable that holds the model endpoint's key and never holds the key: export it before the command, or replay recorded answers with --replay")
}

// SetProgram sets Tree: tree, the program in which the agents run find the
// agents they call or hand off to, every agent with the model the bindings
// give it.
func (s *Setup) SetProgram(tree *schema.Program) {
	s.Tree = s.Bound.Program(tree)
}

// Agent returns agent as the runs take it: the agent of Tree of its name,
// with the model the bindings give it.
func (s *Setup) Agent(agent *schema.Agent) *schema.Agent {
	if s.Tree != nil {
		if a := s.Tree.Agent(agent.Name); a != nil {
			return a
		}
	}
	return s.Bound.Agent(agent)
}

// Served returns the agents of prog, the program of the file at path,
// that a server serves: those names names, or all of them, each with the
// model the bindings give it (see [Setup.Agent]).
func (s *Setup) Served(prog *schema.Program, path string, names []string) ([]*schema.Agent, error) {
	served := slices.Clone(prog.Agents())
	if len(names) > 0 {
		served = nil
		for _, name := range names {
			a := prog.Agent(name)
			if a == nil {
				return nil, s.usageErr("no agent %q in %s; %s", name, path, suggest.Available("agents", name, prog.AgentNames()))
			}
			if !slices.Contains(served, a) {
				served = append(served, a)
			}
		}
	}
	if len(served) == 0 {
		return nil, s.usageErr("%s has no agent to serve", path)
	}
	for i, a := range served {
		served[i] = s.Agent(a)
	}
	return served, nil
}

// Pick returns the agent of prog, the program of the file at path, that a
// run talks to: the one called name, or the file's only agent, with the
// model the bindings give it (see [Setup.Agent]).
func (s *Setup) Pick(prog *schema.Program, name, path string) (*schema.Agent, error) {
	names := prog.AgentNames()
	switch {
	case name != "":
		if a := prog.Agent(name); a != nil {
			return s.Agent(a), nil
		}
		return nil, s.usageErr("no agent %q in %s; %s", name, path, suggest.Available("agents", name, names))
	case prog.NumAgents() == 1:
		return s.Agent(prog.Agents()[0]), nil
	case prog.NumAgents() == 0:
		return nil, s.usageErr("%s has no agent", path)
	}
	return nil, s.usageErr("%s has several agents: choose one with --agent (%s)", path, strings.Join(names, ", "))
}

// SpecNames returns the names of NAME=VALUE flag values.
func SpecNames(specs []string) []string {
	var out []string
	for _, v := range specs {
		name, _, _ := strings.Cut(v, "=")
		out = append(out, strings.TrimSpace(name))
	}
	return out
}

// NewLogger returns a text logger on w at the named level, or a logger
// that drops everything for "off".
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	switch strings.ToLower(level) {
	case "off", "":
		return slog.New(slog.DiscardHandler), nil
	case "debug":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "warn", "warning":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return nil, fmt.Errorf("unknown log level %q (want debug, info, warn, error or off)", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
