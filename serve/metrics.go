// Metrics: Prometheus metrics at /metrics, with the official Go client.
// Labels take bounded values only (route names, served agents, their
// declared tools, error kinds), never a path, an identity or a credential.

package serve

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics.
type metrics struct {
	registry *prometheus.Registry

	requests     *prometheus.CounterVec   // by route and status code
	latency      *prometheus.HistogramVec // request duration, by route
	overhead     *prometheus.HistogramVec // request duration less the model calls', by route
	runs         *prometheus.CounterVec   // by agent and status
	runLatency   *prometheus.HistogramVec // by agent
	modelCalls   *prometheus.HistogramVec // by agent and outcome
	tokens       *prometheus.CounterVec   // by agent, model and token type (input, output)
	cost         *prometheus.CounterVec   // US dollars, by agent and model
	unpriced     *prometheus.CounterVec   // model calls of unknown price, by agent and model
	toolCalls    *prometheus.CounterVec   // by agent, tool and outcome
	toolLatency  *prometheus.HistogramVec // by agent and tool
	errors       *prometheus.CounterVec   // by kind
	evicted      prometheus.Counter       // connections closed to make room at the cap
	active       prometheus.Gauge
	queued       prometheus.Gauge
	inFlightReqs prometheus.Gauge
	// durableRuns counts durable runs by agent and status (started,
	// awaiting_approval, completed, max_iterations_reached, error,
	// cancelled); durableActive holds those this process runs or that
	// wait in it, by status (running, awaiting_approval).
	durableRuns   *prometheus.CounterVec
	durableActive *prometheus.GaugeVec
}

// latencyBuckets are the buckets of the duration histograms, in seconds:
// from a millisecond (the server's own work) to five minutes (a long run).
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// overheadBuckets are finer, for the time the server adds.
var overheadBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}

// newMetrics registers the metrics, with the Go runtime's and the
// process's, on a registry of their own.
func newMetrics() *metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := func(c prometheus.Collector) { r.MustRegister(c) }
	m := &metrics{registry: r}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_requests_total",
		Help: "HTTP requests answered, by route and status code (499: the client went away)."}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gram_serve_request_duration_seconds",
		Help: "Time from a request's arrival to its answer's end, by route.", Buckets: latencyBuckets}, []string{"route"})
	m.overhead = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gram_serve_overhead_seconds",
		Help: "Time a run request took less the time of its model calls and tool calls: what the server adds.", Buckets: overheadBuckets}, []string{"route"})
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_runs_total",
		Help: "Agent runs, by agent and status (completed, max_iterations_reached, error, cancelled, ...)."}, []string{"agent", "status"})
	m.runLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gram_serve_run_duration_seconds",
		Help: "Duration of agent runs, by agent.", Buckets: latencyBuckets}, []string{"agent"})
	m.modelCalls = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gram_serve_model_call_duration_seconds",
		Help: "Duration of model calls, retries included, by agent and outcome (ok, error).", Buckets: latencyBuckets}, []string{"agent", "outcome"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_tokens_total",
		Help: "Tokens used by model calls, by agent, model (Provider/model-id) and type (input, output)."}, []string{"agent", "model", "type"})
	m.cost = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_cost_usd_total",
		Help: "What model calls cost in US dollars by the price table, by agent and model; calls of a model of unknown price are not counted (see gram_serve_unpriced_model_calls_total)."}, []string{"agent", "model"})
	m.unpriced = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_unpriced_model_calls_total",
		Help: "Model calls that used tokens of a model whose price is unknown, so left out of gram_serve_cost_usd_total, by agent and model."}, []string{"agent", "model"})
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_tool_calls_total",
		Help: "Tool calls, by agent, tool (\"unknown\" for a name the agent does not have) and outcome (ok, error)."}, []string{"agent", "tool", "outcome"})
	m.toolLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gram_serve_tool_call_duration_seconds",
		Help: "Duration of tool calls, validation included, by agent and tool.", Buckets: latencyBuckets}, []string{"agent", "tool"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_errors_total",
		Help: "Errors by kind: unauthorized, invalid_request, body_too_large, history_too_long, unknown_agent, queue_full, queue_timeout, deadline, client_disconnected, shutdown, identity, config, tool_binding, tool_call, llm_<kind>, origin_refused, host_refused, unsupported_media_type, read_timeout, internal, ..."}, []string{"kind"})
	m.evicted = prometheus.NewCounter(prometheus.CounterOpts{Name: "gram_serve_connections_evicted_total",
		Help: "Connections closed to make room for a new one at the cap (--max-connections): each had waited longest without a request in progress."})
	m.active = prometheus.NewGauge(prometheus.GaugeOpts{Name: "gram_serve_runs_active", Help: "Runs in progress."})
	m.queued = prometheus.NewGauge(prometheus.GaugeOpts{Name: "gram_serve_runs_queued", Help: "Runs waiting for a free slot (see --max-concurrent)."})
	m.inFlightReqs = prometheus.NewGauge(prometheus.GaugeOpts{Name: "gram_serve_requests_in_flight", Help: "Requests being answered."})
	m.durableRuns = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gram_serve_durable_runs_total",
		Help: "Durable runs (kept in the run store), by agent and status: started (here), awaiting_approval (each wait), and how they ended in this process (completed, max_iterations_reached, error, cancelled)."}, []string{"agent", "status"})
	m.durableActive = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "gram_serve_durable_runs_active",
		Help: "Durable runs this process executes (running) or that wait for a decision in it (awaiting_approval)."}, []string{"status"})
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.overhead, m.runs, m.runLatency, m.modelCalls, m.tokens, m.cost, m.unpriced,
		m.toolCalls, m.toolLatency, m.errors, m.evicted, m.active, m.queued, m.inFlightReqs, m.durableRuns, m.durableActive} {
		f(c)
	}
	return m
}
