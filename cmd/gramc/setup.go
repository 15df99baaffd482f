package main

// The setup of gramc run, gramc test, gramc mcp serve and gramc serve from
// their flags: package binding resolves the project's bindings file under
// them, before anything is printed (its secrets are masked), and reports
// its problems after.

import (
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
	if err := o.headerError(); err != nil {
		return nil, nil, err
	}
	o.b.Cmd, o.b.File, o.b.Stderr, o.b.MaxFileSize = o.cmd, o.file, e.stderr, e.maxFileSize
	o.set = binding.Resolve(o.b)
	e.mask(o.set.Protect()...)
	o.set.Stderr = e.stderr
	diags, err := o.set.Check()
	if len(diags) > 0 {
		writeDiags(e, o.set.Bound.File, diags, 0)
	}
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
// package of a directory (see loadPackageTree); on errors it prints the
// diagnostics. It returns the program whose agents the command runs, and
// sets the program in which they find the agents they call or hand off
// to, every agent with the model the bindings give it (see
// [binding.Setup.SetProgram]).
func (o *runOptions) loadProgram(e *env, path string) (*schema.Program, error) {
	prog, tree, err := loadPackageTree(e, o.cmd, path, 0)
	if err != nil {
		return nil, err
	}
	o.set.SetProgram(tree)
	return prog, nil
}

// makeModel returns the run options of agent (see
// [binding.Setup.AgentOptions]): its model client on the transports of the
// flags, its fallback models and the models of the agents it calls or
// hands off to, which share them; and the replayer of --replay.
func (o *runOptions) makeModel(agent *schema.Agent, logger *slog.Logger, injected map[string]any) ([]runtime.Option, *replay.Replayer, error) {
	opts, replayer, err := o.set.AgentOptions([]*schema.Agent{agent}, logger, injected)
	if err != nil {
		return nil, nil, err
	}
	return opts[0], replayer, nil
}
