// Running tests: each run of a test is a conversation with the agent,
// turn by turn through runtime.Run, on a model whose HTTP traffic goes to
// the network, to a cassette being recorded, or comes from a cassette.

package agenttest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/replay"
	"github.com/gramlang/gram/schema"
)

// Mode says where the model's answers come from.
type Mode int

// The modes.
const (
	// ModeAuto replays a test whose cassette exists and runs the others
	// against the model, recording nothing.
	ModeAuto Mode = iota
	// ModeRecord runs every test against the model and saves its cassette.
	ModeRecord
	// ModeReplay answers every test from its cassette, with no network; a
	// missing cassette is a configuration error.
	ModeReplay
)

// Runner runs tests. Its fields are read-only once a run starts.
type Runner struct {
	// Library holds the tool implementations (nil: none).
	Library *runtime.Library
	// Options are passed to every [runtime.Run] (logger, injected values,
	// limits); the model is set by the runner.
	Options []runtime.Option
	// Mode says where answers come from.
	Mode Mode
	// Cassettes is the directory of cassettes; "" means the bindings
	// file's, else the directory "cassettes" beside each test file.
	Cassettes string
	// Setup is what the command line and the bindings file give the
	// runs (see [binding.Resolve]): the model endpoint and its key, the
	// providers' endpoints (their keys redacted from recordings), the
	// agents' fallbacks and retries, the cassettes directory and the prices
	// of the bindings file (which price [Result.CostUSD], over the
	// embedded table), tracing, the size limit of a cassette read (0:
	// 256 MB; only regular files are read); nil gives none of them (the
	// environment's endpoint and key, OPENAI_API_KEY).
	Setup *binding.Setup
	// Repeat is the number of runs of each test (at least 1).
	Repeat int
	// PassRate is the share of runs that must pass, from 0 to 1 (0 means
	// 1: every run).
	PassRate float64
	// Parallel is the number of runs at once (at least 1).
	Parallel int
	// Logger receives what the model clients log (retried calls); nil
	// logs nothing. The runs' own logger is set in Options.
	Logger *slog.Logger
}

// runOutcome is one run of a test.
type runOutcome struct {
	failures []Failure
	turns    []TurnRecord
	err      error
}

// CassettePath returns the cassette of a test of the file at path.
func (r *Runner) CassettePath(path, test string) string {
	dir := r.Cassettes
	if b := r.setup().Bound.Bindings; dir == "" && b != nil {
		dir = b.Cassettes
	}
	dir = cmp.Or(dir, filepath.Join(filepath.Dir(path), "cassettes"))
	stem := strings.TrimSuffix(filepath.Base(path), ".gram")
	return filepath.Join(dir, stem, fileName(test)+".json")
}

// fileName turns a test's name into a file name: characters other than
// letters, digits, '_', '-', '.' and '@' (a name in backticks may have any)
// become '_', so a name never leads out of the cassettes directory.
func fileName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '@') {
			b[i] = '_'
		}
	}
	if s := string(b); strings.Trim(s, ".") != "" {
		return s
	}
	return "_" + string(b)
}

// cassetteClashes returns, for each job whose cassette is recorded or
// replayed, an error when another job's test has the same cassette file
// (their names differ only in characters a file name cannot hold, or, for
// file systems that ignore case, in case): neither may overwrite or replay
// the other's.
func (r *Runner) cassetteClashes(jobs []Job, sources []string) map[int]error {
	first := map[string]int{}
	out := map[int]error{}
	for i, j := range jobs {
		if sources[i] == "live" {
			continue
		}
		path := r.CassettePath(j.Path, j.Test.Name)
		key := strings.ToLower(filepath.Clean(path))
		k, ok := first[key]
		if !ok {
			first[key] = i
			continue
		}
		tests := fmt.Sprintf("tests %q and %q of %s", jobs[k].Test.Name, j.Test.Name, j.Path)
		if jobs[k].Path != j.Path {
			tests = fmt.Sprintf("tests %q of %s and %q of %s", jobs[k].Test.Name, jobs[k].Path, j.Test.Name, j.Path)
		}
		share := "would share the cassette " + path
		if other := r.CassettePath(jobs[k].Path, jobs[k].Test.Name); other != path {
			share = fmt.Sprintf("have the cassettes %s and %s, one file where case is ignored (macOS, Windows)", other, path)
		}
		err := &runtime.ConfigError{Message: tests + " " + share + "; rename one of them"}
		if _, seen := out[k]; !seen {
			out[k] = err
		}
		out[i] = err
	}
	return out
}

// runCassette returns the file run rep of job j's test is recorded to: the
// cassette itself when the test runs once; otherwise a hidden file beside
// it, one per run, of which keepCassette keeps one.
func (r *Runner) runCassette(j Job, rep int) string {
	cassette := r.CassettePath(j.Path, j.Test.Name)
	if r.Repeat <= 1 {
		return cassette
	}
	return filepath.Join(filepath.Dir(cassette), "."+filepath.Base(cassette)+".run"+strconv.Itoa(rep+1))
}

// keepCassette makes the recording of the first run of job j's test that
// passed its cassette, so that replaying the cassette passes, and removes
// the other runs' recordings. When no run passed, the first run's is kept
// and the note returned says so.
func (r *Runner) keepCassette(j Job, runs []runOutcome) (note string) {
	if r.Repeat <= 1 {
		return ""
	}
	keep := slices.IndexFunc(runs, func(o runOutcome) bool { return o.err == nil && len(o.failures) == 0 })
	if keep < 0 {
		keep, note = 0, "no run passed: the cassette holds the first run, which fails"
	}
	cassette := r.CassettePath(j.Path, j.Test.Name)
	for k := range runs {
		tmp := r.runCassette(j, k)
		if k != keep {
			_ = os.Remove(tmp)
		} else if err := os.Rename(tmp, cassette); err != nil && !os.IsNotExist(err) {
			note = "the cassette could not be saved: " + err.Error()
		}
	}
	return note
}

// Job is a test to run, with the file it comes from.
type Job struct {
	Path string
	Test *schema.Test
	// Program is the package the test's agent belongs to, where the agents
	// it calls as tools or hands off to are found (see [PackageProgram]);
	// nil runs an agent that uses no other.
	Program *schema.Program
}

// RunAll runs the jobs, Parallel runs at a time, and returns their results
// in the jobs' order.
func (r *Runner) RunAll(ctx context.Context, jobs []Job) []Result {
	n := max(r.Repeat, 1)
	type unit struct{ job, rep int }
	outcomes := make([][]runOutcome, len(jobs))
	sources := make([]string, len(jobs))
	durations := make([]time.Duration, len(jobs))
	meters := make([]*meter, len(jobs))
	for i := range jobs {
		outcomes[i] = make([]runOutcome, n)
		meters[i] = &meter{prices: r.setup().Bound.Bindings.PriceTable()}
		sources[i] = r.source(r.CassettePath(jobs[i].Path, jobs[i].Test.Name))
	}
	clashes := r.cassetteClashes(jobs, sources)
	for i, err := range clashes {
		outcomes[i] = slices.Repeat([]runOutcome{{err: err}}, n)
	}
	work := make(chan unit)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range max(r.Parallel, 1) {
		wg.Go(func() {
			for u := range work {
				start := time.Now()
				o := r.play(ctx, jobs[u.job], sources[u.job], u.rep, meters[u.job])
				mu.Lock()
				outcomes[u.job][u.rep] = o
				durations[u.job] += time.Since(start)
				mu.Unlock()
			}
		})
	}
	for i := range jobs {
		for k := 0; k < n && clashes[i] == nil; k++ {
			work <- unit{i, k}
		}
	}
	close(work)
	wg.Wait()
	out := make([]Result, len(jobs))
	for i, j := range jobs {
		out[i] = r.result(j, sources[i], outcomes[i], durations[i])
		out[i].Usage, out[i].CostUSD = meters[i].read()
		if sources[i] == "record" && clashes[i] == nil {
			out[i].CassetteNote = r.keepCassette(j, outcomes[i])
		}
	}
	return out
}

// Live reports whether the test of job j runs against the model: it is
// recorded, or it has no cassette to replay (and the mode is not replay).
func (r *Runner) Live(j Job) bool {
	return r.source(r.CassettePath(j.Path, j.Test.Name)) != "replay"
}

// ModelError returns the error that making the model client of an agent
// gives (a missing API key, say), for the first job that runs against the
// model (see [Runner.Live]) whose agent, an agent it uses (found in the
// job's Program) or a judge has no model client, with
// that agent; nil when every one can be made. Nothing is sent and nothing
// is written, so a caller can report the problem once, before any test
// runs, rather than once per test.
func (r *Runner) ModelError(jobs []Job) (*schema.Agent, error) {
	models := r.models(&http.Client{}, false)
	for _, j := range jobs {
		if !r.Live(j) {
			continue
		}
		agents := j.Program.Reachable(j.Test.Agent)
		for _, turn := range j.Test.Turns {
			for _, rb := range turn.Rubrics {
				agents = append(agents, rb.Judge)
			}
		}
		for _, a := range agents {
			if a == nil {
				continue // reported by the run
			}
			if _, err := models(a); err != nil {
				return a, err
			}
		}
	}
	return nil, nil
}

// source says where the answers of a test come from.
func (r *Runner) source(cassette string) string {
	switch r.Mode {
	case ModeRecord:
		return "record"
	case ModeReplay:
		return "replay"
	}
	if _, err := os.Stat(cassette); err == nil {
		return "replay"
	}
	return "live"
}

// passRate returns the share of runs that must pass.
func (r *Runner) passRate() float64 {
	if r.PassRate <= 0 || r.PassRate > 1 {
		return 1
	}
	return r.PassRate
}

// errNoCassette marks a missing cassette in replay mode.
var errNoCassette = errors.New("no cassette")

// play runs a test once (run number rep, from 0), recording it in record
// mode (see runCassette), its model calls counted by mt.
func (r *Runner) play(ctx context.Context, j Job, source string, rep int, mt *meter) runOutcome {
	t := j.Test
	if t.Agent == nil {
		return runOutcome{err: fmt.Errorf("test %s: agent %q is not defined", t.Name, t.AgentName)}
	}
	transport, replayer, err := r.transport(j, source, rep)
	if err != nil {
		return runOutcome{err: err}
	}
	model := r.models(&http.Client{Transport: transport}, replayer != nil)
	models := r.setup().Models(model)
	m, fbs, err := models(t.Agent)
	if err != nil {
		return runOutcome{err: err}
	}
	if source == "record" {
		// Made once the test can run: a test that cannot leaves nothing.
		if err := os.MkdirAll(filepath.Dir(r.CassettePath(j.Path, t.Name)), 0o755); err != nil {
			return runOutcome{err: err}
		}
	}
	var out runOutcome
	var conv runtime.Conversation
	opts := slices.Clip(slices.Concat(r.Options, []runtime.Option{runtime.WithModel(m), runtime.WithFallbacks(fbs...),
		runtime.WithModelSource(models), runtime.WithProgram(j.Program), runtime.WithUsage(mt.add)}))
	for i, turn := range t.Turns {
		resp, halt, err := r.runTurn(ctx, j, turn, conv, opts)
		rec := TurnRecord{User: turn.Input}
		if resp != nil {
			rec.Calls, rec.Answer, rec.Status = callsOf(resp), resp.Content, string(resp.Status)
			if resp.Agent != "" && resp.Agent != t.Agent.Name {
				rec.AnsweredBy = resp.Agent
			}
		}
		out.turns = append(out.turns, rec)
		if err != nil {
			out.turnError(i+1, err)
			return out
		}
		if halt != nil {
			halt.Turn = i + 1
			out.failures = append(out.failures, *halt)
			return out
		}
		conv = resp.Conversation
		out.failures = append(out.failures, Evaluate(t, i+1, turn, resp)...)
		for _, rb := range turn.Rubrics {
			score, f := r.judge(ctx, model, mt, rb, conv, i+1)
			out.turns[i].Scores = append(out.turns[i].Scores, score)
			if f != nil {
				out.failures = append(out.failures, *f)
			}
		}
	}
	if replayer != nil && replayer.Remaining() > 0 && len(out.failures) == 0 {
		out.failures = append(out.failures, Failure{Kind: "trajectory",
			Message: fmt.Sprintf("the cassette has %d more model requests than this run made: the agent or the test changed since it was recorded (record it again with --record)", replayer.Remaining())})
	}
	return out
}

// turnError records the error of turn n: a configuration or tool error
// ends the test as an error; a model or network failure (a request that
// differs from the cassette among them) fails the turn.
func (o *runOutcome) turnError(n int, err error) {
	var ce *runtime.ConfigError
	var te *runtime.ToolError
	if errors.As(err, &ce) || errors.As(err, &te) {
		o.err = err
		return
	}
	msg := err.Error()
	var re *replay.Error
	if errors.As(err, &re) {
		msg += " (the agent, its tools or the test changed since the cassette was recorded: record it again with --record)"
	}
	o.failures = append(o.failures, Failure{Turn: n, Kind: "error", Message: msg})
}
