// The compiled model: a Program holds agents, tools and records; a tool's
// signature is a list of parameters and a return type. Every element records
// the byte spans it came from.

package schema

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// Program is a compiled gram agent file: its agents ([Program.Agents]),
// tools ([Program.Tools]), records and tests.
type Program struct {
	// File is the source.
	File *diag.File
	// Records are the file's record types in source order.
	Records []*Record
	// Tests are the file's agent tests in source order.
	Tests []*Test

	// agents and tools are the lists [Program.Agents] and [Program.Tools]
	// give, which the versions of a document share by chunk (see
	// lists.go).
	agents *list[*Agent]
	tools  *list[*Tool]

	// memo is what the compile that made the program did, for compiling
	// the document again after an edit (see [Recompile]); nil when that
	// cannot start from this program.
	memo *compileMemo
}

// Agent returns the agent with the given name, or nil.
func (p *Program) Agent(name string) *Agent {
	return named(p.AllAgents(), name, agentName)
}

// AgentNames returns the names of the program's agents, in order.
func (p *Program) AgentNames() []string { return namesOf(p.Agents(), agentName) }

// SelectTools returns the tools of the program, of its agent called
// agent (when not ""), or the one called tool (when not "") among them;
// the error names what there is when either is not found.
func (p *Program) SelectTools(agent, tool string) ([]*Tool, error) {
	tools := p.Tools()
	scope := "the file"
	if agent != "" {
		a := p.Agent(agent)
		if a == nil {
			return nil, fmt.Errorf("no agent %q in %s; %s", agent, p.File.Path, suggest.Available("agents", agent, p.AgentNames()))
		}
		tools = a.Tools
		scope = "agent " + a.Name
	}
	if tool == "" {
		return tools, nil
	}
	if t := named(slices.All(tools), tool, toolName); t != nil {
		return []*Tool{t}, nil
	}
	return nil, fmt.Errorf("no tool %q in %s; %s", tool, scope, suggest.Available("tools", tool, namesOf(tools, toolName)))
}

// Tool returns the first tool definition with the given name, or nil.
func (p *Program) Tool(name string) *Tool {
	return named(p.AllTools(), name, toolName)
}

// Record returns the record type with the given name, or nil.
func (p *Program) Record(name string) *Record {
	return named(slices.All(p.Records), name, recordName)
}

// named returns the first of list whose name (as nameOf gives it) is
// name, or nil.
func named[T any](list iter.Seq2[int, *T], name string, nameOf func(*T) string) *T {
	for _, x := range list {
		if nameOf(x) == name {
			return x
		}
	}
	return nil
}

// namesOf returns the names of list, as nameOf gives them, in order.
func namesOf[T any](list []T, nameOf func(T) string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = nameOf(x)
	}
	return out
}

// toolName, paramName, agentName and recordName return the name of a
// tool, a parameter or field, an agent and a record.
func toolName(t *Tool) string     { return t.Name }
func paramName(p *Param) string   { return p.Name }
func agentName(a *Agent) string   { return a.Name }
func recordName(r *Record) string { return r.Name }

// Agent is an LLM agent: a model, a system instruction, run settings and the
// tools it may call.
type Agent struct {
	// Name is the agent's identity.
	Name string
	// Description is for people (hovers, listings); it is never sent to the
	// model.
	Description string
	// Model is the model that runs the agent.
	Model Model
	// Instruction is the system prompt, dedented if it was a fenced string.
	Instruction string
	// Settings are the run settings, defaults filled in.
	Settings Settings
	// Tools are the agent's tools in the order listed. A tool shared with
	// other agents is the same *Tool. An agent listed among the elements
	// is here as its [Agent.AsTool], whose [Tool.Agent] names it.
	Tools []*Tool
	// AsTool is the agent as another agent's tool: named after the agent,
	// described by its description, with the parameters and return type of
	// its signature element, or (message::String)==>(::String) when it
	// has none (see Signature). Every named agent has one.
	AsTool *Tool
	// Signature tells that the agent has a signature element, written as a
	// tool's signature among its elements.
	Signature bool
	// Handoffs are the agents this agent may pass the conversation to, in
	// the order declared: each a top-level relationship
	// (from)-[:Handoff {description: "..."}]->(to).
	Handoffs []Handoff
	// Span is the whole agent pattern; NameSpan its identity.
	Span, NameSpan diag.Span
	// Props are the agent's properties as written.
	Props []Prop

	// addAt is where AddToolEdit inserts; addSep is written before the name.
	addAt  int
	addSep string
	// toolIdx are the indexes of Tools in the program's tools.
	toolIdx []int
}

// Result returns the type of the agent's answer, the return type of its
// signature element: nil when the answer is free text (no signature, or a
// String result).
func (a *Agent) Result() *Type {
	if !a.Signature || a.AsTool == nil || a.AsTool.Returns == nil || a.AsTool.Returns.Kind == StringType {
		return nil
	}
	return a.AsTool.Returns
}

// HandoffLabel labels the relationship that lets an agent pass the
// conversation to another.
const HandoffLabel = "Handoff"

// Handoff is an agent's permission to pass the conversation on: the model
// of the agent sees a tool named [Handoff.ToolName]; calling it makes the
// target agent answer the user from the conversation so far.
type Handoff struct {
	// Agent is the name of the agent handed to.
	Agent string
	// Description tells the model when to hand off; empty when the
	// relationship has none.
	Description string
	// Span is the relationship, in File, the file of the package that
	// holds it.
	Span diag.Span
	File *diag.File
}

// HandoffPrefix begins the name of the tool the model calls to hand off
// (see [Handoff.ToolName]).
const HandoffPrefix = "transfer_to_"

// ToolName is the name of the tool the model calls to hand off:
// [HandoffPrefix] followed by the target agent's name.
func (h Handoff) ToolName() string { return HandoffPrefix + h.Agent }

// AddToolEdit returns the edit of the agent's source that adds a reference
// to the top-level tool name to its elements, and false for an agent that
// was not compiled from source.
func (a *Agent) AddToolEdit(name string) (diag.Edit, bool) {
	if a.addSep == "" {
		return diag.Edit{}, false
	}
	return diag.Edit{Span: diag.Span{Start: a.addAt, End: a.addAt}, NewText: a.addSep + name}, true
}

// Tool returns the agent's tool with the given name, or nil.
func (a *Agent) Tool(name string) *Tool {
	return named(slices.All(a.Tools), name, toolName)
}

// Prop is a property as written in the source: its key, its value and where
// the key and the value are (see [parser.Property.KeySpan],
// [parser.Property.ValueSpan]). A declaration's properties are its lowered
// subject's, shared with the document rather than copied.
type Prop = parser.Property

// PropSpan returns the span of the key of the property named key in props, and
// whether there is one.
func PropSpan(props []Prop, key string) (diag.Span, bool) {
	if i := slices.IndexFunc(props, func(p Prop) bool { return p.Key == key }); i >= 0 {
		return props[i].KeySpan(), true
	}
	return diag.Span{}, false
}

// Provider names a model provider.
type Provider string

// The known providers.
const (
	// OpenAI is the OpenAI API (key OPENAI_API_KEY, base URL OPENAI_BASE_URL).
	OpenAI Provider = "OpenAI"
	// Ollama is a local Ollama server (no key; OLLAMA_HOST, by default
	// http://localhost:11434/v1).
	Ollama Provider = "Ollama"
	// OpenAICompatible is any server speaking the OpenAI API; its base URL
	// is required at run time.
	OpenAICompatible Provider = "OpenAICompatible"
	// Anthropic is Anthropic's Messages API (key ANTHROPIC_API_KEY, base
	// URL ANTHROPIC_BASE_URL, by default https://api.anthropic.com).
	Anthropic Provider = "Anthropic"
	// Gemini is the Gemini API's generateContent (key GEMINI_API_KEY or
	// GOOGLE_API_KEY, base URL GEMINI_BASE_URL, by default
	// https://generativelanguage.googleapis.com).
	Gemini Provider = "Gemini"
)

// Providers lists the known providers.
var Providers = []Provider{OpenAI, Ollama, OpenAICompatible, Anthropic, Gemini}

// Model is an agent's model, written "Provider/model-id".
type Model struct {
	// Provider is the provider; it is one of [Providers] when the file
	// compiled without errors.
	Provider Provider
	// ID is the provider's model name, e.g. "gpt-4o-mini".
	ID string
	// Span is the model string.
	Span diag.Span
}

// String returns "Provider/ID", or "" when the model is not set.
func (m Model) String() string {
	if m.Provider == "" && m.ID == "" {
		return ""
	}
	return string(m.Provider) + "/" + m.ID
}

// Default run settings.
const (
	DefaultMaxIterations = 10
	DefaultTimeout       = 60 * time.Second
)

// Settings are an agent's run settings.
type Settings struct {
	// MaxIterations is the number of LLM calls allowed per user turn (at
	// least 1; default 10).
	MaxIterations int
	// Temperature is passed to the model when set (0..2).
	Temperature *float64
	// MaxTokens is passed to the model when non-zero.
	MaxTokens int
	// MaxToolTokens, when non-zero, is the most tokens the agent's tool
	// definitions may take for its model ([Cost]); over it is the
	// tool-token-budget diagnostic.
	MaxToolTokens int
	// Timeout limits each LLM call (default 60s).
	Timeout time.Duration
	// ParallelToolCalls runs the tool calls of one response concurrently
	// (default true).
	ParallelToolCalls bool
	// Budget is what one user turn of the agent, its sub-agents included,
	// may spend; zero values are no limit.
	Budget Budget
}

// DefaultSettings returns the settings of an agent that sets none.
func DefaultSettings() Settings {
	return Settings{MaxIterations: DefaultMaxIterations, Timeout: DefaultTimeout, ParallelToolCalls: true}
}

// Tool is a tool declaration: a name the model calls, a description and a
// signature. Its implementation is bound at run time, by name.
type Tool struct {
	// Name is what the model calls; it matches ^[a-zA-Z0-9_-]{1,64}$ when
	// the file compiled without errors.
	Name string
	// Description tells the model what the tool does.
	Description string
	// Params are the parameters in signature order, injected ones included.
	Params []*Param
	// Returns is the return type; nil if the signature has none.
	Returns *Type
	// ReturnDescription is the description given on the return node, if any.
	ReturnDescription string
	// TopLevel is set for a tool defined at the top level of the file (as
	// opposed to inline in an agent).
	TopLevel bool
	// Span is the whole tool pattern, NameSpan its identity and
	// SignatureSpan the signature path.
	Span, NameSpan, SignatureSpan diag.Span
	// ReturnSpan is the return node.
	ReturnSpan diag.Span
	// Props are the tool's properties as written.
	Props []Prop
	// Agent is the name of the agent the tool runs, for an agent's
	// [Agent.AsTool]; empty for a tool bound from the tool library.
	Agent string
	// Approval is set by the property approval: true (on a tool, or on an
	// agent for its [Agent.AsTool]): a run stops before calling the tool
	// and waits for a person's decision. It is not part of the schema the
	// model sees.
	Approval bool

	validators atomic.Pointer[validators]
}

// Param returns the parameter with the given name, or nil.
func (t *Tool) Param(name string) *Param {
	return named(slices.All(t.Params), name, paramName)
}

// ModelParams returns the parameters the model supplies: all but the
// injected ones.
func (t *Tool) ModelParams() []*Param {
	out := make([]*Param, 0, len(t.Params))
	for _, p := range t.Params {
		if !p.Injected {
			out = append(out, p)
		}
	}
	return out
}

// Param is a tool parameter or a record field.
type Param struct {
	// Name is the parameter's identity.
	Name string
	// Type is its type; never nil (a missing or unknown type is
	// [InvalidType]).
	Type *Type
	// Description tells the model what to pass.
	Description string
	// Default is the default value, as a JSON value (see [Object] for the
	// forms), when HasDefault is set.
	Default    any
	HasDefault bool
	// Optional is set by `optional: true`.
	Optional bool
	// Injected parameters are supplied by the host at run time, never by
	// the model, and are left out of the schemas sent to models.
	Injected bool
	// Enum lists the allowed values as JSON values, if given.
	Enum []any
	// Constraints are the validation keywords (minimum, maxLength, ...) in
	// the order of [ConstraintKeywords], with JSON values.
	Constraints []Member
	// Span is the parameter's node, NameSpan its identity; NameSpan is
	// empty, where the name would be written, for a parameter named after
	// its type, (::Text).
	Span, NameSpan diag.Span
	// Props are the parameter's properties as written.
	Props []Prop
}

// NameOrNode returns the span of the parameter's name, or of its node
// when the name is not written.
func (p *Param) NameOrNode() diag.Span {
	if p.NameSpan.Len() > 0 {
		return p.NameSpan
	}
	return p.Span
}

// Required reports whether the parameter must be given: it has neither a
// default nor `optional: true`.
func (p *Param) Required() bool { return !p.HasDefault && !p.Optional }

// Record is a named object type.
type Record struct {
	// Name is the type name.
	Name string
	// Description documents the type; it becomes the object schema's
	// description.
	Description string
	// Fields are the record's fields in order.
	Fields []*Param
	// Span is the whole record pattern, NameSpan its identity.
	Span, NameSpan diag.Span
	// Props are the record's properties as written.
	Props []Prop
}

// Field returns the field with the given name, or nil.
func (r *Record) Field(name string) *Param {
	return named(slices.All(r.Fields), name, paramName)
}

// TypeKind classifies a [Type].
type TypeKind int

// Type kinds. InvalidType stands for a missing or unknown type; its schema
// accepts anything.
const (
	InvalidType TypeKind = iota
	StringType
	IntegerType
	NumberType
	BooleanType
	ObjectType
	ArrayType
	RecordType
)

// String returns the canonical type name ("String", "Integer", ..., "Record"
// for record types, "invalid").
func (k TypeKind) String() string {
	if k <= InvalidType || int(k) >= len(kindNames) {
		return "invalid"
	}
	return kindNames[k]
}

// kindNames are the canonical names of the type kinds.
var kindNames = [...]string{StringType: "String", IntegerType: "Integer", NumberType: "Number",
	BooleanType: "Boolean", ObjectType: "Object", ArrayType: "Array", RecordType: "Record"}

// Type is a parameter, field or return type.
type Type struct {
	Kind TypeKind
	// Name is the type as written ("Text", "Order", ...).
	Name string
	// Items is the element type of an Array, nil when not given (any
	// element).
	Items *Type
	// Record is the record of a RecordType.
	Record *Record
	// Span is where the type name is written.
	Span diag.Span
}

// String returns the type as written, with the element type of an array:
// "String", "Array<Order>", "Order".
func (t *Type) String() string {
	if t == nil {
		return "invalid"
	}
	name := cmp.Or(t.Name, t.Kind.String())
	if t.Kind == ArrayType && t.Items != nil {
		return name + "<" + t.Items.String() + ">"
	}
	return name
}
