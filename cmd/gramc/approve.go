package main

// Decisions on the calls of approval tools: asked on a terminal (approve,
// deny with a reason, or edit the arguments), or given on the command line
// of gramc runs resume (--approve, --deny, --reason, --edit).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/gramlang/gram/console"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// approvalPrompt asks a person at a terminal for decisions. It reads a
// line only while a question waits for it, so that it may share standard
// input with a conversation that reads it between turns.
type approvalPrompt struct {
	in    *bufio.Reader
	out   io.Writer
	agent *schema.Agent   // the agent run
	tree  *schema.Program // where the agents it uses are found, or nil
	line  chan lineOrErr  // the line being read, when a question's context ended first
	shown *atomic.Int64   // counts the questions asked (see runOptions.prompts), or nil
}

// lineOrErr is a line read, without its end, or the error that ended the
// input.
type lineOrErr struct {
	line string
	err  error
}

// errNoAnswer is the end of the input, or of the context, at a question.
var errNoAnswer = errors.New("no answer")

// newApprovalPrompt returns a prompt that reads in and writes out.
func newApprovalPrompt(in io.Reader, out io.Writer, agent *schema.Agent, tree *schema.Program) *approvalPrompt {
	return &approvalPrompt{in: bufio.NewReader(in), out: out, agent: agent, tree: tree}
}

// readLine returns the next line, trimmed, or errNoAnswer.
func (p *approvalPrompt) readLine(ctx context.Context) (string, error) {
	if p.line == nil {
		ch := make(chan lineOrErr, 1)
		p.line = ch
		go func() {
			line, err := p.in.ReadString('\n')
			if err != nil && line == "" {
				ch <- lineOrErr{err: err}
				return
			}
			ch <- lineOrErr{line: strings.TrimRight(line, "\r\n")}
		}()
	}
	select {
	case l := <-p.line:
		p.line = nil
		if l.err != nil {
			return "", errNoAnswer
		}
		return strings.TrimSpace(l.line), nil
	case <-ctx.Done():
		return "", errNoAnswer
	}
}

// ask asks for a decision on each pending call; errNoAnswer when the
// input ends first.
func (p *approvalPrompt) ask(ctx context.Context, pending []runtime.PendingCall) ([]runtime.Decision, error) {
	if p.shown != nil {
		p.shown.Add(1)
	}
	fmt.Fprintf(p.out, "\n%d call(s) wait for your approval:\n", len(pending))
	var out []runtime.Decision
	for _, c := range pending {
		d, err := p.askOne(ctx, c)
		if err != nil {
			fmt.Fprintln(p.out, "(no answer: the run waits)")
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// askOne asks for the decision on one call.
func (p *approvalPrompt) askOne(ctx context.Context, c runtime.PendingCall) (runtime.Decision, error) {
	who := ""
	if p.agent == nil || c.Agent != p.agent.Name {
		who = ", by " + c.Agent
	}
	fmt.Fprintf(p.out, "  %s %s (call %s%s)\n", c.Tool, console.CompactArgs(string(c.Arguments)), c.CallID, who)
	for {
		fmt.Fprint(p.out, "Approve? [y]es, [n]o (deny), [e]dit the arguments: ")
		line, err := p.readLine(ctx)
		if err != nil {
			return runtime.Decision{}, err
		}
		switch strings.ToLower(line) {
		case "y", "yes", "a", "approve":
			return runtime.Decision{CallID: c.CallID, Approve: true}, nil
		case "n", "no", "d", "deny":
			fmt.Fprint(p.out, "Reason, told to the model (Enter for none): ")
			reason, err := p.readLine(ctx)
			if err != nil {
				return runtime.Decision{}, err
			}
			return runtime.Decision{CallID: c.CallID, Reason: reason}, nil
		case "e", "edit":
			d, ok, err := p.askArguments(ctx, c)
			if err != nil || ok {
				return d, err
			}
		}
	}
}

// askArguments asks for the edited arguments of a call until they are
// valid; ok is false when the person gives none (an empty line), to be
// asked the question again.
func (p *approvalPrompt) askArguments(ctx context.Context, c runtime.PendingCall) (runtime.Decision, bool, error) {
	for {
		fmt.Fprint(p.out, "Arguments as a JSON object on one line (Enter to go back): ")
		line, err := p.readLine(ctx)
		if err != nil || line == "" {
			return runtime.Decision{}, false, err
		}
		d := runtime.Decision{CallID: c.CallID, Approve: true, Arguments: json.RawMessage(line)}
		if err := p.check(c, d); err != nil {
			fmt.Fprintf(p.out, "  %v\n", err)
			continue
		}
		return d, true, nil
	}
}

// check checks a decision on the call c: edited arguments are JSON that
// the tool's parameters accept.
func (p *approvalPrompt) check(c runtime.PendingCall, d runtime.Decision) error {
	return checkDecision(p.agent, p.tree, c, d)
}

// checkDecision checks the decision d on the call c, of agent or of an
// agent of tree.
func checkDecision(agent *schema.Agent, tree *schema.Program, c runtime.PendingCall, d runtime.Decision) error {
	if len(d.Arguments) > 0 && !json.Valid(d.Arguments) {
		return fmt.Errorf("the arguments of the call %s are not JSON; write an object, e.g. {\"name\": \"value\"}", c.CallID)
	}
	owner := agent
	if tree != nil && (agent == nil || c.Agent != agent.Name) {
		if a := tree.Agent(c.Agent); a != nil {
			owner = a
		}
	}
	if owner == nil {
		return nil
	}
	return runtime.CheckDecisions(owner, []runtime.PendingCall{c}, []runtime.Decision{d})
}

// decisionFlags are the decisions of gramc runs resume's command line.
type decisionFlags struct {
	approve, deny, edit listFlag
	reason              string
}

// register adds the flags to fs.
func (f *decisionFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.approve, "approve", "approve the pending call `CALL_ID`, or all of them (all) (repeatable)")
	fs.Var(&f.deny, "deny", "deny the pending call `CALL_ID`, or all of them (all) (repeatable)")
	fs.StringVar(&f.reason, "reason", "", "the reason of the denials, told to the model: `TEXT`")
	fs.Var(&f.edit, "edit", "approve a pending call with other arguments: `CALL_ID=JSON` (repeatable)")
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
