package main

// The setup of gramc run, gramc test, gramc mcp serve and gramc serve from
// their flags: package binding resolves the project's bindings file under
// them, before anything is printed (its secrets are masked), and reports
// its problems after.

import (
	"context"
	"log/slog"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// setup checks the shared flags, resolves the bindings (o.set) and
// returns the logger and the injected values. From here on, what the
// command writes has its secrets masked.
func (o *runOptions) setup(e *env) (*slog.Logger, map[string]any, error) {
	o.b.Cmd, o.b.File, o.b.Stderr, o.b.MaxFileSize = o.cmd, o.file, e.stderr, e.maxFileSize
	o.set = binding.Resolve(o.b)
	e.mask(o.set.Protect()...)
	o.set.Stderr = e.stderr
	diags, err := o.set.Check()
	writeDiags(e, o.set.Bound.File, diags, 0)
	if err != nil {
		return nil, nil, err
	}
	logger, err := binding.NewLogger(e.stderr, o.b.LogLevel)
	if err != nil {
		return nil, nil, o.usageErr("%v", err)
	}
	injected, err := binding.ParseInjects(o.b.Injects)
	if err != nil {
		return nil, nil, o.usageErr("%v", err)
	}
	return logger, injected, nil
}

// loadProgram reads and compiles an agent file with its package, or the
// package of a directory (see loadPackage); on errors it prints the
// diagnostics. It returns the program whose agents the command runs, and
// sets the program in which they find the agents they call or hand off
// to, every agent with the model the bindings give it (see
// [binding.Setup.SetProgram]).
func (o *runOptions) loadProgram(e *env, path string) (*schema.Program, error) {
	l, err := loadPackage(e, o.cmd, path, 0)
	if err != nil {
		return nil, err
	}
	o.set.SetProgram(l.tree)
	return l.prog, nil
}

// bind binds the tools of agents (see [binding.Setup.Bind]; serving names
// the agents in the tools' messages) and returns their library, the run
// options of each agent (see [binding.Setup.AgentOptions]: its model
// client on the transports of the flags, its fallback models and the
// models of the agents it calls or hands off to, which share them), the
// replayer of --replay and the function that closes the tools.
func (o *runOptions) bind(ctx context.Context, agents []*schema.Agent, serving bool, logger *slog.Logger, injected map[string]any) (*runtime.Library, [][]runtime.Option, *replay.Replayer, func(), error) {
	lib, injected, closeTools, err := o.set.Bind(ctx, agents, logger, injected, serving)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	opts, replayer, err := o.set.AgentOptions(agents, logger, injected)
	if err != nil {
		closeTools()
		return nil, nil, nil, nil, err
	}
	return lib, opts, replayer, closeTools, nil
}
