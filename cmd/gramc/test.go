package main

// gramc test: run the agent tests declared in gram files.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/agenttest"
	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/runtime"
)

// testOptions are the flags of gramc test.
type testOptions struct {
	runOptions
	run            string
	record, replay bool
	repeat         int
	passRate       float64
	parallel       int
	format         string
	cassettes      string
	stream         bool
	maxCost        float64
}

func runTest(e *env, args []string) error {
	fs := newFlags(e, "test")
	colorFlag(e, fs)
	o := testOptions{runOptions: runOptions{cmd: "gramc test"}}
	o.addBindingFlags(fs)
	fs.StringVar(&o.run, "run", "", "run only the tests whose name matches `REGEX`")
	fs.BoolVar(&o.record, "record", false, "run against the model and save each test's cassette")
	fs.BoolVar(&o.replay, "replay", false, "answer every test from its cassette, with no network")
	fs.IntVar(&o.repeat, "repeat", 1, "run each test `N` times")
	fs.Float64Var(&o.passRate, "pass-rate", 1, "the share of a test's runs that must pass, from 0 to 1")
	fs.IntVar(&o.parallel, "parallel", goruntime.GOMAXPROCS(0), "run `N` tests at once")
	fs.StringVar(&o.format, "format", "text", "output format: text, json, junit or tap")
	fs.StringVar(&o.cassettes, "cassettes", "", "keep cassettes in `DIR` instead of beside each test file")
	fs.BoolVar(&o.stream, "stream", false, "ask the model for streamed answers (cassettes hold the streams)")
	fs.Float64Var(&o.maxCost, "max-cost", 0, "fail the suite when its model calls cost more than `USD` US dollars")
	paths, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	var runRE *regexp.Regexp
	if o.run != "" {
		if runRE, err = regexp.Compile(o.run); err != nil {
			return o.usageErr("--run: %v", err)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	o.b.From = paths
	// The model endpoint's key is needed by the tests run against the
	// model: all of them with --record, those without a cassette by
	// default (checked once they are known), none with --replay.
	o.b.NoModel = !o.record
	logger, _, err := o.setup(e)
	if err != nil {
		return err
	}

	// The tests.
	jobs, err := o.collect(e, paths, runRE)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		return o.report(e, nil)
	}

	// The tests as the bindings give them, and the tools.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r := o.runner(logger)
	closeTools, err := r.Start(ctx, jobs, logger, o.set.KeyError, func() error { return o.modelCheck(r, jobs) })
	if err != nil {
		return err
	}
	defer closeTools()
	return o.finish(e, r.RunAll(ctx, jobs))
}

// finish reports the results and returns the command's error: a test
// that did not pass, or the suite's cost over --max-cost.
func (o *testOptions) finish(e *env, results []agenttest.Result) error {
	if err := o.report(e, results); err != nil {
		return err
	}
	over := o.costCheck(e, results)
	if err := o.exitCode(e, results); err != nil || !over {
		return err
	}
	return exitWith(exitError)
}

// costCheck reports on standard error, and returns true, when the suite's
// model calls cost more than --max-cost; the tests whose models have no
// known price are left out of the sum, and said to be.
func (o *testOptions) costCheck(e *env, results []agenttest.Result) bool {
	if o.maxCost <= 0 {
		return false
	}
	s := agenttest.Summarize(results)
	if s.Unpriced > 0 {
		fmt.Fprintf(e.stderr, "gramc test: warning: --max-cost: %d of %d tests used models of unknown price, not counted (give their prices in the bindings file)\n",
			s.Unpriced, len(results))
	}
	if s.KnownUSD <= o.maxCost {
		return false
	}
	fmt.Fprintf(e.stderr, "gramc test: the suite cost $%s, more than --max-cost $%s\n",
		strconv.FormatFloat(s.KnownUSD, 'f', -1, 64), strconv.FormatFloat(o.maxCost, 'f', -1, 64))
	return true
}

// modelCheck reports what keeps the tests that run against the model
// from having one (OPENAI_API_KEY not set, say), once, before any test
// runs and before any cassette directory is made.
func (o *testOptions) modelCheck(r *agenttest.Runner, jobs []agenttest.Job) error {
	agent, err := r.ModelError(jobs)
	if err == nil {
		return nil
	}
	hint := keyHint
	if o.record {
		hint = "  hint: --record runs the tests against the model: set OPENAI_API_KEY, or point the agents at a server with --base-url URL"
	}
	code := exitError
	var ce *runtime.ConfigError
	if errors.As(err, &ce) {
		code = exitConfig
	}
	return fail(code, "%s", testError(fmt.Sprintf("%s: agent %s", o.cmd, agent.Name), err, err.Error(), hint))
}

// runner returns the test runner the flags describe (see
// [agenttest.Runner.Start]).
func (o *testOptions) runner(logger *slog.Logger) *agenttest.Runner {
	r := &agenttest.Runner{
		Options:   []runtime.Option{runtime.WithStreaming(o.stream)}, // after the setup's
		Cassettes: o.cassettes,
		Setup:     o.set,
		Repeat:    o.repeat,
		PassRate:  o.passRate,
		Parallel:  o.parallel,
		Logger:    logger,
	}
	switch {
	case o.record:
		r.Mode = agenttest.ModeRecord
	case o.replay:
		r.Mode = agenttest.ModeReplay
	}
	return r
}

// report writes the results on standard output in the --format; on a
// terminal, the control characters of the text, TAP and JUnit reports are
// shown as visible characters.
func (o *testOptions) report(e *env, results []agenttest.Result) error {
	var b bytes.Buffer
	err := agenttest.Write(&b, o.format, results)
	if err == nil {
		report := b.String()
		if o.format != "json" && diag.IsTerminal(e.stdout) {
			// The answers quoted show their control characters.
			report = diag.Visible(report)
		}
		_, err = io.WriteString(e.stdout, report)
	}
	if err != nil {
		return usageError("gramc test", "writing the report: %v", err)
	}
	return nil
}

// check validates the flags of gramc test.
func (o *testOptions) check() error {
	if err := checkFormat(o.cmd, o.format, agenttest.Formats...); err != nil {
		return err
	}
	switch {
	case o.record && o.replay:
		return o.usageErr("--record and --replay cannot be used together")
	case o.repeat < 1:
		return o.usageErr("--repeat must be at least 1")
	case !(o.passRate > 0 && o.passRate <= 1): // NaN too
		return o.usageErr("--pass-rate must be more than 0 and at most 1, e.g. 0.8")
	case o.parallel < 1:
		return o.usageErr("--parallel must be at least 1")
	case !(o.maxCost >= 0) || math.IsInf(o.maxCost, 1): // NaN too
		return o.usageErr("--max-cost must be a number of US dollars, 0 or more (0: no limit), e.g. 0.50")
	}
	return nil
}

// collect loads the files under paths and returns the tests to run, in
// file order. Files with errors are reported on standard error and give
// exit code 1, as do paths without tests; when tests exist but --run
// matches none, it warns and returns no jobs.
func (o *testOptions) collect(e *env, paths []string, runRE *regexp.Regexp) ([]agenttest.Job, error) {
	if slices.Contains(paths, "-") {
		return nil, o.usageErr("tests are read from files, not standard input")
	}
	inputs, ioErr := collectInputs(e, "test", paths, true)
	if ioErr {
		return nil, exitWith(exitUsage)
	}
	given := make([]string, len(inputs))
	for i, in := range inputs {
		given[i] = in.path
	}
	pkgs, irregular, err := agenttest.Load(given, e.maxFileSize)
	for _, err := range irregular {
		e.warnSkipped("test", err)
	}
	if err != nil {
		return nil, usageError("gramc test", "%v", inputfile.Hint(err, inputfile.GiveGram))
	}
	c := agenttest.Collect(pkgs, given, func(path, name string) bool {
		return runRE == nil || runRE.MatchString(name) || runRE.MatchString(path+":"+name)
	})
	writeReports(e, c.Reports, 0)
	if c.Broken {
		return nil, fail(exitError, "gramc test: fix the errors above (gramc check shows them too); no test was run")
	}
	if len(c.Jobs) == 0 {
		if c.Files == 0 {
			return nil, fail(exitError, "gramc test: no tests in %s; declare one with [name:Test {agent: ...} | (:User {says: \"...\"}), ...]", strings.Join(paths, ", "))
		}
		// As go test -run: nothing to run is not a failure, but say so.
		fmt.Fprintf(e.stderr, "gramc test: warning: no test matches --run %q; no test was run\n", o.run)
	}
	return c.Jobs, nil
}

// exitCode prints the hints of configuration errors and returns the error
// of the results: exit code 3 for a configuration error, 1 for a test that
// did not pass.
func (o *testOptions) exitCode(e *env, results []agenttest.Result) error {
	code := exitOK
	hinted := map[string]bool{}
	for _, r := range results {
		switch {
		case r.Status == agenttest.Error && r.Config:
			code = exitConfig
			if !hinted[r.Error] {
				hinted[r.Error] = true
				fmt.Fprintln(e.stderr, testError("gramc test: "+r.Test, r.Cause, r.Error, keyHint))
			}
		case r.Status != agenttest.Pass && code == exitOK:
			code = exitError
		}
	}
	return exitWith(code)
}

// keyHint follows an error about the model endpoint's key.
const keyHint = "  hint: set OPENAI_API_KEY, point the agents at a server with --base-url URL, or replay recorded cassettes with --replay"

// testError returns the report of a configuration error err of the
// tests, whose message is text: "where: text", then the hints of how to
// bind what is missing and, when it is the model's key, hint.
func testError(where string, err error, text, hint string) string {
	lines := append([]string{where + ": " + text}, binding.BindHints(err)...)
	if strings.Contains(text, "OPENAI_API_KEY") {
		lines = append(lines, hint)
	}
	return strings.Join(lines, "\n")
}
