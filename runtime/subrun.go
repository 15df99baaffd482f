// Trees of agents: an agent listed among another's tools runs, when the
// model calls it, as a nested run with its own instruction, tools, limits
// and model, on a fresh conversation whose one user message is the call's
// arguments; its answer is the tool's result. The runs of one tree share
// the tool library, the injected values, the logger, the hooks and event
// sink, the approver and the checkpointer, the model configuration or the source of each agent's model
// ([WithModelSource]), the context (cancelling the top run cancels every
// child) and two limits: how deep runs nest ([WithMaxDepth]) and how many
// model calls the whole tree makes ([WithMaxModelCalls]).

package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// Default limits of a tree of runs.
const (
	// DefaultMaxDepth is how deep runs nest by default: the top run's
	// sub-agents are at depth 1.
	DefaultMaxDepth = 4
	// DefaultMaxModelCalls is the default number of model calls of a
	// whole tree of runs.
	DefaultMaxModelCalls = 50
	// DefaultMaxHandoffs is the default number of handoffs in one turn.
	DefaultMaxHandoffs = 8
)

// The statuses of a tree's limits.
const (
	// StatusMaxDepth: the run was refused, as it would have nested deeper
	// than [WithMaxDepth] allows; no model call was made.
	StatusMaxDepth Status = "max_depth_reached"
	// StatusMaxModelCalls: the tree of runs made the model calls
	// [WithMaxModelCalls] allows, and this run stopped before its next
	// one. Everything produced so far is kept; the content is
	// [MaxModelCallsMessage].
	StatusMaxModelCalls Status = "max_model_calls_reached"
)

// MaxModelCallsMessage is the content of a run stopped by the tree's limit
// of model calls.
const MaxModelCallsMessage = "I reached the limit of steps for this request. Please try breaking it into smaller steps."

// WithProgram sets the program (a package) in which the agents that an
// agent calls as tools, or hands the conversation to, are found by name.
// Without it, a run of an agent that has such tools or handoffs fails
// before any model call with a [*ConfigError].
func WithProgram(p *schema.Program) Option { return func(c *runConfig) { c.tree.program = p } }

// Bound is an agent with what runs it: the servers and the durable store
// take their agents so.
type Bound struct {
	// Agent is the agent; its name is the one clients ask for.
	Agent *schema.Agent
	// Library binds the agent's tools.
	Library *Library
	// Options configure each run (the model, limits, the logger, ...).
	Options []Option
	// Program, when set, holds the agents the agent may call as tools or
	// hand the conversation to (the program of [WithProgram]): a server
	// runs the agent with it, and tells from it which injected parameters
	// and approvals a run may need. nil: the agent alone, or a program its
	// Options give.
	Program *schema.Program
}

// WithMaxDepth sets how deep runs may nest (default [DefaultMaxDepth]): the
// top run is at depth 0, the sub-agents it calls at 1, and so on. A call
// that would go deeper gives the model a tool error, and its refused run
// has [StatusMaxDepth].
func WithMaxDepth(n int) Option { return func(c *runConfig) { c.tree.maxDepth = n } }

// WithRunID gives the top run the id id instead of a random one: a
// store's run keeps its id across the parts of a run that waits (see
// [WithDecisions]) and across replays. Nested runs get ids of their own.
func WithRunID(id string) Option { return func(c *runConfig) { c.tree.givenID = id } }

// WithMaxModelCalls sets the number of model calls the whole tree of runs
// (the top run, its sub-agents and theirs) may make (default
// [DefaultMaxModelCalls]). The run that would make one more stops with
// [StatusMaxModelCalls].
func WithMaxModelCalls(n int) Option { return func(c *runConfig) { c.tree.maxModelCalls = n } }

// treeConfig is what a run knows of the tree it belongs to.
type treeConfig struct {
	program       *schema.Program
	maxDepth      int
	maxModelCalls int
	maxHandoffs   int
	// budget is the turn's budget of [WithBudget] (budgetGiven when
	// given), account the run's account against it (see budget.go), and
	// prices the table the cost is reckoned from.
	budget      schema.Budget
	budgetGiven bool
	account     *spending
	prices      *pricing.Table
	// onUsage is the function of [WithUsage]; nil when none.
	onUsage func(schema.Model, Usage)
	// shared is the state of the whole tree; nil until [Run] starts the
	// top run.
	shared *treeState
	// given is the model of [WithModel], which nested runs share; nil when
	// each run makes its own or takes it from source.
	given Model
	// source gives the models of the agents of nested runs and handoffs
	// (see [WithModelSource]).
	source ModelSource
	// depth is the run's depth (0 for the top run); parentRun and
	// parentCall the run and the tool call that started a nested run.
	depth                 int
	parentRun, parentCall string
	// runID is the run's id; givenID the top run's, from [WithRunID].
	runID, givenID string
	// label names the chain of agents down to this run ("a > b"), for
	// the traces; "" for the top run.
	label string
}

// treeState is shared by the runs of one tree.
type treeState struct {
	// mu serializes the hooks and events of all the runs.
	mu sync.Mutex
	// calls counts the model calls made.
	calls atomic.Int64
	// spendMu guards the accounts of the tree's budgets (see budget.go).
	spendMu sync.Mutex
}

// start fills in the defaults of a run's tree settings, and gives it an id.
func (t *treeConfig) start() {
	if t.shared == nil {
		t.shared = &treeState{}
	}
	if t.maxDepth <= 0 {
		t.maxDepth = DefaultMaxDepth
	}
	if t.maxModelCalls <= 0 {
		t.maxModelCalls = DefaultMaxModelCalls
	}
	if t.maxHandoffs <= 0 {
		t.maxHandoffs = DefaultMaxHandoffs
	}
	t.runID = newRunID()
	if t.givenID != "" && t.depth == 0 {
		t.runID = t.givenID
	}
}

// takeModelCall reports whether the tree may make one more model call,
// and counts it when it may.
func (t *treeConfig) takeModelCall() bool {
	for {
		n := t.shared.calls.Load()
		if n >= int64(t.maxModelCalls) {
			return false
		}
		if t.shared.calls.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// newRunID returns a random run id: "run_" and 16 hex digits.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "run_" + hex.EncodeToString(b[:])
}

// checkAgents returns a [*ConfigError] when an agent that agent calls as a
// tool or hands off to cannot be found in the run's program.
func (t *treeConfig) checkAgents(agent *schema.Agent) error {
	for _, name := range agent.UsedAgents() {
		if t.program == nil {
			return &ConfigError{Message: fmt.Sprintf("agent %s uses agent %s, but the run has no program to find it in", agent.Name, name),
				Hint: "give the run the agent's package (runtime.WithProgram)"}
		}
		if t.program.Agent(name) == nil {
			return &ConfigError{Message: fmt.Sprintf("agent %s uses agent %s, which is not in the run's program", agent.Name, name),
				Hint: "give the run the package that declares it"}
		}
	}
	return nil
}

// agentTool is the binding of a tool that runs an agent: the run invokes
// it as a nested run (see [runner.invokeAgent]), never through the library.
func agentTool(spec *schema.Tool) Tool {
	return Tool{Name: spec.Name, Description: spec.Description, Invoke: func(context.Context, map[string]any) (any, error) {
		return nil, &ToolError{Tool: spec.Name, Kind: ToolFailed, Message: "it runs agent " + spec.Agent + ", which only a run can start"}
	}}
}

// invokeAgent runs the sub-agent of spec for a call, as a nested run, and
// returns its answer; use.Run gets the nested run's response. A run that
// fails, is refused or ends other than completed is a tool error naming
// the agent and the status.
func (r *runner) invokeAgent(ctx context.Context, call ToolCall, spec *schema.Tool, args map[string]any, use *ToolUse) (any, error) {
	t := r.cfg.tree
	var sub *schema.Agent
	if t.program != nil {
		sub = t.program.Agent(spec.Agent)
	}
	if sub == nil {
		return nil, &ToolError{Tool: spec.Name, Kind: ToolFailed, Message: "agent " + spec.Agent + " is not in the run's program"}
	}
	if t.depth+1 > t.maxDepth {
		use.Run = &Response{RunID: newRunID(), Agent: sub.Name, Status: StatusMaxDepth, ToolsUsed: []ToolUse{},
			Error: fmt.Sprintf("the runs would nest %d deep, over the limit of %d", t.depth+1, t.maxDepth)}
		r.log.Warn("nested run refused", "subAgent", sub.Name, "depth", t.depth+1, "maxDepth", t.maxDepth)
		return nil, &ToolError{Tool: spec.Name, Kind: ToolFailed, Message: fmt.Sprintf(
			"agent %s was not run (status %s): runs may nest %d deep, and this call would go deeper; answer without it", sub.Name, StatusMaxDepth, t.maxDepth)}
	}
	resp, err := Run(ctx, sub, r.lib, nil, subInput(spec, args), r.childOptions(sub, call.ID))
	use.Run = resp
	switch {
	case err != nil:
		status := StatusError
		if resp != nil && resp.Status == StatusInvalidOutput {
			status = resp.Status
		}
		return nil, &ToolError{Tool: spec.Name, Kind: ToolFailed, Message: fmt.Sprintf("agent %s failed (status %s)", sub.Name, status), Err: err}
	case resp.Status != StatusCompleted:
		msg := fmt.Sprintf("agent %s did not finish (status %s)", sub.Name, resp.Status)
		if resp.Content != "" {
			msg += "; its answer so far: " + resp.Content
		}
		return nil, &ToolError{Tool: spec.Name, Kind: ToolFailed, Message: msg}
	}
	return subRunResult(resp), nil
}

// subRunResult is the tool result of a completed nested run: its answer,
// the JSON value of a typed answer (see [Response.Output]), else the text.
func subRunResult(resp *Response) string {
	if len(resp.Output) > 0 {
		return string(resp.Output)
	}
	return resp.Content
}

// subInput is the user message of a nested run: the message of the
// default signature (message::String), otherwise the arguments as JSON.
func subInput(spec *schema.Tool, args map[string]any) string {
	if ps := spec.ModelParams(); len(ps) == 1 && ps[0].Name == "message" && ps[0].Type != nil && ps[0].Type.Kind == schema.StringType {
		if s, ok := args["message"].(string); ok && len(args) == 1 {
			return s
		}
	}
	b, err := jsonvalue.Marshal(args)
	if err != nil {
		return fmt.Sprint(args)
	}
	return string(b)
}

// ModelSource gives the model of an agent of a tree of runs, and the
// fallbacks tried when it fails: each command that runs agents makes it
// from its endpoints, bindings and recorders, so that a sub-agent or an
// agent handed to talks to its own provider.
type ModelSource func(a *schema.Agent) (Model, []Fallback, error)

// WithModelSource sets where the runs of a tree take the models of their
// agents: every nested run and handoff asks src; the top run too, unless
// it has [WithModel]. Without a source, nested runs share the model of
// [WithModel] or make their own with [NewModel].
func WithModelSource(src ModelSource) Option {
	return func(c *runConfig) { c.tree.source = src }
}

// childOptions returns the option that makes a run the child of r's, for
// the tool call callID: it shares what the runs of a tree share and keeps
// the sub-agent's own settings.
func (r *runner) childOptions(sub *schema.Agent, callID string) Option {
	parent := r.cfg
	return func(c *runConfig) {
		c.modelConfig = parent.modelConfig
		c.injected = parent.injected
		c.logger = r.baseLog
		c.resultLimit = parent.resultLimit
		c.summary = parent.summary
		c.hooks = parent.hooks
		c.events = parent.events
		c.streaming = parent.streaming
		c.toolTrace = parent.toolTrace
		c.approver = parent.approver
		c.checkpointer = parent.checkpointer
		c.model = parent.tree.given
		if sub.Model == r.agent.Model {
			c.fallbacks = parent.fallbacks
		}
		t := parent.tree
		t.depth++
		t.parentRun, t.parentCall = t.runID, callID
		t.label = parent.tree.label
		if t.label == "" {
			t.label = r.agent.Name
		}
		t.label += " > " + sub.Name
		c.tree = t
	}
}

// emitRunStarted reports the start of a nested run.
func (r *runner) emitRunStarted() {
	if r.cfg.events != nil && r.cfg.tree.parentRun != "" {
		r.emit(Event{Type: EventRunStarted, Model: r.agent.Model.String()})
	}
}

// runLogger is the logger of a run: the run's id, and its parent's for a
// nested run, added to base.
func (t *treeConfig) runLogger(base *slog.Logger) *slog.Logger {
	if t.parentRun == "" {
		return base
	}
	return base.With("run", t.runID, "parentRun", t.parentRun)
}

// traceContext returns ctx labelled, for the traces of model requests
// (see [replay.WithTraceLabel]), with the chain of agents of a nested run
// or of a run that handed off.
func (t *treeConfig) traceContext(ctx context.Context) context.Context {
	if t.label == "" {
		return ctx
	}
	return replay.WithTraceLabel(ctx, t.label)
}

// reachable returns agent and the agents of the program it uses, as tools
// or handoffs, and theirs, each once, agent first; and a [*ConfigError]
// for each agent that uses one the run cannot find.
func (t *treeConfig) reachable(agent *schema.Agent) ([]*schema.Agent, []error) {
	out := []*schema.Agent{agent}
	var errs []error
	for i := 0; i < len(out); i++ {
		a := out[i]
		if err := t.checkAgents(a); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, name := range a.UsedAgents() {
			if sub := t.program.Agent(name); !slices.Contains(out, sub) {
				out = append(out, sub)
			}
		}
	}
	return out, errs
}
