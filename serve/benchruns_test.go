package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/loadavg"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// BenchmarkServeRuns: 200 durable runs at once (POST
// /v1/agents/hello/runs, then GET /v1/runs/{id}?wait=60s until each has
// ended) in a SQLite run store, with the settings of BenchmarkServeLoad:
// the in-process fake model answering after a fixed delay, each run two
// model calls and a tool call (the built-in sayHello), each a step
// checkpointed in the store. It reports the latency the store and the
// server add (each run's time from its start to the answer of its end,
// less twice the model's delay), the process's peak RSS and the machine's
// load. Run it with
//
//	go test ./serve -run '^$' -bench BenchmarkServeRuns -benchtime 1x
//
// (make bench-serve). It fails when a run fails, or when the peak RSS is
// over 250 MB; the latency is reported, not judged.
func BenchmarkServeRuns(b *testing.B) {
	loadBefore := loadavg.String()
	// The peak RSS from here on, not that of a benchmark run before in
	// the same process (Linux: 5 resets VmHWM).
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	model := fakeopenai.New(b)
	model.Default = fakeopenai.Slow(benchModelDelay, greeterStep)
	prog := gramtest.Compile(b, agentsSrc)
	logger := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = 2 * benchConversations
	m, err := runtime.NewOpenAIModel(runtime.OpenAIConfig{Provider: schema.OpenAI, BaseURL: model.URL, APIKey: "sk-bench",
		HTTPClient: &http.Client{Transport: transport}, Logger: logger})
	if err != nil {
		b.Fatal(err)
	}
	var agents []runtime.Bound
	for _, a := range prog.Agents() {
		agents = append(agents, runtime.Bound{Agent: a, Library: runtime.Builtins(), Options: []runtime.Option{runtime.WithModel(m), runtime.WithLogger(logger)}})
	}
	srv, err := New(Config{Agents: agents, Logger: logger, Limits: Limits{MaxConcurrent: 2 * benchConversations},
		Runs: RunsConfig{Store: "sqlite:" + filepath.Join(b.TempDir(), "runs.db"), ExecutorID: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	clientTransport := http.DefaultTransport.(*http.Transport).Clone()
	clientTransport.MaxIdleConnsPerHost = 2 * benchConversations
	client := &http.Client{Transport: clientTransport}

	var (
		mu            sync.Mutex
		added, starts []time.Duration
		errs          []string
	)
	b.ResetTimer()
	for range b.N {
		added, starts, errs = nil, nil, nil
		start := time.Now()
		var wg sync.WaitGroup
		for c := range benchConversations {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(c) * benchModelDelay / benchConversations)
				d, st, err := durableRun(client, hs.URL, c)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err.Error())
					return
				}
				added = append(added, d-2*benchModelDelay)
				starts = append(starts, st)
			}()
		}
		wg.Wait()
		wall := time.Since(start)
		b.StopTimer()
		slices.Sort(added)
		slices.Sort(starts)
		hwm, rss := procRSS()
		load := max(loadavg.One(), loadOne(loadBefore))
		b.ReportMetric(float64(len(errs)), "errors")
		b.ReportMetric(ms(pct(added, 99)), "p99-added-ms")
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
		b.ReportMetric(load, "load")
		b.Logf("%d durable runs at once in a SQLite store, model delay %v, 2 model calls and 1 tool call a run (3 checkpointed steps); GOMAXPROCS %d",
			benchConversations, benchModelDelay, goruntime.GOMAXPROCS(0))
		b.Logf("errors: %d; wall time %v", len(errs), wall.Round(time.Millisecond))
		b.Logf("added by the store and the server: time from the start to the answer of the end less 2 × %v, %d runs: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
			benchModelDelay, len(added), ms(pct(added, 50)), ms(pct(added, 90)), ms(pct(added, 99)), ms(pct(added, 100)))
		b.Logf("of which the start (POST /v1/agents/hello/runs until its 202): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms",
			ms(pct(starts, 50)), ms(pct(starts, 90)), ms(pct(starts, 99)))
		b.Logf("process (server, store, fake model and clients): peak RSS %.1f MB, RSS after %.1f MB", float64(hwm)/(1<<20), float64(rss)/(1<<20))
		b.Logf("load average (1, 5, 15 min): before %s, after %s; %d cores", loadBefore, loadavg.String(), goruntime.NumCPU())
		if len(errs) > 0 {
			b.Errorf("%d runs failed, the first: %s", len(errs), errs[0])
		}
		if hwm > 250<<20 {
			b.Errorf("peak RSS %.1f MB > 250 MB", float64(hwm)/(1<<20))
		}
		b.StartTimer()
	}
}

// durableRun starts a durable run of hello and waits for its end; it
// returns the time from the start to the answer that it has ended, and
// the time the start took.
func durableRun(client *http.Client, base string, n int) (time.Duration, time.Duration, error) {
	name := fmt.Sprintf("user%d", n)
	body := `{"message_history":[{"role":"user","content":"Hello, I am ` + name + `"}]}`
	start := time.Now()
	resp, err := client.Post(base+"/v1/agents/hello/runs", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	started := time.Since(start)
	var run struct {
		RunID    string `json:"run_id"`
		Status   string
		Response *struct {
			FinalResponse string `json:"final_response"`
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&run)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return 0, 0, fmt.Errorf("run %d: start: %d %v", n, resp.StatusCode, err)
	}
	for run.Status == "running" {
		resp, err := client.Get(base + "/v1/runs/" + run.RunID + "?wait=60s")
		if err != nil {
			return 0, 0, err
		}
		err = json.NewDecoder(resp.Body).Decode(&run)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("run %d: %d %v", n, resp.StatusCode, err)
		}
	}
	d := time.Since(start)
	if want := "The tool says: Hello, " + name + "! Nice to meet you."; run.Status != "completed" || run.Response == nil || run.Response.FinalResponse != want {
		return 0, 0, fmt.Errorf("run %d: %s %+v, want %q", n, run.Status, run.Response, want)
	}
	return d, started, nil
}
