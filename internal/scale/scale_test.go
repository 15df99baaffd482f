package scale

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestRatioAndFailures(t *testing.T) {
	ms := time.Millisecond
	rows := []Row{
		{Case: "linear", Input: "clean", Sizes: []int{1, 8}, Samples: []Sample{{Wall: 10 * ms, CPU: 10 * ms}, {Wall: 200 * ms, CPU: 80 * ms}}},
		{Case: "quadratic", Input: "broken", Sizes: []int{1, 8}, Samples: []Sample{{Wall: 10 * ms}, {Wall: 640 * ms}}},
		{Case: "timeout", Input: "broken", Sizes: []int{1, 8}, Samples: []Sample{{Wall: 10 * ms}, {Wall: -1}}},
		{Case: "failed", Input: "clean", Sizes: []int{1, 8}, Samples: []Sample{{Wall: 10 * ms}, {Wall: 20 * ms}}, Err: errors.New("boom")},
	}
	if r := rows[0].Ratio(); r != 8 {
		t.Errorf("ratio from CPU times = %v, want 8", r)
	}
	if r := rows[1].Ratio(); r != 64 {
		t.Errorf("ratio from wall times = %v, want 64", r)
	}
	if r := rows[2].Ratio(); !math.IsInf(r, 1) {
		t.Errorf("ratio with a timeout = %v, want +Inf", r)
	}
	var names []string
	for _, r := range Failures(rows, 10) {
		names = append(names, r.Case)
	}
	if got := strings.Join(names, " "); got != "quadratic timeout failed" {
		t.Errorf("failures %q", got)
	}
	var b strings.Builder
	if err := WriteTable(&b, rows, time.Minute); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "case") || !strings.HasSuffix(lines[0], "2n/n") {
		t.Fatalf("table:\n%s", b.String())
	}
	for _, want := range []string{"10ms/10ms 0MB", "200ms/80ms", "8.0", ">1m0s", "+Inf", "error: boom"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRunMeasuresEverySize(t *testing.T) {
	calls := map[int]int{}
	c := Func("count", func(input []byte) (func() error, error) {
		return func() error { calls[len(input)]++; return nil }, nil
	})
	in := Input{"fixed", func(size int) []byte { return make([]byte, size) }}
	rows, err := Run([]Case{c}, []Input{in}, Options{Base: 100, Steps: 4, Runs: 2, Timeout: time.Minute, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || len(rows[0].Samples) != 4 {
		t.Fatalf("rows %+v", rows)
	}
	for _, n := range []int{100, 200, 400, 800} {
		if calls[n] != 2 {
			t.Errorf("size %d measured %d times, want 2", n, calls[n])
		}
	}
}
