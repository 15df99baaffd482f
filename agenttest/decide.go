// Scripted decisions: a turn whose run stops at calls of approval tools
// (runtime.StatusAwaitingApproval, the runner gives no approver) is
// continued with the decisions its test scripts, (:Decision {tool: refund,
// approve: false, reason: "..."}), through runtime.WithDecisions on the
// conversation the run returned: a real pause and resume, whose model
// calls the cassette records and replays like any others.

package agenttest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// maxResumes bounds the pauses of one turn: a model that calls an
// approval tool again after every decision is stopped there.
const maxResumes = 32

// runTurn runs one turn of job j's test and, while the run stops awaiting
// approval, applies the turn's decisions and goes on. The response is the
// last run's with the calls of every run of the turn, the denied ones left
// out (they never ran). halt is set when the turn cannot go on: a pending
// call of a tool the turn has no decision for, or one in a nested run.
func (r *Runner) runTurn(ctx context.Context, j Job, turn *schema.Turn, conv runtime.Conversation, opts []runtime.Option) (resp *runtime.Response, halt *Failure, err error) {
	agent := j.Test.Agent
	resp, err = runtime.Run(ctx, agent, r.Library, conv, turn.Input, opts...)
	var used []runtime.ToolUse
	for n := 0; err == nil && resp != nil && resp.Status == runtime.StatusAwaitingApproval; n++ {
		var ds []runtime.Decision
		if ds, halt = decisionsFor(turn, resp); halt == nil && n == maxResumes {
			halt = &Failure{Kind: "approval", Message: fmt.Sprintf("the turn stopped to wait for approval %d times: the model calls approval tools again after every decision", n+1)}
		}
		if halt != nil {
			break
		}
		used = append(used, resp.ToolsUsed...)
		if resp.Agent != "" && resp.Agent != agent.Name && j.Program != nil && j.Program.Agent(resp.Agent) != nil {
			agent = j.Program.Agent(resp.Agent) // the calls were made after a handoff
		}
		resp, err = runtime.Run(ctx, agent, r.Library, resp.Conversation, "", append(opts, runtime.WithDecisions(ds))...)
	}
	if resp != nil {
		resp.ToolsUsed = slices.DeleteFunc(append(used, resp.ToolsUsed...), func(u runtime.ToolUse) bool { return u.Denied })
	}
	return resp, halt, err
}

// decisionsFor returns the decisions of a turn on the pending calls of a
// response that stopped awaiting approval, or the failure that ends the
// test: a call of a tool with no decision, or one of a nested run (which
// runtime.WithDecisions cannot continue).
func decisionsFor(turn *schema.Turn, resp *runtime.Response) ([]runtime.Decision, *Failure) {
	ds := make([]runtime.Decision, 0, len(resp.Pending))
	for _, p := range resp.Pending {
		if p.RunID != "" && resp.RunID != "" && p.RunID != resp.RunID {
			return nil, &Failure{Kind: "approval", Message: fmt.Sprintf(
				"agent %s, run as a tool, called %s, which waits for approval: a test decides only on the calls of the agent the turn runs (or hands to); test %s on its own to script its decisions",
				p.Agent, p.Tool, p.Agent)}
		}
		k := slices.IndexFunc(turn.Decisions, func(d *schema.DecisionScript) bool { return d.Tool == p.Tool })
		if k < 0 {
			return nil, &Failure{Kind: "approval", Message: fmt.Sprintf(
				"the agent called %s %s, which waits for approval, and the turn has no decision for it: add (:Decision {tool: %s, approve: true}) after the turn's User, or approve: false with a reason: \"...\"",
				p.Tool, strings.TrimSpace(string(p.Arguments)), p.Tool)}
		}
		d := turn.Decisions[k] // the one decision on the tool (see schema's compile of a Decision)
		ds = append(ds, runtime.Decision{CallID: p.CallID, Approve: d.Approve, Reason: d.Reason})
	}
	return ds, nil
}
