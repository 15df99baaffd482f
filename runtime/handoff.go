// Handoffs: an agent with handoffs is offered, after its tools, one tool
// per handoff (transfer_to_AGENT, without parameters). When the model
// calls one, the run goes on with the agent handed to: its instruction
// replaces the system message, its tools and handoffs are offered, its
// model answers (the run's model when one was given), and the
// conversation so far is kept. Only the first handoff of a reply takes
// effect; the turn's handoffs are bounded by [WithMaxHandoffs].

package runtime

import (
	"fmt"
	"strings"

	"github.com/gramlang/gram/schema"
)

// EventHandoff: the conversation passed from one agent (Agent) to another
// (To), whose model is Model.
const EventHandoff EventType = "handoff"

// WithMaxHandoffs sets the number of handoffs allowed in one turn (default
// [DefaultMaxHandoffs]). Past it, a handoff tool returns an error result
// and the agent stays.
func WithMaxHandoffs(n int) Option { return func(c *runConfig) { c.tree.maxHandoffs = n } }

// handoffState is the handoffs of a turn.
type handoffState struct {
	// count is the number of handoffs made in the turn.
	count int
	// to is the agent handed to by the reply being executed, nil if none.
	to *schema.Agent
	// plan is the outcome of each handoff call of the reply being
	// executed, by call id: nil for the one that takes effect.
	plan map[string]error
}

// definitions returns the tool definitions offered to the model: the
// agent's tools, then its handoffs, then the client's (see
// [WithClientTools]); none with [WithoutTools].
func (r *runner) definitions() []ToolDefinition {
	if r.cfg.noTools {
		return nil
	}
	defs := make([]ToolDefinition, 0, len(r.tools.Bindings)+len(r.agent.Handoffs))
	for _, b := range r.tools.Bindings {
		defs = append(defs, ToolDefinition{Name: b.Spec.Name, Description: b.Spec.Description, Parameters: schema.ParametersSchema(b.Spec, false), Spec: b.Spec})
	}
	for _, h := range r.agent.Handoffs {
		spec := schema.HandoffTool(h)
		defs = append(defs, ToolDefinition{Name: spec.Name, Description: spec.Description, Parameters: schema.HandoffParameters(), Spec: spec})
	}
	return r.withClientTools(defs)
}

// maxIterations returns the current agent's limit of model calls.
func (r *runner) maxIterations() int {
	n := r.cfg.maxIterations
	if n <= 0 {
		n = r.agent.Settings.MaxIterations
	}
	if n <= 0 {
		n = schema.DefaultMaxIterations
	}
	return n
}

// handoffOf returns the handoff of the current agent whose tool is name.
func (r *runner) handoffOf(name string) (schema.Handoff, bool) {
	if r.cfg.noTools {
		return schema.Handoff{}, false
	}
	for _, h := range r.agent.Handoffs {
		if h.ToolName() == name {
			return h, true
		}
	}
	return schema.Handoff{}, false
}

// planHandoffs decides, before the calls of a reply run, what each of its
// handoff calls does: the first, within the turn's limit, takes effect;
// the others fail.
func (r *runner) planHandoffs(calls []ToolCall) {
	r.handoff.plan = nil
	taken := false
	for _, c := range calls {
		h, ok := r.handoffOf(c.Name)
		if !ok {
			continue
		}
		if r.handoff.plan == nil {
			r.handoff.plan = map[string]error{}
		}
		switch {
		case taken:
			r.handoff.plan[c.ID] = &ToolError{Tool: c.Name, Kind: ToolFailed, Message: "already handed off: only the first handoff of a reply takes effect"}
		case r.handoff.count >= r.cfg.tree.maxHandoffs:
			r.handoff.plan[c.ID] = &ToolError{Tool: c.Name, Kind: ToolFailed, Message: fmt.Sprintf(
				"the turn's limit of %d handoffs is reached; agent %s stays and must answer", r.cfg.tree.maxHandoffs, r.agent.Name)}
		default:
			taken = true
			r.handoff.plan[c.ID] = nil
			r.handoff.to = r.cfg.tree.program.Agent(h.Agent)
			r.handoff.count++
		}
	}
}

// handoffCall returns the result of a handoff call, and false when call
// is no handoff.
func (r *runner) handoffCall(call ToolCall) (any, error, bool) {
	err, ok := r.handoff.plan[call.ID]
	if !ok {
		return nil, nil, false
	}
	if err != nil {
		return nil, err, true
	}
	h, _ := r.handoffOf(call.Name)
	return transferred(h.Agent), nil, true
}

// switchAgent makes the agent handed to the one that answers.
func (r *runner) switchAgent() error {
	to := r.handoff.to
	r.handoff.to, r.handoff.plan = nil, nil
	r.emit(Event{Type: EventHandoff, To: to.Name, Model: to.Model.String()})
	r.log.Info("handoff", "to", to.Name)
	return r.becomeAgent(to)
}

// becomeAgent makes to the agent that answers, with its own model, tools
// and limits: its budget, if it has one, counts besides the run's (see
// [treeConfig.handOff]).
func (r *runner) becomeAgent(to *schema.Agent) error {
	if to.Model != r.agent.Model {
		// The fallbacks are those of the agent's model.
		r.cfg.fallbacks, r.fallback = nil, 0
	}
	r.agent = to
	r.resp.Agent = to.Name
	r.cfg.tree.label = handoffLabel(r.cfg.tree.label, to.Name)
	r.log = r.cfg.tree.runLogger(r.baseLog).With("agent", to.Name)
	r.cfg.tree.handOff(r.own, r.first, to)
	return r.bind(to, false)
}

// continueHandoffs makes the agent the conversation was handed to in an
// earlier turn the one that answers. The conversation carries its
// handoffs: from the run's agent, each reply's call of a handoff of the
// agent then answering whose result says the transfer was made (but the
// reply a run given decisions resumes, whose handoff takes effect once its
// calls are answered: see [runner.resumeTurn]). Only declared handoffs
// are followed, so a conversation cannot hand the run to an agent it
// could not reach.
func (r *runner) continueHandoffs() error {
	prog, conv := r.cfg.tree.program, r.resp.Conversation
	if prog == nil {
		return nil
	}
	if r.cfg.resume {
		conv = conv[:max(lastAssistant(conv), 0)]
	}
	results := map[string]string{}
	for _, m := range conv {
		if m.Role == RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	to := r.agent
	for _, m := range conv {
	calls:
		for _, c := range m.ToolCalls {
			for _, h := range to.Handoffs {
				if a := prog.Agent(h.Agent); h.ToolName() == c.Name && results[c.ID] == transferred(h.Agent) && a != nil {
					to = a
					break calls
				}
			}
		}
	}
	if to == r.agent {
		return nil
	}
	r.log.Info("conversation handed to", "to", to.Name)
	return r.becomeAgent(to)
}

// transferred is the result of a handoff to agent that took effect.
func transferred(agent string) string { return "Transferred to " + agent + "." }

// stopAtModelCalls ends the run at the tree's limit of model calls.
func (r *runner) stopAtModelCalls() *Response {
	resp := r.resp
	resp.Status = StatusMaxModelCalls
	resp.Content = MaxModelCallsMessage
	r.log.Warn("maximum model calls reached", "maxModelCalls", r.cfg.tree.maxModelCalls)
	resp.Warnings = append(resp.Warnings, fmt.Sprintf(
		"the agents of this run made the %d model calls allowed to the whole run (sub-agents included) without a final answer", r.cfg.tree.maxModelCalls))
	return resp
}

// handoffLabel is the trace label of a run that handed off to agent: its
// label with the last agent replaced, the agent alone for a top run.
func handoffLabel(label, agent string) string {
	if i := strings.LastIndex(label, " > "); i >= 0 {
		return label[:i+3] + agent
	}
	return agent
}
