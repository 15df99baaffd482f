// The catalogue of diagnostic codes the compiler reports, and the merging of
// parser and compiler diagnostics.

package schema

import (
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// Diagnostic codes reported by [Compile]. Codes are stable: they may be added
// to, never renamed.
const (
	CodeMissingInstruction   = "missing-instruction"
	CodeMissingModel         = "missing-model"
	CodeInvalidModel         = "invalid-model"
	CodeUnknownProvider      = "unknown-provider"
	CodeUnknownProperty      = "unknown-property"
	CodeInvalidPropertyValue = "invalid-property-value"
	CodeInapplicableProperty = "inapplicable-property"
	CodeMissingName          = "missing-name"
	CodeInvalidAgentName     = "invalid-agent-name"
	CodeConflictingLabels    = "conflicting-labels"
	CodeMiscasedLabel        = "miscased-label"
	CodeInvalidAgentElement  = "invalid-agent-element"
	CodeDuplicateSignature   = "duplicate-signature"
	CodeInjectedAgentParam   = "injected-agent-param"
	CodeAgentToolDescription = "agent-tool-description"
	CodeAgentCycle           = "agent-cycle"
	CodeInvalidHandoff       = "invalid-handoff"
	CodeDuplicateHandoff     = "duplicate-handoff"
	CodeHandoffTypeMismatch  = "handoff-type-mismatch"
	CodeInvalidToolName      = "invalid-tool-name"
	CodeDuplicateTool        = "duplicate-tool"
	CodeMissingDescription   = "missing-description"
	CodeMissingSignature     = "missing-signature"
	CodeInvalidSignature     = "invalid-signature"
	CodeReversedArrow        = "reversed-arrow"
	CodeMissingReturnType    = "missing-return-type"
	CodeUnnamedParameter     = "unnamed-parameter"
	CodeEmptyParameter       = "empty-parameter"
	CodeContradictoryBounds  = "contradictory-bounds"
	CodeDefaultOutOfBounds   = "default-out-of-bounds"
	CodeMissingType          = "missing-type"
	CodeMultipleTypes        = "multiple-types"
	CodeUnknownType          = "unknown-type"
	CodeDuplicateParameter   = "duplicate-parameter"
	CodeDefaultTypeMismatch  = "default-type-mismatch"
	CodeEnumTypeMismatch     = "enum-type-mismatch"
	CodeInvalidDefault       = "invalid-default"
	CodeInvalidRecordName    = "invalid-record-name"
	CodeInvalidRecordField   = "invalid-record-field"
	CodeDuplicateField       = "duplicate-field"
	CodeRecordCycle          = "record-cycle"
	CodeUnusedTool           = "unused-tool"
	CodeInvalidApproval      = "invalid-approval"
	CodeInvalidBudget        = "invalid-budget"

	// Codes of text that costs tokens and tells the model nothing new.
	CodeDescriptionRepeatsName = "description-repeats-name"
	CodeDefaultInDescription   = "default-in-description"
	CodeDuplicateRecordShape   = "duplicate-record-shape"

	// Codes of the older notation of tools (see [LegacyCodes]).
	CodeLegacyToolLabel     = "legacy-tool-label"
	CodeLegacyParameter     = "legacy-parameter"
	CodeMixedParameterForms = "mixed-parameter-forms"

	// Codes of test declarations.
	CodeUnknownAgent         = "unknown-agent"
	CodeUnknownTool          = "unknown-tool"
	CodeToolNotAvailable     = "tool-not-available"
	CodeUnknownArgument      = "unknown-argument"
	CodeInvalidArgumentValue = "invalid-argument-value"
	CodeMatcherTypeMismatch  = "matcher-type-mismatch"
	CodeInvalidTestElement   = "invalid-test-element"
	CodeMissingTestProperty  = "missing-test-property"
	CodeEmptyTest            = "empty-test"
	CodeAgentNotReached      = "agent-not-reached"
	CodeUnknownHandoff       = "unknown-handoff"
	CodeUntypedAnswer        = "untyped-answer"
	CodeUnknownAnswerField   = "unknown-answer-field"
	CodeDecisionNoApproval   = "decision-without-approval"

	// Codes of targets (see [Targets]): what a provider's API cannot
	// express, or loses, of a tool declaration.
	CodeTargetUnsupported = "target-unsupported"
	CodeTargetLossy       = "target-lossy"
	CodeTargetName        = "target-name"
	CodeTargetLimit       = "target-limit"
	// CodeToolTokenBudget is reported by [CheckToolTokens], which package
	// project runs after every compile: an agent's tool definitions over
	// its maxToolTokens.
	CodeToolTokenBudget = "tool-token-budget"
)

// Codes lists every code [Compile] reports, with its severity and a summary.
var Codes = []diag.CodeInfo{
	{Code: CodeMissingInstruction, Severity: diag.Error, Summary: "An agent needs a non-empty instruction (its system prompt)."},
	{Code: CodeMissingModel, Severity: diag.Error, Summary: "An agent needs a model, written \"Provider/model-id\"."},
	{Code: CodeInvalidModel, Severity: diag.Error, Summary: "A model is written \"Provider/model-id\"."},
	{Code: CodeUnknownProvider, Severity: diag.Error, Summary: "The model's provider is not OpenAI, Ollama, OpenAICompatible, Anthropic or Gemini."},
	{Code: CodeUnknownProperty, Severity: diag.Warning, Summary: "A property that the agent language does not know; it is ignored (in a test, an error)."},
	{Code: CodeInvalidPropertyValue, Severity: diag.Error, Summary: "A property's value has the wrong type or is out of range."},
	{Code: CodeInapplicableProperty, Severity: diag.Warning, Summary: "A property that does not apply to this type or place; it is ignored."},
	{Code: CodeMissingName, Severity: diag.Error, Summary: "An agent or record needs a name."},
	{Code: CodeInvalidAgentName, Severity: diag.Warning, Summary: "An agent's name is not a valid tool name (^[a-zA-Z0-9_-]{1,64}$), which it is when composed or served by gramc mcp serve."},
	{Code: CodeConflictingLabels, Severity: diag.Error, Summary: "A pattern can be only one of Agent, Tool and Record."},
	{Code: CodeMiscasedLabel, Severity: diag.Warning, Summary: "A label that is Agent, Tool, Record, Test or Handoff but for case, so that the pattern is plain gram."},
	{Code: CodeInvalidAgentElement, Severity: diag.Error, Summary: "An agent's elements must be tools (inline Tool patterns or references to them), agents listed by name, or its signature."},
	{Code: CodeInvalidToolName, Severity: diag.Error, Summary: "A tool name must match ^[a-zA-Z0-9_-]{1,64}$."},
	{Code: CodeDuplicateTool, Severity: diag.Error, Summary: "A tool name is used twice in an agent or defined twice in a file."},
	{Code: CodeMissingDescription, Severity: diag.Error, Summary: "A tool needs a non-empty description."},
	{Code: CodeMissingSignature, Severity: diag.Error, Summary: "A tool needs a signature, such as (name::String)==>(::String)."},
	{Code: CodeInvalidSignature, Severity: diag.Error, Summary: "A tool has exactly one element, its signature path."},
	{Code: CodeReversedArrow, Severity: diag.Error, Summary: "Every arrow of a signature points right."},
	{Code: CodeMissingReturnType, Severity: diag.Error, Summary: "The last node of a signature is the return type, such as (::String)."},
	{Code: CodeUnnamedParameter, Severity: diag.Warning, Summary: "A parameter written with a type and no name, (::Text), is named after its type (text); naming it says what it holds."},
	{Code: CodeEmptyParameter, Severity: diag.Error, Summary: "A parameter node needs a name and a type; () means no parameters only as the sole parameter."},
	{Code: CodeMissingType, Severity: diag.Error, Summary: "A parameter or field needs a type label."},
	{Code: CodeMultipleTypes, Severity: diag.Error, Summary: "A parameter or field has exactly one type label."},
	{Code: CodeUnknownType, Severity: diag.Error, Summary: "A type that is neither built in nor a record of the file."},
	{Code: CodeDuplicateParameter, Severity: diag.Error, Summary: "Two parameters of a tool have the same name."},
	{Code: CodeDefaultTypeMismatch, Severity: diag.Error, Summary: "A default value does not match the parameter's type."},
	{Code: CodeEnumTypeMismatch, Severity: diag.Error, Summary: "An enum member does not match the parameter's type."},
	{Code: CodeInvalidDefault, Severity: diag.Error, Summary: "A default value is not one of the enum's members."},
	{Code: CodeContradictoryBounds, Severity: diag.Error, Summary: "A lower bound (minimum, minLength, minItems) is above its upper bound, so no value is allowed."},
	{Code: CodeDefaultOutOfBounds, Severity: diag.Error, Summary: "A default value is outside its parameter's own bounds or does not match its pattern."},
	{Code: CodeInvalidRecordName, Severity: diag.Error, Summary: "A record cannot be named like a built-in type."},
	{Code: CodeInvalidRecordField, Severity: diag.Error, Summary: "A record's elements must be field nodes, such as (id::Integer)."},
	{Code: CodeDuplicateField, Severity: diag.Error, Summary: "Two fields of a record have the same name."},
	{Code: CodeInvalidApproval, Severity: diag.Error, Summary: "The approval of a tool or an agent is true or false; a handoff cannot ask for approval."},
	{Code: CodeInvalidBudget, Severity: diag.Error, Summary: "A budget of an agent (maxToolCalls, maxTotalTokens, maxCostUSD) is not a positive number of its kind."},
	{Code: CodeRecordCycle, Severity: diag.Error, Summary: "A record contains itself, directly or through other records."},
	{Code: CodeDuplicateSignature, Severity: diag.Error, Summary: "An agent with more than one signature element."},
	{Code: CodeInjectedAgentParam, Severity: diag.Error, Summary: "An injected parameter in an agent's signature: the calling model cannot supply it."},
	{Code: CodeAgentToolDescription, Severity: diag.Warning, Summary: "An agent listed as another agent's tool without a description for the calling model."},
	{Code: CodeAgentCycle, Severity: diag.Error, Summary: "Agents that list each other as tools, directly or through others."},
	{Code: CodeInvalidHandoff, Severity: diag.Error, Summary: "A Handoff relationship that is not from an agent to another agent, pointing one way, or whose tool name an agent's tool already has."},
	{Code: CodeDuplicateHandoff, Severity: diag.Warning, Summary: "The same handoff declared twice."},
	{Code: CodeHandoffTypeMismatch, Severity: diag.Warning, Summary: "A handoff from an agent with a result type to an agent whose answer is free text or of another type."},
	{Code: CodeUnusedTool, Severity: diag.Warning, Summary: "A top-level tool that no agent uses."},
	{Code: CodeDescriptionRepeatsName, Severity: diag.Warning, Summary: "A tool's or parameter's description that only repeats its name: tokens that tell the model nothing."},
	{Code: CodeDefaultInDescription, Severity: diag.Warning, Summary: "A parameter's description that restates its default, which the schema sends already."},
	{Code: CodeDuplicateRecordShape, Severity: diag.Warning, Summary: "Two records with the same fields (names, types and optionality): one record can serve both."},
	{Code: CodeLegacyToolLabel, Severity: diag.Info, Summary: "The older label ToolSpecification, read as Tool."},
	{Code: CodeLegacyParameter, Severity: diag.Info, Summary: "A parameter in the older notation, (::Text {paramName: \"name\"}) or with a fields list, read as its canonical form (name::Text) or a record."},
	{Code: CodeMixedParameterForms, Severity: diag.Error, Summary: "A parameter named both before its type and by paramName."},
	{Code: CodeUnknownAgent, Severity: diag.Error, Summary: "A test or rubric names an agent that is not defined."},
	{Code: CodeUnknownTool, Severity: diag.Error, Summary: "A test expects a call of a tool that is not declared."},
	{Code: CodeToolNotAvailable, Severity: diag.Error, Summary: "A test expects a call of a tool that the agent does not list, so it can never be called."},
	{Code: CodeUnknownArgument, Severity: diag.Error, Summary: "A test matches an argument or field the tool does not have, or an injected one."},
	{Code: CodeInvalidArgumentValue, Severity: diag.Error, Summary: "A test expects an argument value that the tool's schema does not allow."},
	{Code: CodeMatcherTypeMismatch, Severity: diag.Error, Summary: "An argument matcher does not apply to the argument's type (matches on a number, range on a string)."},
	{Code: CodeInvalidTestElement, Severity: diag.Error, Summary: "A test's elements are User turns and Call, NoCall, Answer, Rubric and Handoff expectations."},
	{Code: CodeMissingTestProperty, Severity: diag.Error, Summary: "A test or one of its elements lacks a property it needs (agent, says, tool, judge, criterion, a matcher)."},
	{Code: CodeEmptyTest, Severity: diag.Error, Summary: "A test has no user turn."},
	{Code: CodeAgentNotReached, Severity: diag.Error, Summary: "A test expects a call of an agent that the tested agent does not reach, as a tool, through others or by a handoff."},
	{Code: CodeUnknownHandoff, Severity: diag.Error, Summary: "A test expects a handoff that neither the tested agent nor an agent it hands to declares."},
	{Code: CodeDecisionNoApproval, Severity: diag.Error, Summary: "A test decides on calls of a tool that runs without approval, so no call of it ever waits for a decision."},
	{Code: CodeUntypedAnswer, Severity: diag.Error, Summary: "A test matches fields of the answer of an agent whose answer is free text."},
	{Code: CodeUnknownAnswerField, Severity: diag.Error, Summary: "A test matches a field that the result type of the agent's answer does not have."},
	{Code: CodeTargetUnsupported, Severity: diag.Error, Summary: "A construct the target's API cannot express, such as an Object of any shape where objects must list their properties (reported with --target)."},
	{Code: CodeTargetLossy, Severity: diag.Warning, Summary: "A keyword the target's API does not know, dropped from its schema and said in the description instead: the model is no longer held to it (reported with --target)."},
	{Code: CodeTargetName, Severity: diag.Error, Summary: "A tool or parameter name the target's API refuses (reported with --target)."},
	{Code: CodeTargetLimit, Severity: diag.Error, Summary: "More tools, nesting, properties or enum values than the target's API allows in a request (reported with --target)."},
	{Code: CodeToolTokenBudget, Severity: diag.Error, Summary: "An agent's tool definitions take more tokens for its model than its maxToolTokens (gramc cost gives the counts)."},
}

// restates lists the compiler codes that restate a deferred
// duplicate-definition error (see [parser.Document.Deferred]) at the same
// span: the compiler's diagnostic says the same thing in the agent
// language's terms (an agent declared after a handoff that names it, for
// invalid-handoff).
var restates = map[string]bool{CodeDuplicateParameter: true, CodeDuplicateField: true, CodeDuplicateTool: true, CodeInvalidHandoff: true}

// reads lists the compiler codes whose related spans are fields lists of
// the older notation that the compiler reads, maps and all: a map inside
// such an array is a field, not a deferred nested-map error.
var reads = map[string]bool{CodeLegacyParameter: true, CodeMixedParameterForms: true}

// deferred returns the parser's deferred errors that compiled, the
// compiler's diagnostics of the file, do not restate: the compiler reports
// each deferred error once, in its own terms where it has them (see
// [parser.Document.Deferred]).
func deferred(doc *parser.Document, compiled diag.List) diag.List {
	errs := doc.Deferred()
	if len(errs) == 0 {
		return nil
	}
	restated := map[diag.Span]bool{}
	var read []diag.Span
	for _, d := range compiled {
		if restates[d.Code] {
			restated[d.Span] = true
		}
		if reads[d.Code] {
			for _, r := range d.Related {
				read = append(read, r.Span)
			}
		}
	}
	out := make(diag.List, 0, len(errs))
	for _, d := range errs {
		inside := func(s diag.Span) bool { return s.Start <= d.Span.Start && d.Span.End <= s.End }
		switch {
		case d.Code == parser.CodeDuplicateDefinition && restated[d.Span]:
		case d.Code == parser.CodeNestedMap && slices.ContainsFunc(read, inside):
		default:
			out = append(out, d)
		}
	}
	return out
}

// Merge returns the parser's and the compiler's diagnostics of one file as
// one sorted list without duplicates. Each layer reports what it owns: the
// errors of gram notation that the agent language restates or reads
// otherwise are the compiler's to report (see [parser.Document.Deferred]),
// so nothing of one list replaces anything of the other.
func Merge(parsed, compiled diag.List) diag.List {
	return append(append(make(diag.List, 0, len(parsed)+len(compiled)), parsed...), compiled...).Dedup()
}

// detailed returns d with detail as its Detail and related as its related
// locations: the remedy and the other places of a diagnostic made in one
// expression.
func detailed(d diag.Diagnostic, detail string, related ...diag.Related) diag.Diagnostic {
	d.Detail, d.Related = detail, related
	return d
}
