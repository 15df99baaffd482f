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
