package main

// gramc run: run an agent of a gram file, one conversation, turn by turn.

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

func runRun(e *env, args []string) error {
	fs := newFlags(e, "run")
	o := runOptions{cmd: "gramc run"}
	fs.StringVar(&o.agent, "agent", "", "the agent to run (needed when the file has several)")
	fs.Func("m", "a user message; repeat for several turns", appendTo(&o.messages))
	fs.Func("message", "same as -m", appendTo(&o.messages))
	fs.BoolFunc("json", "print the events of each turn as JSON, one per line; --json=final prints each turn's response", o.setJSON)
	fs.StringVar(&o.b.History, "history", "", "continue the conversation in FILE (JSON: messages, a --json response or a recording)")
	o.addSharedFlags(fs)
	store := addStoreFlag(e, fs, nil, storeUsage)
	colorFlag(e, fs)
	if err := o.parseFile(e, fs, args, true, "give exactly one agent file (see gramc run --help)"); err != nil {
		return err
	}
	logger, injected, err := o.setup(e)
	if err != nil {
		return err
	}
	if o.file == "-" && len(o.messages) == 0 {
		return o.usageErr("with the agent file on standard input, give the messages with -m")
	}
	agent, conv, err := o.loadAgent(e, o.b.History)
	if err != nil {
		return err
	}

	// The tools and the model. Ctrl-C from here on closes the MCP sessions cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o.prompts = new(atomic.Int64)
	o.set.Elicitor = terminalElicitor(e, o.prompts)
	lib, opts, replayer, closeTools, err := o.bind(ctx, []*schema.Agent{agent}, false, logger, injected)
	if err != nil {
		return err
	}
	defer closeTools()

	// The conversation.
	s := newSession(e, &o, agent, lib, opts[0], conv)
	if err := s.storeTurns(ctx, fs, *store, logger); err != nil {
		return err
	}
	defer s.closeStore()
	s.liveMode()
	err = s.converse(ctx)
	if ctx.Err() != nil {
		return binding.Lines(exitInterrupted, message(err), "gramc run: interrupted")
	}
	if replayer != nil && err == nil {
		if n := replayer.Remaining(); n > 0 {
			fmt.Fprintf(e.stderr, "gramc run: warning: the recording has %d more requests than this run made\n", n)
		}
	}
	return err
}

// loadAgent compiles the agent file and returns the agent to run, with the
// conversation of the --history file, if one is given.
func (o *runOptions) loadAgent(e *env, history string) (*schema.Agent, runtime.Conversation, error) {
	prog, err := o.loadProgram(e, o.file)
	if err != nil {
		return nil, nil, err
	}
	agent, err := o.set.Pick(prog, o.agent, prog.File.Path)
	if err != nil {
		return nil, nil, err
	}
	var conv runtime.Conversation
	if history != "" {
		data, err := inputfile.ReadHinted(history, e.maxFileSize, inputfile.GiveFile)
		if err != nil {
			return nil, nil, o.usageErr("--history: %v", err)
		}
		if conv, err = runtime.ParseConversation(data, agent.Instruction); err != nil {
			return nil, nil, o.usageErr("--history %s: %v", history, err)
		}
		if what := jsonvalue.ReplacedText(jsonvalue.Replacements(data)); what != "" {
			fmt.Fprintf(e.stderr, "gramc run: warning: --history %s: %s replaced by U+FFFD\n", history, what)
		}
	}
	return agent, conv, nil
}
