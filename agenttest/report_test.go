package agenttest

import (
	"bytes"
	"strings"
	"testing"
)

// TestJUnitSuiteTimeIsSumOfCases checks that a suite's time is the sum of
// its cases' times as they are written, rounded to milliseconds.
func TestJUnitSuiteTimeIsSumOfCases(t *testing.T) {
	var results []Result
	for _, name := range []string{"a", "b", "c"} {
		results = append(results, Result{File: "f_test.gram", Test: name, Status: Pass, Seconds: 0.0006})
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, `time="0.001"`); n != 3 {
		t.Errorf("%d cases of time 0.001, want 3:\n%s", n, out)
	}
	if !strings.Contains(out, `<testsuite name="f_test.gram" tests="3" failures="0" errors="0" skipped="0" time="0.003"`) {
		t.Errorf("the suite's time is not the sum of its cases' times, 0.003:\n%s", out)
	}
}

// TestJUnitSuiteTimeAddsWrittenTimes checks a suite whose last case's time
// rounds up: 0.002 and 0.0035 s are written 0.002 and 0.004, so the
// suite's time is 0.006, not 0.0055 rounded (0.005 or 0.006 as the float
// falls).
func TestJUnitSuiteTimeAddsWrittenTimes(t *testing.T) {
	results := []Result{
		{File: "f_test.gram", Test: "a", Status: Pass, Seconds: 0.002},
		{File: "f_test.gram", Test: "b", Status: Pass, Seconds: 0.0035},
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, `time="0.002"`) || !strings.Contains(out, `name="b" classname="f_test.gram" time="0.004"`) {
		t.Fatalf("the cases' times are not 0.002 and 0.004:\n%s", out)
	}
	if !strings.Contains(out, `<testsuite name="f_test.gram" tests="2" failures="0" errors="0" skipped="0" time="0.006"`) {
		t.Errorf("the suite's time is not the sum of its cases' times, 0.006:\n%s", out)
	}
}

// TestRunsTextPercentAsGiven checks that the share of runs a test needs
// is written as the percentage given, not as the float product of the
// rate and 100.
func TestRunsTextPercentAsGiven(t *testing.T) {
	for rate, want := range map[float64]string{0.333: "33.3%", 0.75: "75%", 0.07: "7%", 1: "100%", 0.123456789: "12.3456789%"} {
		got := runsText(Result{Runs: 3, Passed: 1, PassRate: rate})
		if !strings.Contains(got, ", "+want+" needed)") {
			t.Errorf("pass rate %v: %q, want %s needed", rate, got, want)
		}
	}
}
