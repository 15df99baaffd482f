package console

// Decisions on the calls of approval tools asked on a terminal: approve,
// deny with a reason, or edit the arguments.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/gramlang/gram/internal/promptline"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// ApprovalPrompt asks a person at a terminal for decisions. It reads a
// line only while a question waits for it, so that it may share standard
// input with a conversation that reads it between turns.
type ApprovalPrompt struct {
	in    *promptline.Reader
	out   io.Writer
	agent *schema.Agent   // the agent run
	tree  *schema.Program // where the agents it uses are found, or nil
	// Shown counts the questions asked, when set (the live output then
	// leaves the lines above them as they are).
	Shown *atomic.Int64
}

// NewApprovalPrompt returns a prompt that reads in and writes out, about
// the calls of agent and of the agents of tree (nil: none) it uses.
func NewApprovalPrompt(in io.Reader, out io.Writer, agent *schema.Agent, tree *schema.Program) *ApprovalPrompt {
	return &ApprovalPrompt{in: promptline.New(in), out: out, agent: agent, tree: tree}
}

// Ask asks for a decision on each pending call; an error (the end of the
// input, or of ctx) when no answer comes.
func (p *ApprovalPrompt) Ask(ctx context.Context, pending []runtime.PendingCall) ([]runtime.Decision, error) {
	if p.Shown != nil {
		p.Shown.Add(1)
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
func (p *ApprovalPrompt) askOne(ctx context.Context, c runtime.PendingCall) (runtime.Decision, error) {
	who := ""
	if p.agent == nil || c.Agent != p.agent.Name {
		who = ", by " + c.Agent
	}
	fmt.Fprintf(p.out, "  %s %s (call %s%s)\n", c.Tool, CompactArgs(string(c.Arguments)), c.CallID, who)
	for {
		fmt.Fprint(p.out, "Approve? [y]es, [n]o (deny), [e]dit the arguments: ")
		line, err := p.in.Line(ctx)
		if err != nil {
			return runtime.Decision{}, err
		}
		switch strings.ToLower(line) {
		case "y", "yes", "a", "approve":
			return runtime.Decision{CallID: c.CallID, Approve: true}, nil
		case "n", "no", "d", "deny":
			fmt.Fprint(p.out, "Reason, told to the model (Enter for none): ")
			reason, err := p.in.Line(ctx)
			if err != nil {
				return runtime.Decision{}, err
			}
			return runtime.Decision{CallID: c.CallID, Reason: reason}, nil
		case "e", "edit":
			d, ok, err := p.askArguments(ctx, c)
			if err != nil || ok {
				return d, err
			}
		default:
			fmt.Fprintf(p.out, "  %q is not an answer: type y to approve, n to deny or e to edit the arguments\n", line)
		}
	}
}

// askArguments asks for the edited arguments of a call until they are
// valid; ok is false when the person gives none (an empty line), to be
// asked the question again.
func (p *ApprovalPrompt) askArguments(ctx context.Context, c runtime.PendingCall) (runtime.Decision, bool, error) {
	for {
		fmt.Fprint(p.out, "Arguments as a JSON object on one line (Enter to go back): ")
		line, err := p.in.Line(ctx)
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

// check checks the decision d on the call c, of the agent or of an agent
// of the tree: edited arguments are JSON that the tool's parameters
// accept.
func (p *ApprovalPrompt) check(c runtime.PendingCall, d runtime.Decision) error {
	if len(d.Arguments) > 0 && !json.Valid(d.Arguments) {
		return fmt.Errorf("the arguments of the call %s are not JSON; write an object, e.g. {\"name\": \"value\"}", c.CallID)
	}
	owner := p.agent
	if p.tree != nil && (owner == nil || c.Agent != owner.Name) {
		if a := p.tree.Agent(c.Agent); a != nil {
			owner = a
		}
	}
	if owner == nil {
		return nil
	}
	return runtime.CheckDecisions(owner, []runtime.PendingCall{c}, []runtime.Decision{d})
}
