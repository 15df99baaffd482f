// Approvals: tools declared with approval: true ([schema.Tool.Approval])
// run only once a person has decided. When a reply calls such tools, the
// run first executes the reply's other calls, then asks the [Approver]
// once about all of them; a call approved runs (with the arguments a
// person may have edited, validated as the model's are), a call denied is
// answered with a tool message that tells the model a person denied it,
// and why. Without an approver, or when it returns [ErrAwaitingApproval],
// the run stops with [StatusAwaitingApproval] and [Response.Pending]; the
// conversation ends with the assistant message and the results of its
// other calls, and [WithDecisions] goes on from it. A sub-agent shares
// its parent's approver; its pause stops the whole tree.

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/schema"
)

// StatusAwaitingApproval: the run stopped at calls of approval tools that
// wait for a person's decision, listed in [Response.Pending]; the
// conversation ends with the assistant message that made them (and the
// results of its other calls). [WithDecisions] continues it.
const StatusAwaitingApproval Status = "awaiting_approval"

// DecideAll is the call id of a [Decision] that covers every pending call
// no other decision names.
const DecideAll = "all"

// PendingCall is a call of an approval tool that waits for a decision.
type PendingCall struct {
	// CallID is the model's id of the call.
	CallID string `json:"call_id"`
	// Tool is the tool called.
	Tool string `json:"tool"`
	// Agent is the agent whose model made the call.
	Agent string `json:"agent"`
	// RunID is the (nested) run that made it.
	RunID string `json:"run_id,omitempty"`
	// Arguments are the arguments as the model sent them.
	Arguments json.RawMessage `json:"arguments"`
}

// Decision is a person's answer to a pending call.
type Decision struct {
	// CallID is a pending call's id, or [DecideAll] ("all") for every call
	// not named by another decision.
	CallID string `json:"call_id"`
	// Approve runs the call; false denies it.
	Approve bool `json:"approve"`
	// Reason is told to the model on a denial.
	Reason string `json:"reason,omitempty"`
	// Arguments, when set on an approval, replace the model's: they are
	// validated against the tool's schema like the model's arguments.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Approver is asked, once per model reply, about the reply's calls of
// approval tools, after the reply's other calls have run and before any of
// these runs. It returns a decision per call ([DecideAll] covers the calls
// it does not name). It may block (a prompt on a terminal, a durable wait,
// an MCP elicitation); the runs of a tree share it, and sub-agents called
// in parallel may ask it at the same time. [ErrAwaitingApproval] stops the
// run with [StatusAwaitingApproval]; any other error fails it.
type Approver func(ctx context.Context, calls []PendingCall) ([]Decision, error)

// ErrAwaitingApproval is returned by an [Approver] that cannot decide now:
// the run stops with [StatusAwaitingApproval].
var ErrAwaitingApproval = errors.New("runtime: awaiting approval")

// DeniedMessage is what a denied call's tool message tells the model, with
// the person's reason.
const DeniedMessage = "a person denied this call"

// WithApprover sets who decides on calls of approval tools; the runs a run
// starts (sub-agents) share it. Without one, a reply that calls an approval
// tool stops the run with [StatusAwaitingApproval].
func WithApprover(a Approver) Option { return func(c *runConfig) { c.approver = a } }

// WithDecisions continues a conversation that ended at
// [StatusAwaitingApproval]: Run(ctx, agent, lib, resp.Conversation, "",
// WithDecisions(ds)) applies the decisions to the unanswered calls of the
// last assistant message, then goes on. The decisions are checked first
// ([CheckDecisions]); a problem fails the run before anything runs, with
// a [*ValidationError]. Unanswered calls of tools that need no approval (a
// sub-agent that paused) run again; resuming a nested pause itself needs
// an approver that can wait.
func WithDecisions(ds []Decision) Option {
	return func(c *runConfig) {
		c.decisions = slices.Clone(ds)
		c.resume = true
	}
}

// CheckDecisions reports what is wrong with decisions ds for the pending
// calls of agent: a decision for an unknown call id, two decisions for one
// call, edited arguments that do not match the tool's schema (with the
// problems), a call left undecided. The error is a [*ValidationError] that
// names the decision; nil when they are fine. Edited arguments of a call
// of another agent's tool (a sub-agent's) are checked when they are
// applied.
func CheckDecisions(agent *schema.Agent, pending []PendingCall, ds []Decision) error {
	var problems []string
	named := map[string]bool{}
	all := false
	for i, d := range ds {
		switch {
		case d.CallID == DecideAll:
			if all {
				problems = append(problems, fmt.Sprintf("decisions[%d]: a second decision for %q; give one", i, DecideAll))
			}
			all = true
		case d.CallID == "":
			problems = append(problems, fmt.Sprintf("decisions[%d]: no call_id; name a pending call or write %q", i, DecideAll))
		case !slices.ContainsFunc(pending, func(p PendingCall) bool { return p.CallID == d.CallID }):
			problems = append(problems, fmt.Sprintf("decisions[%d]: no pending call has the id %q; the pending calls are %s", i, d.CallID, pendingIDs(pending)))
		case named[d.CallID]:
			problems = append(problems, fmt.Sprintf("decisions[%d]: a second decision for the call %q; give one per call", i, d.CallID))
		default:
			named[d.CallID] = true
		}
		switch {
		case len(d.Arguments) > 0 && !d.Approve:
			problems = append(problems, fmt.Sprintf("decisions[%d]: arguments are given with a denial; edited arguments go with approve: true", i))
		case len(d.Arguments) > 0 && d.CallID == DecideAll:
			problems = append(problems, fmt.Sprintf("decisions[%d]: edited arguments are given for %q; give them in a decision that names the call", i, DecideAll))
		}
	}
	for _, p := range pending {
		d, ok := decisionFor(ds, p.CallID)
		if !ok {
			problems = append(problems, fmt.Sprintf("the call %q (%s) has no decision; add one for it, or one for %q", p.CallID, p.Tool, DecideAll))
			continue
		}
		if len(d.Arguments) == 0 || !d.Approve || d.CallID == DecideAll {
			continue
		}
		if spec := toolSpec(agent, p.Tool); spec != nil {
			if _, err := editedArguments(spec, d.Arguments); err != nil {
				problems = append(problems, fmt.Sprintf("the edited arguments of the call %q (%s): %s", p.CallID, p.Tool, err.Error()))
			}
		}
	}
	if len(problems) > 0 {
		return &ValidationError{Field: "decisions", Message: strings.Join(problems, "; ")}
	}
	return nil
}

// pendingIDs lists the ids of pending calls for messages.
func pendingIDs(pending []PendingCall) string {
	if len(pending) == 0 {
		return "none"
	}
	ids := make([]string, len(pending))
	for i, p := range pending {
		ids[i] = fmt.Sprintf("%q", p.CallID)
	}
	return strings.Join(ids, ", ")
}

// decisionFor returns the decision of ds for a call: the one naming it,
// else the one for [DecideAll].
func decisionFor(ds []Decision, callID string) (Decision, bool) {
	if i := slices.IndexFunc(ds, func(d Decision) bool { return d.CallID == callID }); i >= 0 {
		return ds[i], true
	}
	if i := slices.IndexFunc(ds, func(d Decision) bool { return d.CallID == DecideAll }); i >= 0 {
		return ds[i], true
	}
	return Decision{}, false
}

// toolSpec returns agent's tool called name, or nil.
func toolSpec(agent *schema.Agent, name string) *schema.Tool {
	if agent == nil {
		return nil
	}
	for _, t := range agent.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// editedArguments validates a person's edited arguments against spec, as
// the model's are validated (values for injected parameters are dropped:
// the host sets them).
func editedArguments(spec *schema.Tool, raw json.RawMessage) (map[string]any, error) {
	data, _ := dropInjected(spec, raw)
	args, err := schema.ValidateArgs(spec, data)
	var ae *schema.ArgsError
	if errors.As(err, &ae) {
		return nil, errors.New(schema.ProblemsText(ae.Problems))
	}
	return args, err
}
