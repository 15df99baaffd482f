package main

// The flags gramc run, gramc test and gramc mcp serve share: the tool
// library, the injected values, the model, recording and the runs.

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// appendTo returns the function of a repeatable flag (see
// [flag.FlagSet.Func]): each use of the flag adds its value to list.
func appendTo(list *[]string) func(string) error {
	return func(v string) error { *list = append(*list, v); return nil }
}

// runOptions are the parsed flags of gramc run and gramc mcp serve.
type runOptions struct {
	cmd         string // the command, for messages: "gramc run"
	file, agent string
	messages    []string
	json        bool
	jsonEvents  bool // --json (not --json=final): events, one per line
	// b are the flags package binding takes (see setup).
	b binding.Options
	// set is the setup of the runs from the flags and the bindings file
	// (see setup).
	set *binding.Setup
	// prompts counts the questions asked on the terminal (an MCP server's,
	// an approval's: see terminalElicitor), so that the live output leaves
	// the lines above them as they are.
	prompts *atomic.Int64
}

// mcpSources returns the function that adds a --mcp value (or, with url,
// a --mcp-url value) to list: the two flags collect one list, in the
// order given.
func mcpSources(list *[]mcp.Source, url bool) func(string) error {
	return func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("empty value")
		}
		src := mcp.Source{Command: v}
		if url {
			src = mcp.Source{URL: v}
		}
		*list = append(*list, src)
		return nil
	}
}

// addSharedFlags registers the flags gramc run and gramc mcp serve share:
// the tool library, the model, recording and the runs.
func (o *runOptions) addSharedFlags(fs *flag.FlagSet) {
	o.addBindingFlags(fs)
	fs.StringVar(&o.b.Record, "record", "", "save the model requests and responses to `FILE`")
	fs.StringVar(&o.b.Replay, "replay", "", "answer from a recording `FILE` instead of a model")
	fs.BoolVar(&o.b.Force, "force", false, "let --record replace a file that is not a recording (never a file the command reads)")
}

// addBindingFlags registers the flags of the tool library, the model and
// the runs, which gramc test shares too.
func (o *runOptions) addBindingFlags(fs *flag.FlagSet) {
	fs.Func("bindings", "use the bindings file `FILE` instead of the nearest bindings.gram, or none", func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("give a file, or none")
		}
		o.b.NoBindings, o.b.BindingsFile = v == "none", v
		if v == "none" {
			o.b.BindingsFile = ""
		}
		return nil
	})
	fs.Func("tool", "bind tool NAME to a program: NAME=COMMAND (repeatable)", appendTo(&o.b.Tools))
	fs.Func("tool-schema", "the JSON Schema of the arguments the --tool program NAME accepts: NAME=FILE (repeatable)", appendTo(&o.b.ToolSchemas))
	fs.Func("mcp", "bind tools to the MCP server that `COMMAND` starts (stdio; repeatable)", mcpSources(&o.b.MCP, false))
	fs.Func("mcp-url", "bind tools to the MCP server at `URL` (streamable HTTP; repeatable)", mcpSources(&o.b.MCP, true))
	fs.Func("header", "send the HTTP header `NAME: VALUE` (or NAME=VALUE) to the --mcp-url servers, not to another server they redirect to (repeatable; the value is masked in all output; Host, Content-Type and the headers the HTTP or MCP client sets are refused)", appendTo(&o.b.Headers))
	fs.Func("inject", "set an injected parameter: NAME=VALUE, VALUE as JSON or text (repeatable)", appendTo(&o.b.Injects))
	fs.BoolVar(&o.b.Trace, "trace", false, "print each model request and response, and what --tool programs write on their standard error, on standard error (secrets masked)")
	fs.StringVar(&o.b.BaseURL, "base-url", "", "the `URL` of an OpenAI-compatible server, e.g. http://localhost:11434/v1")
	fs.Var(minInt(&o.b.MaxIterations, 1, ""), "max-iterations", "override the agent's maxIterations with `N`, at least 1")
	fs.Var(minInt(&o.b.MaxDepth, 1, ""), "max-depth", fmt.Sprintf("let the runs of sub-agents nest at most `N` deep, at least 1 (default %d)", runtime.DefaultMaxDepth))
	fs.Var(minInt(&o.b.MaxModelCalls, 1, ""), "max-model-calls", fmt.Sprintf("stop a run after `N` model calls, its sub-agents' and handoffs' included, at least 1 (default %d)", runtime.DefaultMaxModelCalls))
	fs.BoolVar(&o.b.NoSummary, "no-summary", false, "at the iteration limit, do not ask the model for a summary")
	fs.StringVar(&o.b.LogLevel, "log-level", "off", "log on standard error at `LEVEL`: debug, info, warn, error or off")
	o.b.ToolTimeout = runtime.DefaultExecTimeout
	fs.Var(positiveDuration(&o.b.ToolTimeout), "tool-timeout", "time limit of each --tool program run and MCP tool call: a `DURATION` of more than 0, e.g. 30s or 2m")
	fs.DurationVar(&o.b.MCPTimeout, "mcp-timeout", mcp.DefaultStartTimeout, mcpTimeoutUsage)
	o.b.ResultLimit = runtime.DefaultResultLimit
	fs.Var(minInt(&o.b.ResultLimit, 0, "0: none"), "result-limit", "size limit in `bytes` of a tool result sent to the model (0: none)")
	o.b.OutputRetries = runtime.DefaultOutputRetries
	fs.Var(minInt(&o.b.OutputRetries, 0, "0: never"), "output-retries", "ask the model again up to `N` times when the answer of an agent with a result type does not match it (0: never)")
}

// usageErr returns a usage error of the command.
func (o *runOptions) usageErr(format string, a ...any) error {
	return usageError(o.cmd, format, a...)
}

// parseFile parses the command line of a command that takes one agent file
// (and, with stdin, "-" for standard input), and takes the file as the one
// bound; why says what to give when the command line has not one file.
func (o *runOptions) parseFile(e *env, fs *flag.FlagSet, args []string, stdin bool, why string) error {
	files, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 || !stdin && files[0] == "-" {
		return o.usageErr("%s", why)
	}
	if dir, tree := project.TreeArg(files[0]); tree {
		verb := "serves"
		if o.cmd == "gramc run" {
			verb = "runs"
		}
		return o.usageErr("%s names the packages of a tree, but %s %s the agents of one package or file: give its directory or the file, e.g. %s %s --agent NAME", files[0], o.cmd, verb, o.cmd, filepath.Clean(dir))
	}
	o.file = files[0]
	o.b.From = []string{o.file}
	return nil
}
