// Run: the tool-calling loop of one user turn.
//
// A turn appends the user's input to the conversation, then calls the model
// with the agent's instruction, the conversation and the tool definitions.
// When the reply asks for tools, the calls are executed (see execute.go),
// their results appended as tool messages in call order (followed by a user
// message with the images they returned, if any), and the model is called
// again; a reply without tool calls is the answer. After the agent's
// maxIterations calls the turn stops with StatusMaxIterations and, unless
// turned off, one last call without tools asks the model to sum up; without
// a summary the answer is MaxIterationsMessage.

package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// DefaultResultLimit is the default size limit, in bytes, of a tool result
// sent to the model.
const DefaultResultLimit = 16 << 10

// summaryPrompt asks for a summary when the iteration limit is reached.
const summaryPrompt = "You have reached the maximum number of steps for this request. " +
	"Do not call any tools. Briefly tell the user what you have done and found so far, " +
	"and what remains to be done."

// MaxIterationsMessage is the content of a turn that reached the iteration
// limit without a summary (turned off, empty or failed).
const MaxIterationsMessage = "I need more time to process this request. Please try breaking it into smaller steps."

// Option configures [Run].
type Option func(*runConfig)

type runConfig struct {
	model         Model
	modelConfig   ModelConfig
	injected      map[string]any
	logger        *slog.Logger
	resultLimit   int
	summary       bool
	maxIterations int
	hooks         Hooks
	events        func(Event) // see event.go
	streaming     *bool
	toolTrace     io.Writer        // see WithToolTrace
	instructions  []string         // see WithInstructions
	noTools       bool             // see WithoutTools
	fallbacks     []Fallback       // see WithFallbacks
	outputRetries *int             // see WithOutputRetries
	tree          treeConfig       // see subrun.go
	clientTools   []ToolDefinition // see WithClientTools
	approver      Approver         // see WithApprover
	decisions     []Decision       // see WithDecisions
	resume        bool             // WithDecisions was given
	checkpointer  Checkpointer     // see WithCheckpointer
}

// Hooks are called as a run progresses, for progress displays, and as the
// runs it starts (sub-agents) progress. Calls are serialized; a hook must
// not block for long.
type Hooks struct {
	// ModelStart is called before each model call, with the iteration
	// (from 1; the summary call at the limit has iteration 0).
	ModelStart func(iteration int)
	// ModelDone is called after each model call.
	ModelDone func(iteration int, err error)
	// ToolDone is called when a tool call finishes, successful or not.
	ToolDone func(use ToolUse)
}

// WithModel sets the model; by default [Run] makes one with [NewModel] for
// the agent's provider.
func WithModel(m Model) Option { return func(c *runConfig) { c.model = m } }

// WithModelConfig configures the model [Run] makes when [WithModel] is not
// given.
func WithModelConfig(cfg ModelConfig) Option { return func(c *runConfig) { c.modelConfig = cfg } }

// WithInjected sets the values of injected parameters, by parameter name
// (e.g. the authenticated user's id as "userId"). Each tool receives the
// values of its own injected parameters; they override anything the model
// sent and never appear in the schema the model sees.
func WithInjected(values map[string]any) Option {
	return func(c *runConfig) { c.injected = values }
}

// WithLogger sets the logger; the default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *runConfig) { c.logger = l } }

// WithToolTrace makes the tools that run programs (see [ExecTool]) write
// what each program wrote on standard error to w, whether it succeeded or
// not, under a line naming the tool and the call ("--- tool NAME (call
// ID): standard error"), and the agents of a nested run ("--- tool NAME
// (call ID) of support > billing: standard error"). Writes are whole, one per call; w should mask
// secrets when the program may print them.
func WithToolTrace(w io.Writer) Option { return func(c *runConfig) { c.toolTrace = w } }

// WithResultLimit sets the size limit, in bytes, of a tool result sent to
// the model (default [DefaultResultLimit]; 0 or less means no limit).
// Longer results keep their head and tail around a marker; the full result
// stays in [Response.ToolsUsed].
func WithResultLimit(n int) Option { return func(c *runConfig) { c.resultLimit = n } }

// WithSummary turns on or off (it is on by default) the last model call,
// without tools, that asks for a summary of the progress when the iteration
// limit is reached.
func WithSummary(on bool) Option { return func(c *runConfig) { c.summary = on } }

// WithMaxIterations overrides the agent's maxIterations.
func WithMaxIterations(n int) Option { return func(c *runConfig) { c.maxIterations = n } }

// WithInstructions adds system messages to every model call of the run,
// after the agent's own instruction, which stays first: a caller's
// instructions (a chat client's system message) refine the agent's and do
// not replace it. Empty texts are left out.
func WithInstructions(texts ...string) Option {
	return func(c *runConfig) {
		for _, t := range texts {
			if strings.TrimSpace(t) != "" {
				c.instructions = append(c.instructions, t)
			}
		}
	}
}

// WithoutTools offers the model none of the agent's tools in this run, so
// that it answers with text and no tool is called (a chat client's
// tool_choice "none").
func WithoutTools() Option { return func(c *runConfig) { c.noTools = true } }

// WithHooks sets progress hooks.
func WithHooks(h Hooks) Option { return func(c *runConfig) { c.hooks = h } }

// Run executes one user turn of agent: input is the user's message and conv
// the conversation so far (nil for a new one). With an empty input, a
// conversation that ends with a user message is answered as it is (the
// agent service contract's message history, whose last message is the new
// one), and so is one that ends with the tool messages answering the last
// assistant message's calls (the results of client tools, see
// [WithClientTools]): the model is called with them. A conversation that
// stopped at [StatusAwaitingApproval] goes on with an empty input and
// [WithDecisions]. Tools are bound from lib by name before anything is sent.
//
// User messages are sanitised before they are sent (see [Sanitizer]):
// control characters other than newline and tab and the bidirectional
// embeddings, overrides and isolates are removed, and bytes that are not
// UTF-8 become U+FFFD, with a warning per kind of change naming the
// characters and the messages; the Response's Conversation holds the
// sanitised text, as the model saw it.
//
// Run always returns a Response. On error its Status is [StatusError], its
// Error the user-facing message, and it keeps everything produced before
// the failure; the error is a [*ValidationError], [*ConfigError],
// [*LLMError], [*ToolError] (binding), a [*PrepareError] (an injected
// parameter without a valid value: see [Prepare]) or the context's error;
// or, with the status [StatusInvalidOutput], an [*OutputError] (a final
// answer that does not match the agent's result type).
func Run(ctx context.Context, agent *schema.Agent, lib *Library, conv Conversation, input string, opts ...Option) (out *Response, err error) {
	cfg := runConfig{resultLimit: DefaultResultLimit, summary: true}
	for _, o := range opts {
		o(&cfg)
	}
	cfg.tree.start()
	cfg.tree.takeBudget(agent)
	if cfg.tree.source == nil {
		cfg.tree.given = cfg.model
	}
	// tree is the run's, the runner's once it has one: a handoff changes
	// the account it spends against.
	tree := &cfg.tree
	defer func() {
		if out != nil && tree.hasBudget() {
			out.Spent = tree.spent()
		}
		cfg.emitRunFinished(out, err)
	}()
	base := cfg.logger
	if base == nil {
		base = slog.Default()
	}
	log := cfg.tree.runLogger(base)
	resp := &Response{Conversation: conv.Clone(), ToolsUsed: []ToolUse{}, RunID: cfg.tree.runID}
	if lib == nil {
		lib = &Library{}
	}
	r := &runner{cfg: cfg, log: log, resp: resp, baseLog: base, lib: lib, first: agent, own: cfg.tree.account}
	tree = &r.cfg.tree
	if agent == nil {
		return r.fail(&ValidationError{Field: "agent", Message: "no agent given"})
	}
	r.agent = agent
	r.log = log.With("agent", agent.Name)
	resp.Agent = agent.Name
	r.emitRunStarted()
	var z Sanitizer
	for i := range resp.Conversation {
		if m := &resp.Conversation[i]; m.Role == RoleUser {
			m.Content = z.Text(fmt.Sprintf("conversation[%d]", i), m.Content)
		}
	}
	input = z.Text("the new message", input)
	switch n := len(resp.Conversation); {
	case cfg.resume:
		if err := checkResume(resp.Conversation, input); err != nil {
			return r.fail(err)
		}
	case strings.TrimSpace(input) != "":
		resp.Conversation = append(resp.Conversation, Message{Role: RoleUser, Content: input})
	case n == 0 || resp.Conversation[n-1].Role != RoleUser && resp.Conversation[n-1].Role != RoleTool:
		return r.fail(&ValidationError{Field: "input", Message: "the message is empty"})
	}
	if err := resp.Conversation.Validate(); err != nil && !cfg.resume {
		return r.fail(err)
	}
	for _, w := range z.Warnings() {
		r.warn(w)
	}
	if err := r.bind(agent, true); err != nil {
		return r.fail(err)
	}
	if err := r.continueHandoffs(); err != nil {
		return r.fail(err)
	}
	return r.run(ctx)
}

// bind makes agent the one that answers: it checks that the agents it uses
// are in the program, binds its tools (those that run an agent to nested
// runs, the others to the library), checks its injected parameters and
// takes its model (first for the run's own agent, see takeModel).
func (r *runner) bind(agent *schema.Agent, first bool) error {
	if err := r.cfg.tree.checkAgents(agent); err != nil {
		return err
	}
	tools, err := r.lib.Bind(agent.Tools)
	if err != nil {
		return err
	}
	if problems := checkInjected(agent.Tools, r.cfg.injected); len(problems) > 0 {
		return &PrepareError{Problems: problems}
	}
	r.tools = tools
	for _, w := range tools.Warnings {
		r.warn(w)
	}
	return r.takeModel(agent, first)
}

// takeModel sets the model of agent when it begins to answer, first for
// the run's own agent (rather than one handed to): the model of
// [WithModel], which the runs of a tree share when there is no
// [ModelSource]; else the source's model (with its fallbacks) for every
// agent but the run's own with a model given; else one made by [NewModel].
func (r *runner) takeModel(agent *schema.Agent, first bool) error {
	switch {
	case r.cfg.tree.given != nil, first && r.cfg.model != nil:
		return nil
	}
	if src := r.cfg.tree.source; src != nil {
		m, fbs, err := src(agent)
		if err != nil {
			return err
		}
		r.cfg.model, r.cfg.fallbacks, r.fallback = m, fbs, 0
		return nil
	}
	mc := r.cfg.modelConfig
	if mc.Logger == nil {
		mc.Logger = r.log
	}
	m, err := NewModel(agent.Model, mc)
	if err != nil {
		return err
	}
	// The agent's own model, before any of its fallbacks.
	r.cfg.model, r.fallback = m, 0
	return nil
}

// runner holds the state of one turn.
type runner struct {
	cfg   runConfig
	agent *schema.Agent
	tools *Toolset
	lib   *Library
	log   *slog.Logger
	resp  *Response
	seen  map[string]int // canonical call -> times asked, for the repeat guard
	// baseLog is the logger given to the run, which nested runs share.
	baseLog *slog.Logger
	// handoff is the state of the turn's handoffs (see handoff.go); first
	// is the run's agent, own the account it started with (see budget.go).
	handoff handoffState
	first   *schema.Agent
	own     *spending
	// fallback is the number of fallbacks moved to (see completeFrom).
	fallback int
	// output is the agent's typed result, nil for free text; outputAttempts
	// counts the answers that did not match it (see outputcheck.go).
	output         *outputSpec
	outputAttempts int
}

// fail ends the turn with an error.
func (r *runner) fail(err error) (*Response, error) {
	r.resp.Status = StatusError
	r.resp.Error = UserMessage(err)
	r.log.Error("run failed", "error", err)
	return r.resp, err
}

// warn records a warning and logs it.
func (r *runner) warn(msg string) {
	r.resp.Warnings = append(r.resp.Warnings, msg)
	r.log.Warn(msg)
}

// warnOnce records a warning made during the tool calls of a step, which
// may run in parallel, unless the turn already has it.
func (r *runner) warnOnce(msg string) {
	r.hook(func() {
		if !slices.Contains(r.resp.Warnings, msg) {
			r.warn(msg)
		}
	})
}

// hook runs f with the hooks serialized.
func (r *runner) hook(f func()) {
	mu := &r.cfg.tree.shared.mu
	mu.Lock()
	defer mu.Unlock()
	f()
}

// run runs the turn on the conversation, which ends with the user's
// message.
func (r *runner) run(ctx context.Context) (*Response, error) {
	resp := r.resp
	defs, maxIter := r.definitions(), r.maxIterations()
	r.seen = map[string]int{}
	r.output = newOutputSpec(r.agent)
	start := time.Now()
	if r.cfg.resume {
		if resp, err, stop := r.resumeTurn(ctx); stop {
			return resp, err
		}
		defs, maxIter = r.definitions(), r.maxIterations()
	}
	for iter := 1; iter <= maxIter; iter++ {
		if resp, err, stop := r.beforeCall(); stop {
			return resp, err
		}
		resp.Iterations = iter
		reply, err := r.call(ctx, iter, defs, "", nil)
		if err != nil {
			return r.fail(err)
		}
		msg := reply.Message
		msg.Role = RoleAssistant
		msg.ToolCalls = uniqueCallIDs(resp.Conversation, msg.ToolCalls)
		resp.Conversation = append(resp.Conversation, msg)
		if len(msg.ToolCalls) == 0 {
			resp.Content = msg.Content
			resp.Status = StatusCompleted
			if st, warning := finishStatus(reply); st != StatusCompleted {
				resp.Status = st
				r.warn(warning)
			} else if again, err := r.checkOutput(msg); err != nil {
				return r.failOutput(msg.Content, err)
			} else if again {
				continue
			}
			r.log.Info("run completed", "iterations", iter, "toolCalls", len(resp.ToolsUsed),
				"duration", time.Since(start), "totalTokens", resp.Usage.TotalTokens)
			return resp, nil
		}
		if resp, err, stop := r.runCalls(ctx, iter, defs, msg); stop {
			return resp, err
		}
		if r.handoff.to != nil {
			// The agent handed to has its own limit of iterations.
			if err := r.switchAgent(); err != nil {
				return r.fail(err)
			}
			defs, maxIter = r.definitions(), iter+r.maxIterations()
			r.output = newOutputSpec(r.agent)
		}
	}
	if resp, err, stop := r.checkBudget(); stop {
		return resp, err
	}
	resp.Status = StatusMaxIterations
	resp.Content = MaxIterationsMessage
	r.log.Warn("maximum iterations reached", "maxIterations", r.maxIterations(), "toolCalls", len(resp.ToolsUsed))
	msg := fmt.Sprintf("the agent reached its limit of %d model calls in this turn without a final answer", r.maxIterations())
	if r.cfg.summary && !r.cfg.tree.takeModelCall() {
		msg += "; the limit of model calls leaves none for a summary"
	} else if r.cfg.summary {
		extra := []Message{{Role: RoleUser, Content: summaryPrompt}}
		reply, err := r.call(ctx, 0, defs, "none", extra)
		switch {
		case err != nil:
			r.log.Error("summary call failed", "error", err)
			msg += "; asking the model for a summary failed: " + UserMessage(err)
		case strings.TrimSpace(reply.Message.Content) == "":
			msg += "; the model gave no summary"
		default:
			resp.Content = reply.Message.Content
			resp.Conversation = append(resp.Conversation, Message{Role: RoleAssistant, Content: reply.Message.Content})
			msg += "; the answer is the model's summary of its progress"
		}
	}
	resp.Warnings = append(resp.Warnings, msg)
	return resp, nil
}

// addResults adds the results of a reply's tool calls to the turn: to its
// tool uses, and as tool messages in call order to the conversation,
// followed by a user message with their images, if any (tool messages
// carry text only).
func (r *runner) addResults(results []callResult) {
	resp := r.resp
	uses := make([]ToolUse, len(results))
	for i, res := range results {
		uses[i] = res.use
		resp.ToolsUsed = append(resp.ToolsUsed, res.use)
		resp.Conversation = append(resp.Conversation, Message{
			Role: RoleTool, Content: res.content, ToolCallID: res.use.CallID, Name: res.use.Name,
		})
	}
	if m, ok := imagesMessage(uses); ok {
		resp.Conversation = append(resp.Conversation, m)
	}
}

// uniqueCallIDs returns calls with ids that no call of conv and no other
// of calls has: a server that leaves ids out (they are made up as
// "call_1", ...) or repeats them would otherwise make the conversation
// invalid for the next turn. An id that is new is kept.
func uniqueCallIDs(conv Conversation, calls []ToolCall) []ToolCall {
	if len(calls) == 0 {
		return calls
	}
	used := map[string]bool{}
	for _, m := range conv {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	out := slices.Clone(calls)
	for i := range out {
		id := out[i].ID
		for k := 2; used[id]; k++ {
			id = fmt.Sprintf("%s_%d", out[i].ID, k)
		}
		out[i].ID = id
		used[id] = true
	}
	return out
}

// finishStatus returns the status of a final answer and, when it is not
// complete, the warning that says why.
func finishStatus(reply *Reply) (Status, string) {
	switch {
	case reply.NoMessage:
		return StatusNoMessage, "the server's answer had no message (\"message\": null): there is no answer"
	case reply.FinishReason == "length":
		return StatusTruncated, "the answer was cut short at the model's token limit (finish_reason \"length\"); raise the agent's maxTokens or ask for less"
	case reply.FinishReason == "content_filter":
		return StatusFiltered, "the provider's content filter withheld or cut the answer (finish_reason \"content_filter\")"
	case strings.TrimSpace(reply.Message.Content) == "":
		return StatusEmpty, fmt.Sprintf("the model's answer was empty (finish_reason %q): there is no answer; ask again or rephrase", reply.FinishReason)
	}
	return StatusCompleted, ""
}

// call makes one model call: iteration 0 is the summary call, with
// toolChoice "none" and the extra messages appended to the request only.
func (r *runner) call(ctx context.Context, iter int, defs []ToolDefinition, toolChoice string, extra []Message) (*Reply, error) {
	s := r.agent.Settings
	req := &Request{
		Model:       r.agent.Model.ID,
		Messages:    make([]Message, 0, len(r.resp.Conversation)+1+len(r.cfg.instructions)+len(extra)),
		Tools:       defs,
		ToolChoice:  toolChoice,
		Temperature: s.Temperature,
		MaxTokens:   s.MaxTokens,
		Timeout:     s.Timeout,
	}
	if req.Timeout <= 0 {
		req.Timeout = schema.DefaultTimeout
	}
	if r.output != nil && iter > 0 {
		req.Output = r.output.format
	}
	if !s.ParallelToolCalls && len(defs) > 0 {
		no := false
		req.ParallelToolCalls = &no
	}
	if r.agent.Instruction != "" {
		req.Messages = append(req.Messages, Message{Role: RoleSystem, Content: r.agent.Instruction})
	}
	for _, t := range r.cfg.instructions {
		req.Messages = append(req.Messages, Message{Role: RoleSystem, Content: t})
	}
	req.Messages = append(req.Messages, r.resp.Conversation...)
	req.Messages = append(req.Messages, extra...)

	if h := r.cfg.hooks.ModelStart; h != nil {
		r.hook(func() { h(iter) })
	}
	info := r.log.Enabled(ctx, slog.LevelInfo)
	if info {
		r.log.Info("model call", "iteration", iter, "model", r.modelInUse().String(), "messages", len(req.Messages))
	}
	start := time.Now()
	reply, err := r.completeStep(ctx, iter, req)
	d := time.Since(start)
	if err == nil && reply == nil {
		err = &LLMError{Kind: LLMBadResponse, Attempts: 1, Err: errors.New("the model returned no reply")}
	}
	if err != nil {
		err = asRunError(err)
	}
	if h := r.cfg.hooks.ModelDone; h != nil {
		r.hook(func() { h(iter, err) })
	}
	if err != nil {
		return nil, err
	}
	r.resp.Usage.Add(reply.Usage)
	r.cfg.tree.spend(r.modelInUse(), reply.Usage)
	r.resp.FinishReason = reply.FinishReason
	if info {
		r.log.Info("model answered", "iteration", iter, "duration", d, "toolCalls", len(reply.Message.ToolCalls),
			"finishReason", reply.FinishReason, "totalTokens", reply.Usage.TotalTokens)
	}
	return reply, nil
}

// asRunError keeps the typed errors and context errors, and wraps anything
// else a Model returns in an LLMError.
func asRunError(err error) error {
	var (
		le *LLMError
		ce *ConfigError
		we *replay.WriteError
	)
	if errors.As(err, &le) || errors.As(err, &ce) || errors.As(err, &we) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &LLMError{Kind: LLMNetwork, Attempts: 1, Err: err}
}
