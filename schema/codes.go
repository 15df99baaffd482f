// The catalogue of diagnostic codes the compiler reports, and the merging of
// parser and compiler diagnostics.

package schema

import (
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
	CodeConflictingLabels    = "conflicting-labels"
	CodeInvalidAgentElement  = "invalid-agent-element"
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

	// Codes of targets (see [Targets]): what a provider's API cannot
	// express, or loses, of a tool declaration.
	CodeTargetUnsupported = "target-unsupported"
	CodeTargetLossy       = "target-lossy"
	CodeTargetName        = "target-name"
	CodeTargetLimit       = "target-limit"
)

// CodeInfo describes a diagnostic code.
type CodeInfo struct {
	Code     string
	Severity diag.Severity
	// Summary says in a few words what the code is about.
	Summary string
}

// Codes lists every code [Compile] reports, with its severity and a summary.
var Codes = []CodeInfo{
	{CodeMissingInstruction, diag.Error, "An agent needs a non-empty instruction (its system prompt)."},
	{CodeMissingModel, diag.Error, "An agent needs a model, written \"Provider/model-id\"."},
	{CodeInvalidModel, diag.Error, "A model is written \"Provider/model-id\"."},
	{CodeUnknownProvider, diag.Error, "The model's provider is not OpenAI, Ollama or OpenAICompatible."},
	{CodeUnknownProperty, diag.Warning, "A property that the agent language does not know; it is ignored (in a test, an error)."},
	{CodeInvalidPropertyValue, diag.Error, "A property's value has the wrong type or is out of range."},
	{CodeInapplicableProperty, diag.Warning, "A property that does not apply to this type or place; it is ignored."},
	{CodeMissingName, diag.Error, "An agent or record needs a name."},
	{CodeConflictingLabels, diag.Error, "A pattern can be only one of Agent, Tool and Record."},
	{CodeInvalidAgentElement, diag.Error, "An agent's elements must be tools: inline Tool patterns or references to them."},
	{CodeInvalidToolName, diag.Error, "A tool name must match ^[a-zA-Z0-9_-]{1,64}$."},
	{CodeDuplicateTool, diag.Error, "A tool name is used twice in an agent or defined twice in a file."},
	{CodeMissingDescription, diag.Error, "A tool needs a non-empty description."},
	{CodeMissingSignature, diag.Error, "A tool needs a signature, such as (name::String)==>(::String)."},
	{CodeInvalidSignature, diag.Error, "A tool has exactly one element, its signature path."},
	{CodeReversedArrow, diag.Error, "Every arrow of a signature points right."},
	{CodeMissingReturnType, diag.Error, "The last node of a signature is the return type, such as (::String)."},
	{CodeUnnamedParameter, diag.Warning, "A parameter written with a type and no name, (::Text), is named after its type (text); naming it says what it holds."},
	{CodeEmptyParameter, diag.Error, "A parameter node needs a name and a type; () means no parameters only as the sole parameter."},
	{CodeMissingType, diag.Error, "A parameter or field needs a type label."},
	{CodeMultipleTypes, diag.Error, "A parameter or field has exactly one type label."},
	{CodeUnknownType, diag.Error, "A type that is neither built in nor a record of the file."},
	{CodeDuplicateParameter, diag.Error, "Two parameters of a tool have the same name."},
	{CodeDefaultTypeMismatch, diag.Error, "A default value does not match the parameter's type."},
	{CodeEnumTypeMismatch, diag.Error, "An enum member does not match the parameter's type."},
	{CodeInvalidDefault, diag.Error, "A default value is not one of the enum's members."},
	{CodeContradictoryBounds, diag.Error, "A lower bound (minimum, minLength, minItems) is above its upper bound, so no value is allowed."},
	{CodeDefaultOutOfBounds, diag.Error, "A default value is outside its parameter's own bounds or does not match its pattern."},
	{CodeInvalidRecordName, diag.Error, "A record cannot be named like a built-in type."},
	{CodeInvalidRecordField, diag.Error, "A record's elements must be field nodes, such as (id::Integer)."},
	{CodeDuplicateField, diag.Error, "Two fields of a record have the same name."},
	{CodeRecordCycle, diag.Error, "A record contains itself, directly or through other records."},
	{CodeUnusedTool, diag.Warning, "A top-level tool that no agent uses."},
	{CodeLegacyToolLabel, diag.Info, "The older label ToolSpecification, read as Tool."},
	{CodeLegacyParameter, diag.Info, "A parameter in the older notation, (::Text {paramName: \"name\"}) or with a fields list, read as its canonical form (name::Text) or a record."},
	{CodeMixedParameterForms, diag.Error, "A parameter named both before its type and by paramName."},
	{CodeUnknownAgent, diag.Error, "A test or rubric names an agent that is not defined."},
	{CodeUnknownTool, diag.Error, "A test expects a call of a tool that is not declared."},
	{CodeToolNotAvailable, diag.Error, "A test expects a call of a tool that the agent does not list, so it can never be called."},
	{CodeUnknownArgument, diag.Error, "A test matches an argument or field the tool does not have, or an injected one."},
	{CodeInvalidArgumentValue, diag.Error, "A test expects an argument value that the tool's schema does not allow."},
	{CodeMatcherTypeMismatch, diag.Error, "An argument matcher does not apply to the argument's type (matches on a number, range on a string)."},
	{CodeInvalidTestElement, diag.Error, "A test's elements are User turns and Call, NoCall, Answer and Rubric expectations."},
	{CodeMissingTestProperty, diag.Error, "A test or one of its elements lacks a property it needs (agent, says, tool, judge, criterion, a matcher)."},
	{CodeEmptyTest, diag.Error, "A test has no user turn."},
	{CodeTargetUnsupported, diag.Error, "A construct the target's API cannot express, such as an Object of any shape where objects must list their properties (reported with --target)."},
	{CodeTargetLossy, diag.Warning, "A keyword the target's API does not know, dropped from its schema and said in the description instead: the model is no longer held to it (reported with --target)."},
	{CodeTargetName, diag.Error, "A tool or parameter name the target's API refuses (reported with --target)."},
	{CodeTargetLimit, diag.Error, "More tools, nesting, properties or enum values than the target's API allows in a request (reported with --target)."},
}

// CodeSummary returns the summary of a code from [Codes], or "".
func CodeSummary(code string) string {
	for _, c := range Codes {
		if c.Code == code {
			return c.Summary
		}
	}
	return ""
}

// supersedes maps a compiler code to the parser code it replaces at the same
// span: the compiler's diagnostic says the same thing in the agent language's
// terms.
var supersedes = map[string]string{
	CodeDuplicateParameter: "duplicate-definition",
	CodeDuplicateField:     "duplicate-definition",
	CodeDuplicateTool:      "duplicate-definition",
}

// covers maps a compiler code to the parser code it replaces inside the
// diagnostic's related spans: the maps of an older notation fields list are
// not gram notation (a nested-map error) but the compiler reads them.
var covers = map[string]string{
	CodeLegacyParameter:     parser.CodeNestedMap,
	CodeMixedParameterForms: parser.CodeNestedMap,
}

// Merge returns the parser's and the compiler's diagnostics of one file as
// one sorted list without duplicates. A parser diagnostic that a more specific
// compiler diagnostic at the same span replaces (a duplicate-definition of a
// parameter is a duplicate-parameter) is dropped, and so are the nested-map
// errors of the fields lists the compiler reads.
func Merge(parsed, compiled diag.List) diag.List {
	drop := map[diag.Span]map[string]bool{}
	var within []diag.Span // where parser.CodeNestedMap is dropped
	for _, d := range compiled {
		if covers[d.Code] != "" {
			for _, r := range d.Related {
				within = append(within, r.Span)
			}
		}
		if old, ok := supersedes[d.Code]; ok {
			if drop[d.Span] == nil {
				drop[d.Span] = map[string]bool{}
			}
			drop[d.Span][old] = true
		}
	}
	out := make(diag.List, 0, len(parsed)+len(compiled))
	covered := func(d diag.Diagnostic) bool {
		if d.Code != parser.CodeNestedMap {
			return false
		}
		for _, s := range within {
			if s.Start <= d.Span.Start && d.Span.End <= s.End {
				return true
			}
		}
		return false
	}
	for _, d := range parsed {
		if !drop[d.Span][d.Code] && !covered(d) {
			out = append(out, d)
		}
	}
	out = append(out, compiled...)
	return out.Dedup()
}
