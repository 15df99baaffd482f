// Results: the outcome of a test over its runs, what each turn did, and
// the usage and cost of its model calls.

package agenttest

import (
	"errors"
	"math"
	"time"

	"github.com/gramlang/gram/runtime"
)

// Status is the outcome of a test.
type Status string

// The outcomes.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Error: the test could not run (configuration, a missing cassette, a
	// tool that cannot be bound, a model or network failure).
	Error Status = "error"
)

// Result is the outcome of one test over its runs.
type Result struct {
	// File is the test file's path, Test the test's name, Agent the agent's.
	File  string `json:"file"`
	Test  string `json:"test"`
	Agent string `json:"agent"`
	// Status is the outcome.
	Status Status `json:"status"`
	// Source says where the model's answers came from: "replay", "record"
	// or "live".
	Source string `json:"source"`
	// Runs is the number of runs, Passed how many passed, and PassRate the
	// share that had to.
	Runs     int     `json:"runs"`
	Passed   int     `json:"passed"`
	PassRate float64 `json:"passRate"`
	// PassAll says whether every run passed (pass^k), when the test ran
	// more than once; nil when it ran once.
	PassAll *bool `json:"passAll,omitempty"`
	// Usage is the tokens of every model call of every run of the test:
	// the tested agent's, its sub-agents' and handoffs', the fallbacks'
	// and the judges'; a replayed call counts the usage its cassette
	// recorded.
	Usage runtime.Usage `json:"usage"`
	// CostUSD is what those calls cost in US dollars by the price table
	// (see [Runner.Setup]); nil (null) when a model's price is unknown.
	CostUSD *float64 `json:"costUSD"`
	// Failures are those of the first run that did not pass.
	Failures []Failure `json:"failures,omitempty"`
	// Error says why the test could not run (Status Error).
	Error string `json:"error,omitempty"`
	// Cause is the error Error says, for callers that act on its type
	// (such as the kind of a [runtime.ToolError]).
	Cause error `json:"-"`
	// Config is set when the error is one of configuration: a missing API
	// key or cassette, a tool that cannot be bound.
	Config bool `json:"-"`
	// Turns are the turns of the first failing run (or of the first run),
	// as the agent played them.
	Turns []TurnRecord `json:"turns,omitempty"`
	// Cassette is the cassette's path.
	Cassette string `json:"cassette,omitempty"`
	// CassetteNote says what the cassette of a recorded test that ran
	// several times holds when no run passed.
	CassetteNote string `json:"cassetteNote,omitempty"`
	// Seconds is the time of all runs, in seconds.
	Seconds float64 `json:"seconds"`
}

// TurnRecord is what the agent did in a turn.
type TurnRecord struct {
	User   string `json:"user"`
	Calls  []Call `json:"calls"`
	Answer string `json:"answer"`
	// AnsweredBy is the agent that answered when the turn was handed to
	// another than the tested agent.
	AnsweredBy string `json:"answeredBy,omitempty"`
	Status     string `json:"status"`
	// Scores are the rubric scores given by the judges.
	Scores []float64 `json:"scores,omitempty"`
}

// result sums the runs of a test up.
func (r *Runner) result(j Job, source string, runs []runOutcome, d time.Duration) Result {
	res := Result{File: j.Path, Test: j.Test.Name, Agent: j.Test.AgentName, Source: source, Runs: len(runs),
		PassRate: r.passRate(), Seconds: math.Round(d.Seconds()*1000) / 1000}
	if source != "live" {
		res.Cassette = r.CassettePath(j.Path, j.Test.Name)
	}
	res.Turns = runs[0].turns // a test runs at least once
	for _, o := range runs {
		if o.err != nil {
			res.Status, res.Error, res.Cause = Error, o.err.Error(), o.err
			var ce *runtime.ConfigError
			var te *runtime.ToolError
			res.Config = errors.As(o.err, &ce) || errors.As(o.err, &te) || errors.Is(o.err, errNoCassette)
			res.Turns = o.turns
			return res
		}
		if len(o.failures) == 0 {
			res.Passed++
		} else if res.Failures == nil {
			res.Failures, res.Turns = o.failures, o.turns
		}
	}
	if len(runs) > 1 {
		all := res.Passed == len(runs)
		res.PassAll = &all
	}
	// A small tolerance keeps 0.8 of 5 runs (4/5) from failing on
	// rounding.
	if float64(res.Passed)/float64(len(runs))+1e-9 >= res.PassRate {
		res.Status = Pass
	} else {
		res.Status = Fail
	}
	return res
}
