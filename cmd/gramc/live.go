package main

// Live output of gramc run: on a terminal the answer is printed as it is
// generated and tool calls as they start and finish (their control
// characters shown as visible characters); --json prints the
// run's events, one JSON object per line; --json=final prints each turn's
// response once it is complete; other output gets the tool calls as they
// finish and the answer once it is complete.

import (
	"errors"
	"strings"

	"github.com/gramlang/gram/console"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/runtime"
)

// setJSON sets --json: alone (or =events) the events of each turn, one
// JSON object per line; =final each turn's response.
func (o *runOptions) setJSON(v string) error {
	switch strings.ToLower(v) {
	case "true", "events":
		o.json, o.jsonEvents = true, true
	case "final":
		o.json, o.jsonEvents = true, false
	case "false":
		o.json, o.jsonEvents = false, false
	default:
		return errors.New("write --json (the events, one per line) or --json=final (each turn's response)")
	}
	return nil
}

// liveMode decides how a session shows its turns: live on a terminal and
// with --json (events), with the model's answers streamed (with --replay,
// as the recording was), at the end of each turn otherwise.
func (s *session) liveMode() {
	s.live = s.o.jsonEvents || (!s.o.json && diag.IsTerminal(s.e.stdout))
	if s.o.b.Replay == "" {
		s.opts = append(s.opts, runtime.WithStreaming(s.live))
	}
}

// liveTurn returns the options of one turn with the output of its events:
// live, or plain (the tool calls as they finish, the answer at the end)
// for other output than a terminal; nil with --json=final, which prints
// the response at the end.
func (s *session) liveTurn(opts []runtime.Option) ([]runtime.Option, *console.Live) {
	if !s.live && s.o.json {
		return opts, nil
	}
	l := console.NewLive(s.e.stdout, s.o.jsonEvents, s.agent.Result() != nil, s.spin)
	l.Prompts, l.Plain = s.o.prompts, !s.live
	return append(opts, runtime.WithEvents(s.shows(l.Event))), l
}
