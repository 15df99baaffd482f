// Reports of test results: text for people, JSON for programs, JUnit XML
// for CI dashboards, and TAP.

package agenttest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
)

// Summary counts results and sums their usage and cost.
// Its exported counts, usage and cost are the sums of the JSON report.
type Summary struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// Usage is the tokens of all the tests' model calls.
	Usage runtime.Usage `json:"usage"`
	// CostUSD is their cost in US dollars, nil when a test's is unknown;
	// KnownUSD is the sum of the costs that are known, and Unpriced the
	// number of tests whose cost is unknown.
	CostUSD  *float64 `json:"costUSD"`
	KnownUSD float64  `json:"-"`
	Unpriced int      `json:"-"`
}

// Summarize counts the results by status and sums their usage and cost.
func Summarize(results []Result) Summary {
	var s Summary
	for _, r := range results {
		s.Usage.Add(r.Usage)
		if r.CostUSD != nil {
			s.KnownUSD += *r.CostUSD
		} else {
			s.Unpriced++
		}
		switch r.Status {
		case Pass:
			s.Passed++
		case Fail:
			s.Failed++
		default:
			s.Errors++
		}
	}
	s.KnownUSD = roundUSD(s.KnownUSD)
	if s.Unpriced == 0 {
		c := s.KnownUSD
		s.CostUSD = &c
	}
	return s
}

// usageText writes the tokens of usage and their cost: "60 tokens (40
// prompt, 20 completion), $0.000018", the cost "unknown" when it is nil.
func usageText(u runtime.Usage, cost *float64) string {
	c := "cost unknown"
	if cost != nil {
		c = dollars(*cost)
	}
	return tokensText(u) + ", " + c
}

// tokensText writes the tokens of usage: "60 tokens (40 prompt, 20
// completion)".
func tokensText(u runtime.Usage) string {
	return fmt.Sprintf("%d tokens (%d prompt, %d completion)", u.TotalTokens, u.PromptTokens, u.CompletionTokens)
}

// suiteUsage writes the line of a summary's usage and cost.
func suiteUsage(s Summary) string {
	return "usage: " + tokensText(s.Usage) + ", cost " + costText(s) + "\n"
}

// dollars writes a cost in US dollars, as precisely as it is known.
func dollars(usd float64) string {
	return "$" + strconv.FormatFloat(usd, 'f', -1, 64)
}

// costText writes the cost of a summary, "unknown" or an "at least" sum
// when some tests' prices are unknown.
func costText(s Summary) string {
	switch {
	case s.CostUSD != nil:
		return dollars(*s.CostUSD)
	case s.KnownUSD > 0:
		return fmt.Sprintf("at least %s (%d %s of unknown price)", dollars(s.KnownUSD), s.Unpriced, gramtext.Plural(s.Unpriced, "test", "tests"))
	}
	return "unknown"
}

// runsText says how many runs passed, when there were several, and the
// share needed as a percentage rounded to nine decimals, as it was given
// (--pass-rate 0.333 is 33.3%, not the float product 33.300000000000004%).
func runsText(r Result) string {
	if r.Runs <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d/%d runs passed, %s%% needed)", r.Passed, r.Runs, strconv.FormatFloat(math.Round(r.PassRate*1e11)/1e9, 'f', -1, 64))
}

// Explain writes the failures of a result (or its error) as indented text:
// each failure's message and diff, then what the agent did.
func Explain(r Result) string {
	if r.Error != "" {
		return fmt.Sprintf("    error: %s\n", r.Error)
	}
	var b strings.Builder
	for _, f := range r.Failures {
		where := ""
		if f.Turn > 0 {
			where = fmt.Sprintf("turn %d: ", f.Turn)
		}
		fmt.Fprintf(&b, "    %s%s\n", where, f.Message)
		if f.Diff != "" {
			b.WriteString(prefixLines("        ", f.Diff))
			b.WriteString("\n")
		}
	}
	if r.CassetteNote != "" {
		fmt.Fprintf(&b, "    %s\n", r.CassetteNote)
	}
	return b.String()
}

// WriteText writes one line per test (ok, FAIL or ERROR with the file, the
// test, the source of the answers and the time), the failures of each
// failed test with their diffs, a closing line "N passed, N failed" and,
// when a test ran against the model (live or recorded), a line with the
// suite's usage and cost: what the run spent. (A replayed test spent
// nothing; the other reports give the usage its cassette recorded.)
func WriteText(w io.Writer, results []Result) error {
	var b strings.Builder
	for _, r := range results {
		label := map[Status]string{Pass: "ok   ", Fail: "FAIL ", Error: "ERROR"}[r.Status]
		fmt.Fprintf(&b, "%s %s: %s [%s]%s\n", label, r.File, r.Test, r.Source, runsText(r))
		if r.Status != Pass {
			b.WriteString(Explain(r))
		}
	}
	s := Summarize(results)
	fmt.Fprintf(&b, "%d passed, %d failed", s.Passed, s.Failed+s.Errors)
	if s.Errors > 0 {
		fmt.Fprintf(&b, " (%d could not run)", s.Errors)
	}
	b.WriteString("\n")
	if slices.ContainsFunc(results, func(r Result) bool { return r.Source == "live" || r.Source == "record" }) {
		b.WriteString(suiteUsage(s))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the results as one JSON object: "tests" (each a
// [Result]), the counts "passed", "failed" and "errors", and the sums of
// the tests' "usage" and "costUSD" (null when a test's is unknown).
func WriteJSON(w io.Writer, results []Result) error {
	s := Summarize(results)
	if results == nil {
		results = []Result{}
	}
	return jsonvalue.WriteIndented(w, struct {
		Tests []Result `json:"tests"`
		Summary
	}{results, s})
}

// JUnit XML, in the shape of the JUnit schema that CI servers read:
// testsuites holding one testsuite per file, holding one testcase per test,
// with a failure or error element when it did not pass.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
		results    []Result        // the suite's, for its counts and properties
		seconds    float64         // the sum of its cases' times, as written
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// seconds writes a duration in seconds for JUnit.
func seconds(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// WriteJUnit writes the results as JUnit XML: a testsuite per file, a
// testcase per test (classname the file, name the test), failures with
// their diffs as text.
func WriteJUnit(w io.Writer, results []Result) error {
	all := Summarize(results)
	root := junitSuites{Name: "gramc test", Tests: len(results), Failures: all.Failed, Errors: all.Errors}
	var total float64
	for _, r := range results {
		i := slices.IndexFunc(root.Suites, func(s junitSuite) bool { return s.Name == r.File })
		if i < 0 {
			i = len(root.Suites)
			root.Suites = append(root.Suites, junitSuite{Name: r.File})
		}
		s := &root.Suites[i]
		c := junitCase{Name: r.Test, ClassName: r.File, Time: seconds(r.Seconds)}
		switch r.Status {
		case Fail:
			msg := "failed"
			if len(r.Failures) > 0 {
				msg = r.Failures[0].Message
			}
			c.Failure = &junitProblem{Message: msg + runsText(r), Type: "failure", Text: Explain(r)}
		case Error:
			c.Error = &junitProblem{Message: r.Error, Type: "error", Text: Explain(r)}
		}
		if r.Source != "" {
			c.SystemOut = "answers from: " + r.Source + runsText(r) + "; "
		}
		c.SystemOut += "usage: " + usageText(r.Usage, r.CostUSD)
		s.results = append(s.results, r)
		written, _ := strconv.ParseFloat(c.Time, 64)
		s.seconds += written
		s.Time = seconds(s.seconds)
		total += r.Seconds
		s.Cases = append(s.Cases, c)
	}
	root.Time = seconds(total)
	for i := range root.Suites {
		s := &root.Suites[i]
		sum := Summarize(s.results)
		s.Tests, s.Failures, s.Errors, s.Properties = len(s.results), sum.Failed, sum.Errors, junitUsage(sum)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitUsage is the properties of a suite: the sums of its tests' usage
// (gram.usage.promptTokens, completionTokens, totalTokens) and cost
// (gram.costUSD, "unknown" when a test's is).
func junitUsage(s Summary) []junitProperty {
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []junitProperty{
		{"gram.usage.promptTokens", n(s.Usage.PromptTokens)},
		{"gram.usage.completionTokens", n(s.Usage.CompletionTokens)},
		{"gram.usage.totalTokens", n(s.Usage.TotalTokens)},
		{"gram.costUSD", costOr(s.CostUSD, "unknown")},
	}
}

// WriteTAP writes the results in the Test Anything Protocol, version 14: a
// plan, then "ok N - FILE: TEST" or "not ok N - ..." with a YAML block of
// the failures.
func WriteTAP(w io.Writer, results []Result) error {
	var b strings.Builder
	b.WriteString("TAP version 14\n")
	fmt.Fprintf(&b, "1..%d\n", len(results))
	for i, r := range results {
		if r.Status == Pass {
			fmt.Fprintf(&b, "ok %d - %s: %s\n", i+1, r.File, r.Test)
			continue
		}
		fmt.Fprintf(&b, "not ok %d - %s: %s\n", i+1, r.File, r.Test)
		b.WriteString("  ---\n")
		fmt.Fprintf(&b, "  status: %s\n", r.Status)
		if r.Runs > 1 {
			fmt.Fprintf(&b, "  runs: %d\n  passed: %d\n", r.Runs, r.Passed)
		}
		fmt.Fprintf(&b, "  usage: {promptTokens: %d, completionTokens: %d, totalTokens: %d}\n  costUSD: %s\n",
			r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.TotalTokens, costOr(r.CostUSD, "null"))
		if r.Error != "" {
			fmt.Fprintf(&b, "  message: %s\n", yamlString(r.Error))
		}
		if len(r.Failures) > 0 {
			b.WriteString("  failures:\n")
			for _, f := range r.Failures {
				fmt.Fprintf(&b, "    - turn: %d\n      kind: %s\n      message: %s\n", f.Turn, f.Kind, yamlString(f.Message))
				if f.Diff != "" {
					b.WriteString("      diff: |\n")
					b.WriteString(prefixLines("        ", f.Diff))
					b.WriteString("\n")
				}
			}
		}
		b.WriteString("  ...\n")
	}
	b.WriteString("# " + suiteUsage(Summarize(results)))
	_, err := io.WriteString(w, b.String())
	return err
}

// costOr writes a cost in US dollars as a number, or unknown when it is
// nil.
func costOr(c *float64, unknown string) string {
	if c == nil {
		return unknown
	}
	return strconv.FormatFloat(*c, 'f', -1, 64)
}

// yamlString quotes a string for YAML as a JSON string, which YAML reads.
func yamlString(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// Formats are the report formats [Write] writes.
var Formats = []string{"text", "json", "junit", "tap"}

// Write writes the results in the format named, one of [Formats]: see
// [WriteJSON], [WriteJUnit], [WriteTAP] and, for any other, [WriteText].
func Write(w io.Writer, format string, results []Result) error {
	switch format {
	case "json":
		return WriteJSON(w, results)
	case "junit":
		return WriteJUnit(w, results)
	case "tap":
		return WriteTAP(w, results)
	}
	return WriteText(w, results)
}
