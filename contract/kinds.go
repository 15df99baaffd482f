// The kinds of contract change, each with what it means and when it
// breaks callers.

package contract

// Kind classifies a change; kinds are stable, kebab-case codes.
type Kind string

// The kinds of change.
const (
	ToolRemoved              Kind = "tool-removed"
	ToolRenamed              Kind = "tool-renamed"
	ToolAdded                Kind = "tool-added"
	RequiredParameterAdded   Kind = "required-parameter-added"
	OptionalParameterAdded   Kind = "optional-parameter-added"
	ParameterRemoved         Kind = "parameter-removed"
	ParameterMadeRequired    Kind = "parameter-made-required"
	ParameterMadeOptional    Kind = "parameter-made-optional"
	RequiredFieldAdded       Kind = "required-field-added"
	OptionalFieldAdded       Kind = "optional-field-added"
	FieldRemoved             Kind = "field-removed"
	FieldMadeRequired        Kind = "field-made-required"
	FieldMadeOptional        Kind = "field-made-optional"
	TypeNarrowed             Kind = "type-narrowed"
	TypeWidened              Kind = "type-widened"
	TypeChanged              Kind = "type-changed"
	ReturnTypeNarrowed       Kind = "return-type-narrowed"
	ReturnTypeWidened        Kind = "return-type-widened"
	EnumValueRemoved         Kind = "enum-value-removed"
	EnumValueAdded           Kind = "enum-value-added"
	ConstraintTightened      Kind = "constraint-tightened"
	ConstraintRelaxed        Kind = "constraint-relaxed"
	ConstraintChanged        Kind = "constraint-changed"
	DefaultChanged           Kind = "default-changed"
	DescriptionChanged       Kind = "description-changed"
	InjectedParameterChanged Kind = "injected-parameter-changed"
	TypeRenamed              Kind = "type-renamed"
	AgentRemoved             Kind = "agent-removed"
	AgentAdded               Kind = "agent-added"
	AgentToolRemoved         Kind = "agent-tool-removed"
	AgentToolAdded           Kind = "agent-tool-added"
	AgentChanged             Kind = "agent-changed"
)

// Verdict says whether a kind of change breaks callers.
type Verdict string

// The verdicts of kinds.
const (
	// Breaks: a change of this kind always breaks callers.
	Breaks Verdict = "breaking"
	// Safe: it never does.
	Safe Verdict = "safe"
	// Depends: it breaks where callers send the value and not where they
	// receive it, or the other way round.
	Depends Verdict = "depends"
)

// KindInfo describes a kind of change.
type KindInfo struct {
	Kind Kind
	// Verdict says whether changes of the kind break callers.
	Verdict Verdict
	// Summary says what the change is and when it breaks callers.
	Summary string
}

// Kinds lists every kind of change with its meaning.
var Kinds = []KindInfo{
	{ToolRemoved, Breaks, "A tool is gone: calls of it fail. Breaking."},
	{ToolRenamed, Breaks, "A tool has a new name and the same signature: calls of the old name fail. Breaking."},
	{ToolAdded, Safe, "A new tool. Safe."},
	{RequiredParameterAdded, Breaks, "A new parameter callers must send: calls without it are refused. Breaking."},
	{OptionalParameterAdded, Safe, "A new parameter callers may leave out. Safe."},
	{ParameterRemoved, Breaks, "A parameter is gone (or is now injected): calls that send it are refused. Breaking."},
	{ParameterMadeRequired, Breaks, "A parameter callers could leave out must now be sent. Breaking."},
	{ParameterMadeOptional, Safe, "A parameter callers had to send may now be left out. Safe."},
	{RequiredFieldAdded, Depends, "A new required field of a record: breaking where callers send the record, safe where they receive it."},
	{OptionalFieldAdded, Safe, "A new optional field of a record: safe where callers send it, and where they receive it (they read the fields they know)."},
	{FieldRemoved, Breaks, "A record field is gone: breaking where callers send the record (the field is refused) and where they receive it (they read it)."},
	{FieldMadeRequired, Depends, "A record field must now be given: breaking where callers send the record, safe where they receive it."},
	{FieldMadeOptional, Depends, "A record field may now be left out: safe where callers send the record, breaking where they receive it."},
	{TypeNarrowed, Depends, "A parameter's or field's type accepts fewer values: breaking where callers send it, safe where they receive it."},
	{TypeWidened, Depends, "A parameter's or field's type accepts more values: safe where callers send it, breaking where they receive it."},
	{TypeChanged, Breaks, "A type accepts other values, neither fewer nor more (String to Integer): breaking wherever it is."},
	{ReturnTypeNarrowed, Safe, "A tool's return type has fewer values: callers receive only values they knew. Safe."},
	{ReturnTypeWidened, Breaks, "A tool's return type has more values: callers may receive values they do not expect. Breaking."},
	{EnumValueRemoved, Depends, "An enum has fewer values: breaking where callers send it, safe where they receive it."},
	{EnumValueAdded, Depends, "An enum has more values: safe where callers send it, breaking where they receive it."},
	{ConstraintTightened, Depends, "A bound, pattern, format or enum is stricter: breaking where callers send the value, safe where they receive it."},
	{ConstraintRelaxed, Depends, "A bound, pattern, format or enum is looser: safe where callers send the value, breaking where they receive it."},
	{ConstraintChanged, Breaks, "A pattern or format is another, neither stricter nor looser: breaking wherever it is."},
	{DefaultChanged, Breaks, "A parameter's default is added, removed or changed: calls that leave it out now mean something else. Breaking."},
	{DescriptionChanged, Safe, "A description changed; no value is accepted or refused because of it. Safe."},
	{InjectedParameterChanged, Safe, "An injected parameter is added, removed or changed: the host sets it, callers never send it. Safe."},
	{TypeRenamed, Safe, "A record used here has another name and the same shape; the values are the same. Safe."},
	{AgentRemoved, Breaks, "An agent is gone: whoever runs or serves it fails. Breaking."},
	{AgentAdded, Safe, "A new agent. Safe."},
	{AgentToolRemoved, Breaks, "An agent no longer has a tool: what it did with it, it cannot. Breaking."},
	{AgentToolAdded, Safe, "An agent has a new tool. Safe."},
	{AgentChanged, Safe, "An agent's model, instruction, settings or description changed; its callers' contract is the same. Safe."},
}

// Summary returns the summary of a kind from [Kinds], or "".
func (k Kind) Summary() string {
	for _, i := range Kinds {
		if i.Kind == k {
			return i.Summary
		}
	}
	return ""
}
