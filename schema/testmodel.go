// The compiled model of agent tests: a Test names an agent and holds turns,
// each a user message followed by the expectations of what the agent does in
// reply (tool calls, calls it must not make, its answer, rubrics for a judge).
// See the package documentation for the notation.

package schema

import (
	"regexp"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
)

// TestLabel and the labels of a test's elements.
const (
	TestLabel   = "Test"
	UserLabel   = "User"
	CallLabel   = "Call"
	NoCallLabel = "NoCall"
	AnswerLabel = "Answer"
	RubricLabel = "Rubric"
	// DecisionLabel labels a test's scripted decision on the calls of an
	// approval tool (see [DecisionScript]).
	DecisionLabel = "Decision"
)

// TestElementLabels lists the labels a test's elements may have.
var TestElementLabels = []string{UserLabel, CallLabel, NoCallLabel, AnswerLabel, RubricLabel, HandoffLabel, DecisionLabel}

// Trajectory says how a turn's expected tool calls are compared with the
// calls the agent made.
type Trajectory string

// The trajectory modes.
const (
	// TrajectoryExact: the agent makes exactly the expected calls, in order,
	// and no others.
	TrajectoryExact Trajectory = "exact"
	// TrajectoryInOrder: the expected calls appear in order among the
	// agent's calls; other calls may come before, between and after them.
	TrajectoryInOrder Trajectory = "inOrder"
	// TrajectoryAnyOrder: each expected call is matched by a different call
	// of the agent, in any order; other calls are allowed.
	TrajectoryAnyOrder Trajectory = "anyOrder"
)

// Trajectories lists the trajectory modes.
var Trajectories = []Trajectory{TrajectoryExact, TrajectoryInOrder, TrajectoryAnyOrder}

// Test is a test of an agent: one or more user turns, each with the
// expectations of the agent's reply.
type Test struct {
	// Name is the test's identity.
	Name string
	// Description is for people.
	Description string
	// AgentName is the agent under test as written; Agent is that agent,
	// nil when it is unknown.
	AgentName string
	Agent     *Agent
	// Trajectory is the comparison of expected and actual tool calls
	// (default [TrajectoryInOrder]).
	Trajectory Trajectory
	// Turns are the user turns in order.
	Turns []*Turn
	// Span is the whole test pattern, NameSpan its identity and AgentSpan
	// the agent property's value.
	Span, NameSpan, AgentSpan diag.Span
}

// Turn is one user message and the expectations of the agent's reply.
type Turn struct {
	// Input is what the user says.
	Input string
	// Status is the status the turn must end with, one of
	// [TurnStatuses]; "" is "completed".
	Status string
	// Calls are the expected tool calls, in the order written.
	Calls []*CallExpectation
	// NoCalls name tools the agent must not call in this turn.
	NoCalls []*NoCall
	// Answers are checks of the agent's final answer.
	Answers []*AnswerCheck
	// Rubrics are judged by a judge agent after the turn.
	Rubrics []*Rubric
	// Handoffs name the agents the turn must be handed to.
	Handoffs []*HandoffExpectation
	// Decisions are the decisions on the calls of approval tools the turn
	// makes, one per tool.
	Decisions []*DecisionScript
	// Span is the User element.
	Span diag.Span
}

// ArgsMode says how a call expectation's arguments are compared.
type ArgsMode int

// The argument modes.
const (
	// ArgsAny: any arguments (only field matchers, if any, apply).
	ArgsAny ArgsMode = iota
	// ArgsExact: the arguments the model sends equal Args exactly (as JSON
	// values); no other argument may be sent, except those that a field
	// matcher names.
	ArgsExact
	// ArgsSubset: every member of Args is sent with an equal value; other
	// arguments may be sent too.
	ArgsSubset
)

// CallExpectation is an expected call of a tool.
type CallExpectation struct {
	// Tool is the tool's name; ToolDecl is its declaration in the agent
	// (nil when unknown or not the agent's).
	Tool     string
	ToolDecl *Tool
	// Agent, when set, names the agent whose calls are expected: one the
	// tested agent reaches (as a tool, through others, or by a handoff),
	// whose calls in nested runs count, at any depth. Empty means the
	// tested agent.
	Agent string
	// Mode says how Args is compared.
	Mode ArgsMode
	// Args are the expected arguments, JSON values as [Object] holds them.
	Args Object
	// Fields are per-argument matchers; they apply in every mode.
	Fields []*FieldMatcher
	// Span is the Call element, ToolSpan the tool property's value.
	Span, ToolSpan diag.Span
}

// MatcherKind is the kind of a [FieldMatcher].
type MatcherKind int

// The matcher kinds.
const (
	// MatchEquals: the value equals Value (as JSON).
	MatchEquals MatcherKind = iota
	// MatchAny: the argument is present, with any value.
	MatchAny
	// MatchRegex: the value is a string matching Regex.
	MatchRegex
	// MatchRange: the value is a number in [Min, Max] (an open end has no
	// bound).
	MatchRange
	// MatchFormat: the value is a string of the named Format.
	MatchFormat
	// MatchAbsent: the argument is not sent.
	MatchAbsent
)

// matcherProps are the matcher kinds as written, by kind: the properties
// of an argument matcher, in the order they are suggested.
var matcherProps = []string{"equals", "any", "matches", "range", "format", "absent"}

// FieldMatcher constrains one argument of a call, or a value inside it.
type FieldMatcher struct {
	// Path is the argument's name followed by the keys and array indexes
	// leading to the value ("items.0.sku" is [items 0 sku]).
	Path []string
	// Type is the declared type of the value at Path (nil when unknown).
	Type *Type
	// Kind is the matcher.
	Kind MatcherKind
	// Value is the expected value of MatchEquals.
	Value any
	// Regex is the expression of MatchRegex.
	Regex *regexp.Regexp
	// Min and Max bound MatchRange; nil is an open end.
	Min, Max *float64
	// Format is the format of MatchFormat (see [ValueFormats]).
	Format string
	// Span is the field node.
	Span diag.Span
}

// Name returns the dotted path, as written.
func (m *FieldMatcher) Name() string { return strings.Join(m.Path, ".") }

// HandoffExpectation expects the turn to be handed to an agent.
type HandoffExpectation struct {
	// To is the agent handed to.
	To string
	// Span is the element, ToSpan the to property's value.
	Span, ToSpan diag.Span
}

// NoCall forbids calls of a tool in a turn.
type NoCall struct {
	Tool string
	// Span is the element, ToolSpan the tool property's value.
	Span, ToolSpan diag.Span
}

// AnswerKind is the kind of an [AnswerCheck].
type AnswerKind int

// The answer checks.
const (
	// AnswerContains: the answer contains Text.
	AnswerContains AnswerKind = iota
	// AnswerMatches: the answer matches Regex.
	AnswerMatches
	// AnswerEquals: the answer equals Text, leading and trailing white
	// space aside.
	AnswerEquals
	// AnswerJSON: the answer is JSON valid against Type.
	AnswerJSON
	// AnswerField: the value at Field's path in the typed answer (the
	// agent's [Agent.Result]) meets Field.
	AnswerField
)

// answerKinds are the answer checks as written, by kind; all but the last
// are the properties of an Answer, in the order they are suggested.
var answerKinds = []string{"contains", "matches", "equals", "json", "field"}

// AnswerCheck is one check of the agent's final answer.
type AnswerCheck struct {
	Kind  AnswerKind
	Text  string
	Regex *regexp.Regexp
	// Type is the type the answer must be JSON of (AnswerJSON).
	Type *Type
	// Field is the matcher of a field of a typed answer (AnswerField).
	Field *FieldMatcher
	// Span is the property's key and value.
	Span diag.Span
}

// Rubric is a criterion a judge agent scores from 0 to 1; the turn passes it
// when the score is at least Threshold.
type Rubric struct {
	// JudgeName is the judge agent as written; Judge is that agent, nil
	// when unknown.
	JudgeName string
	Judge     *Agent
	// Criterion is what the judge checks, in words.
	Criterion string
	// Threshold is the lowest passing score (default [DefaultThreshold]).
	Threshold float64
	// Span is the element, JudgeSpan the judge property's value.
	Span, JudgeSpan diag.Span
}

// DefaultThreshold is a rubric's threshold when none is written.
const DefaultThreshold = 0.7

// ValueFormats lists the formats a `format` matcher knows.
var ValueFormats = []string{"date-time", "date", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"}

// Test returns the test with the given name, or nil.
func (p *Program) Test(name string) *Test {
	return named(slices.All(p.Tests), name, func(t *Test) string { return t.Name })
}
