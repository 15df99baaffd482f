package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/internal/heapstat"
	"github.com/gramlang/gram/internal/loadavg"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/fakeopenai"
	"github.com/gramlang/gram/schema"
)

// The load of BenchmarkServeLoad.
const (
	benchConversations = 200
	benchTurns         = 3
	benchModelDelay    = 500 * time.Millisecond
)

// BenchmarkServeLoad: 200 conversations at once, of 3 turns each, against
// a server whose model is the in-process fake answering after a fixed
// delay; each turn is two model calls, the first asking for a tool call
// (the built-in sayHello), so a turn takes at least twice the delay. Half
// the conversations are streamed. It reports the errors, the latency the
// server adds over its model (each request's time less twice the model's
// delay: everything but the model's own wait, the model client's HTTP
// round trips included; and less the model and tool time the server
// reports in Server-Timing), the process's peak RSS (the fake model and
// the clients are in it too) and the machine's load, which on a shared
// machine explains a slow tail. Run it with
//
//	go test ./serve -run '^$' -bench BenchmarkServeLoad -benchtime 1x
//
// (make bench-serve). It fails when a request fails, when the peak RSS is
// over 150 MB, or when the p99 latency the server adds (over the model and
// tool calls it timed) is over 5 ms while the machine's load average was
// below its number of cores; with more load, the tail is reported but not
// judged.
func BenchmarkServeLoad(b *testing.B) {
	loadBefore := loadavg.String()
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
	srv, err := New(Config{Agents: agents, Logger: logger, Limits: Limits{MaxConcurrent: 2 * benchConversations}})
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
		added, server []time.Duration
		errs          []string
	)
	b.ResetTimer()
	for range b.N {
		added, server, errs = nil, nil, nil
		cpuBefore := cpuTime()
		start := time.Now()
		peakHeap := heapstat.Peak(func() {
			var wg sync.WaitGroup
			for c := range benchConversations {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// The conversations start spread over one model delay,
					// as users do not all send at the same instant.
					time.Sleep(time.Duration(c) * benchModelDelay / benchConversations)
					a, s, err := converse(client, hs.URL, c, c%2 == 1)
					mu.Lock()
					defer mu.Unlock()
					added = append(added, a...)
					server = append(server, s...)
					if err != nil {
						errs = append(errs, err.Error())
					}
				}()
			}
			wg.Wait()
		})
		wall := time.Since(start)
		cpu := cpuTime() - cpuBefore
		b.StopTimer()
		slices.Sort(added)
		slices.Sort(server)
		hwm, rss := procRSS()
		load := max(loadavg.One(), loadOne(loadBefore))
		b.ReportMetric(float64(len(errs)), "errors")
		b.ReportMetric(ms(pct(server, 99)), "p99-added-ms")
		b.ReportMetric(ms(pct(added, 99)), "p99-over-delay-ms")
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
		b.ReportMetric(load, "load")
		b.Logf("%d conversations × %d turns (%d requests, half streamed), model delay %v, 2 model calls and 1 tool call a turn; GOMAXPROCS %d",
			benchConversations, benchTurns, benchConversations*benchTurns, benchModelDelay, goruntime.GOMAXPROCS(0))
		b.Logf("errors: %d; wall time %v; CPU time %v (%.2f ms a request, server, fake model and clients together)",
			len(errs), wall.Round(time.Millisecond), cpu.Round(time.Millisecond), ms(cpu)/float64(benchConversations*benchTurns))
		b.Logf("added by the server: request time less the model and tool calls' (Server-Timing), %d requests: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
			len(server), ms(pct(server, 50)), ms(pct(server, 90)), ms(pct(server, 99)), ms(pct(server, 100)))
		b.Logf("over the model's delay: request time less 2 × %v (the model client's work and HTTP round trips, and the fake model's, counted too): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
			benchModelDelay, ms(pct(added, 50)), ms(pct(added, 90)), ms(pct(added, 99)), ms(pct(added, 100)))
		b.Logf("process (server, fake model and clients): peak RSS %.1f MB, RSS after %.1f MB, peak Go heap during the load %.1f MB",
			float64(hwm)/(1<<20), float64(rss)/(1<<20), float64(peakHeap)/(1<<20))
		b.Logf("load average (1, 5, 15 min): before %s, after %s; %d cores", loadBefore, loadavg.String(), goruntime.NumCPU())
		if len(errs) > 0 {
			b.Errorf("%d conversations failed, the first: %s", len(errs), errs[0])
		}
		if len(server) != benchConversations*benchTurns {
			b.Errorf("%d of %d answers had a Server-Timing", len(server), benchConversations*benchTurns)
		}
		if hwm > 150<<20 {
			b.Errorf("peak RSS %.1f MB > 150 MB", float64(hwm)/(1<<20))
		}
		switch p := pct(server, 99); {
		case p <= 5*time.Millisecond:
		case load > float64(goruntime.NumCPU()):
			// Other processes kept every core busy: the tail measures the
			// machine's run queue, not the server.
			b.Logf("p99 added latency %.2f ms > 5 ms, not judged: the load average %.2f exceeds the %d cores", ms(p), load, goruntime.NumCPU())
		default:
			b.Errorf("p99 added latency %.2f ms > 5 ms (load %.2f)", ms(p), load)
		}
		b.StartTimer()
	}
}

// greeterStep answers as a model that calls sayHello with the last word
// of the user's message, then answers with what the tool said.
func greeterStep(req *fakeopenai.Request) fakeopenai.Response {
	msgs := req.Body.Messages
	last := msgs[len(msgs)-1]
	if last.Role == "tool" {
		return fakeopenai.Text("The tool says: " + last.Text())(req)
	}
	words := strings.Fields(last.Text())
	return fakeopenai.Calls(fakeopenai.Call{Name: "sayHello", Arguments: `{"personName":"` + words[len(words)-1] + `"}`})(req)
}

// serverTimingRE reads the model and tool times of a Server-Timing header.
var serverTimingRE = regexp.MustCompile(`model;dur=([\d.]+).*tools;dur=([\d.]+)`)

// converse holds one conversation of benchTurns turns, the history sent
// with each, and returns for each turn the time added over the model's
// delay, and (for plain answers) over the model and tool time the server
// reports.
func converse(client *http.Client, base string, n int, stream bool) (added, server []time.Duration, err error) {
	var history []map[string]string
	for turn := range benchTurns {
		name := fmt.Sprintf("user%d_%d", n, turn)
		history = append(history, map[string]string{"role": "user", "content": "Hello, I am " + name})
		body, _ := json.Marshal(map[string]any{"model": "hello", "messages": history, "stream": stream})
		start := time.Now()
		resp, err := client.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			return added, server, err
		}
		text, err := readAnswer(resp, stream)
		d := time.Since(start)
		if err != nil {
			return added, server, fmt.Errorf("conversation %d turn %d: %w", n, turn, err)
		}
		if want := "The tool says: Hello, " + name + "! Nice to meet you."; text != want {
			return added, server, fmt.Errorf("conversation %d turn %d: answer %q, want %q", n, turn, text, want)
		}
		added = append(added, d-2*benchModelDelay)
		timing := resp.Header.Get("Server-Timing")
		if stream {
			timing = resp.Trailer.Get("Server-Timing")
		}
		if m := serverTimingRE.FindStringSubmatch(timing); m != nil {
			model, _ := strconv.ParseFloat(m[1], 64)
			tools, _ := strconv.ParseFloat(m[2], 64)
			server = append(server, d-time.Duration((model+tools)*float64(time.Millisecond)))
		}
		history = append(history, map[string]string{"role": "assistant", "content": text})
	}
	return added, server, nil
}

// readAnswer reads a chat completion's text, plain or streamed.
func readAnswer(resp *http.Response, stream bool) (string, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if !stream {
		var c struct {
			Choices []struct{ Message struct{ Content string } }
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) != 1 {
			return "", fmt.Errorf("not a completion: %v", err)
		}
		return c.Choices[0].Message.Content, nil
	}
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	done := false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var c struct {
			Choices []struct{ Delta struct{ Content string } }
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return "", err
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if !done {
		return "", fmt.Errorf("the stream ended without [DONE]: %v", sc.Err())
	}
	io.Copy(io.Discard, resp.Body) // to the end, for the trailer
	return text.String(), nil
}

// loadOne returns the first figure of a load average line, or -1.
func loadOne(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// pct returns the p-th percentile of sorted durations.
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := min((len(sorted)*p+99)/100, len(sorted)) - 1
	return sorted[max(i, 0)]
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procRSS returns the process's peak and current resident set size, in
// bytes (0 where /proc does not say).
func procRSS() (peak, now uint64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseUint(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			peak = n << 10
		case "VmRSS:":
			now = n << 10
		}
	}
	return peak, now
}
