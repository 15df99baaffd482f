package main

// Decisions on the calls of approval tools given on the command line of
// gramc runs resume (--approve, --deny, --reason, --edit); on a terminal,
// console.ApprovalPrompt asks for them.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/gramlang/gram/runtime"
)

// decisionFlags are the decisions of gramc runs resume's command line.
type decisionFlags struct {
	approve, deny, edit []string
	reason              string
}

// register adds the flags to fs.
func (f *decisionFlags) register(fs *flag.FlagSet) {
	fs.Func("approve", "approve the pending call `CALL_ID`, or all of them (all) (repeatable)", appendTo(&f.approve))
	fs.Func("deny", "deny the pending call `CALL_ID`, or all of them (all) (repeatable)", appendTo(&f.deny))
	fs.StringVar(&f.reason, "reason", "", "the reason of the denials, told to the model: `TEXT`")
	fs.Func("edit", "approve a pending call with other arguments: `CALL_ID=JSON` (repeatable)", appendTo(&f.edit))
}

// given reports whether any decision is given.
func (f *decisionFlags) given() bool {
	return len(f.approve)+len(f.deny)+len(f.edit) > 0
}

// decisions returns the decisions the flags give; the error says which
// flag is wrong.
func (f *decisionFlags) decisions() ([]runtime.Decision, error) {
	if f.reason != "" && len(f.deny) == 0 {
		return nil, errors.New("--reason goes with --deny: it is told to the model about the calls denied")
	}
	var out []runtime.Decision
	for _, id := range f.approve {
		out = append(out, runtime.Decision{CallID: strings.TrimSpace(id), Approve: true})
	}
	for _, id := range f.deny {
		out = append(out, runtime.Decision{CallID: strings.TrimSpace(id), Reason: f.reason})
	}
	for _, v := range f.edit {
		id, args, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(id) == "" {
			return nil, fmt.Errorf("--edit %q: write CALL_ID=JSON, e.g. --edit call_1='{\"amount\": 10}'", v)
		}
		if !json.Valid([]byte(args)) {
			return nil, fmt.Errorf("--edit %s: the arguments are not JSON; write a JSON object", strings.TrimSpace(id))
		}
		out = append(out, runtime.Decision{CallID: strings.TrimSpace(id), Approve: true, Arguments: json.RawMessage(args)})
	}
	return out, nil
}
