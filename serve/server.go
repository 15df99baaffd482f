// The server: its configuration, the agents it serves, its routes and the
// list of its models.

package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// Config configures a [Server].
type Config struct {
	// Agents are the agents served, by name.
	Agents []runtime.Bound
	// Auth says which credentials requests need; none when it has no keys
	// and no JWT configuration.
	Auth AuthConfig
	// Injected are values of injected parameters given to every run (a
	// tenant, a region); an identity's claims override them.
	Injected map[string]any
	// AllowedOrigins are the origins (scheme://host[:port], see
	// [NormalizeOrigin]) of the web pages that may call the server from a
	// browser besides its own; a request from another page is refused
	// with 403. Without credentials, the server also answers only requests
	// addressed to a loopback name or address.
	AllowedOrigins []string
	// RefuseSystem refuses the system and developer messages of a chat
	// completion (and a response's instructions) with a 400, instead of
	// adding them after the agent's instruction.
	RefuseSystem bool
	// Limits bound what the server takes on.
	Limits Limits
	// Tracing configures the export of traces.
	Tracing Tracing
	// Logger receives a line per request and the runs' logs; nil means
	// slog.Default().
	Logger *slog.Logger
	// Version is the server's version, in /v1/models, /openapi.json and the
	// traces' resource.
	Version string
	// Runs configures durable runs: the run store and this process's name
	// in it.
	Runs RunsConfig
	// Prices price the model calls in the metrics and on the spans; nil
	// means the embedded table ([pricing.Default]).
	Prices *pricing.Table
}

// Server serves agents over HTTP. Create it with [New], mount
// [Server.Handler] or call [Server.Serve], and [Server.Close] it.
type Server struct {
	agents map[string]*served
	// others are the agents the served ones call or hand off to, and
	// theirs, that are not served themselves, by name (for the spans).
	others  map[string]*served
	names   []string // sorted
	auth    *authenticator
	static  map[string]any
	origins []string // normalized
	limits  Limits
	// refuseSystem: see [Config.RefuseSystem].
	refuseSystem bool
	log          *slog.Logger
	version      string
	created      int64

	metrics   *metrics
	prices    *pricing.Table
	admission *admission
	trace     *tracing
	openapi   []byte

	// base is the parent of every run's context; cancelling it with
	// errShutdown stops the runs still going after the grace period.
	base     context.Context
	stopRuns context.CancelCauseFunc
	// draining is set, under drainMu, when the server stops; runs counts
	// the requests of the routes that run agents, which it waits for.
	draining atomic.Bool
	drainMu  sync.Mutex
	runs     sync.WaitGroup

	// durable is the store of durable runs (runs.go).
	durable runStore

	closeOnce sync.Once
	closeErr  error
}

// served is an agent the server serves.
type served struct {
	agent   *schema.Agent
	lib     *runtime.Library
	options []runtime.Option
	params  []injectedParam
	tools   map[string]*schema.Tool
	// approval: a run of the agent may come to a tool that asks for
	// approval; the synchronous endpoint runs it as a durable run.
	approval bool
}

// newServed returns the served agent of a: its options with the program
// it finds the agents it uses in, the injected parameters of its tools and
// of the tools of every agent it may come to, and its tools by name.
func newServed(a runtime.Bound) *served {
	sv := &served{agent: a.Agent, lib: a.Library, options: a.Options, params: injectedParams(a.Program.Reachable(a.Agent)), tools: map[string]*schema.Tool{},
		approval: a.Program.ReachesApproval(a.Agent)}
	if a.Program != nil {
		sv.options = append(slices.Clone(a.Options), runtime.WithProgram(a.Program))
	}
	for _, t := range a.Agent.Tools {
		sv.tools[t.Name] = t
	}
	return sv
}

// injectedParam is an injected parameter of an agent's tool.
type injectedParam struct {
	tool  string
	param *schema.Param
}

// injectedParams returns the injected parameters of the agents' tools,
// each name once (the first tool's).
func injectedParams(agents []*schema.Agent) []injectedParam {
	var out []injectedParam
	seen := map[string]bool{}
	for _, a := range agents {
		for _, t := range a.Tools {
			for _, p := range t.Params {
				if p.Injected && !seen[p.Name] {
					seen[p.Name] = true
					out = append(out, injectedParam{t.Name, p})
				}
			}
		}
	}
	return out
}

// New returns a server for cfg. It fails when no agent is given, when two
// have the same name, or when the authentication or the trace export
// cannot be set up.
func New(cfg Config) (*Server, error) {
	if len(cfg.Agents) == 0 {
		return nil, errors.New("no agent to serve")
	}
	s := &Server{agents: map[string]*served{}, static: cfg.Injected, limits: cfg.Limits.withDefaults(), log: cfg.Logger,
		refuseSystem: cfg.RefuseSystem, prices: cfg.Prices,
		version: cfg.Version, created: time.Now().Unix()}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.version == "" {
		s.version = "devel"
	}
	for _, a := range cfg.Agents {
		if a.Agent == nil {
			return nil, errors.New("an agent to serve is nil")
		}
		name := a.Agent.Name
		if _, dup := s.agents[name]; dup {
			return nil, fmt.Errorf("two agents are called %q", name)
		}
		sv := newServed(a)
		s.agents[name] = sv
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	s.others = map[string]*served{}
	for _, a := range cfg.Agents {
		for _, sub := range a.Program.Reachable(a.Agent)[1:] {
			if s.agents[sub.Name] == nil && s.others[sub.Name] == nil {
				s.others[sub.Name] = newServed(runtime.Bound{Agent: sub})
			}
		}
	}
	for _, o := range cfg.AllowedOrigins {
		norm, err := NormalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("allowed origin: %w", err)
		}
		s.origins = append(s.origins, norm)
	}
	var err error
	if s.auth, err = newAuthenticator(cfg.Auth); err != nil {
		return nil, err
	}
	if s.trace, err = newTracing(cfg.Tracing, s.version); err != nil {
		return nil, err
	}
	s.metrics = newMetrics()
	s.admission = newAdmission(s.limits, s.metrics)
	s.base, s.stopRuns = context.WithCancelCause(context.Background())
	if s.openapi, err = s.openAPI(); err != nil {
		return nil, err
	}
	if cfg.Runs.Store != "" {
		// Last: the store finishes at once the runs this process's
		// executor left, with the agents above.
		if err := s.openStore(context.Background(), cfg.Runs); err != nil {
			s.trace.shutdown(context.Background())
			return nil, err
		}
	}
	return s, nil
}

// Agents returns the names of the agents served, sorted.
func (s *Server) Agents() []string { return slices.Clone(s.names) }

// TraceEndpoint returns where traces are exported, or "" when they are
// not.
func (s *Server) TraceEndpoint() string { return s.trace.endpoint }

// The routes, as the metrics and the logs name them.
const (
	routeChat      = "/v1/chat/completions"
	routeResponses = "/v1/responses"
	routeModels    = "/v1/models"
	routeModel     = "/v1/models/{model}"
	routeRun       = "/v1/agents/{agent}/run"
	routeRunStart  = "/v1/agents/{agent}/runs"
	routeRuns      = "/v1/runs"
	routeRunGet    = "/v1/runs/{id}"
	routeDecisions = "/v1/runs/{id}/decisions"
	routeCancel    = "/v1/runs/{id}/cancel"
	routeOpenAPI   = "/openapi.json"
	routeMetrics   = "/metrics"
	routeHealth    = "/healthz"
	routeReady     = "/readyz"
	routeOther     = "other"
)

// Handler returns the server's HTTP handler:
//
//	POST /v1/chat/completions      OpenAI's Chat Completions; "model" names an agent
//	POST /v1/responses             OpenAI's Responses API, without stored responses
//	GET  /v1/models                the agents, as OpenAI's model list
//	GET  /v1/models/{model}        one agent
//	POST /v1/agents/{agent}/run    the agent service contract's run_agent
//	POST /v1/agents/{agent}/runs   start a durable run (202)
//	GET  /v1/runs, /v1/runs/{id}   durable runs: the caller's, one
//	POST /v1/runs/{id}/decisions   decide a run's pending calls
//	POST /v1/runs/{id}/cancel      cancel a run
//	GET  /openapi.json             the OpenAPI 3.1 document of these routes
//	GET  /metrics                  Prometheus metrics
//	GET  /healthz, /readyz         liveness and readiness (no credentials)
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, route, method string, acc access, h http.HandlerFunc) {
		mux.Handle(pattern, s.wrap(route, method, acc, h))
	}
	handle("/v1/chat/completions", routeChat, http.MethodPost, accessRun, s.chat)
	handle("/v1/responses", routeResponses, http.MethodPost, accessRun, s.responses)
	handle("/v1/models", routeModels, http.MethodGet, accessRead, s.models)
	handle("/v1/models/{model}", routeModel, http.MethodGet, accessRead, s.model)
	handle("/v1/agents/{agent}/run", routeRun, http.MethodPost, accessRun, s.runNative)
	handle("/v1/agents/{agent}/runs", routeRunStart, http.MethodPost, accessRun, s.startDurable)
	handle("/v1/runs", routeRuns, http.MethodGet, accessRead, s.listRuns)
	handle("/v1/runs/{id}", routeRunGet, http.MethodGet, accessRead, s.getRun)
	handle("/v1/runs/{id}/decisions", routeDecisions, http.MethodPost, accessRun, s.decideRun)
	handle("/v1/runs/{id}/cancel", routeCancel, http.MethodPost, accessRun, s.cancelRun)
	handle("/openapi.json", routeOpenAPI, http.MethodGet, accessRead, s.serveOpenAPI)
	handle("/metrics", routeMetrics, http.MethodGet, accessRead,
		promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelError)}).ServeHTTP)
	handle("/healthz", routeHealth, http.MethodGet, accessOpen, s.healthz)
	handle("/readyz", routeReady, http.MethodGet, accessOpen, s.readyz)
	handle("/", routeOther, "", accessRead, func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, &apiError{Status: http.StatusNotFound, Type: typeNotFound, Code: "unknown_route", Kind: kindNotFound,
			Message: fmt.Sprintf("There is no route %s %s. The routes are POST %s, POST %s, GET %s, POST %s, POST %s, GET %s, GET %s, POST %s, POST %s, GET %s, GET %s, GET %s and GET %s.",
				r.Method, r.URL.Path, routeChat, routeResponses, routeModels, routeRun, routeRunStart, routeRuns, routeRunGet, routeDecisions, routeCancel,
				routeOpenAPI, routeMetrics, routeHealth, routeReady)})
	})
	return mux
}

// lookup returns the served agent called name, or the 404 error with a
// did-you-mean; param names where the name came from ("model", "agent").
func (s *Server) lookup(name, param string) (*served, *apiError) {
	if a, ok := s.agents[name]; ok {
		return a, nil
	}
	msg := fmt.Sprintf("The model `%s` does not exist: no agent of that name is served here.", name)
	if name == "" {
		msg = fmt.Sprintf("No %s given: name one of the agents served here.", param)
	}
	if c := suggest.Closest(name, s.names); c != "" && name != "" {
		msg += fmt.Sprintf(" Did you mean `%s`?", c)
	}
	msg += " The agents are: " + strings.Join(s.names, ", ") + " (GET /v1/models lists them)."
	return nil, &apiError{Status: http.StatusNotFound, Type: typeInvalidRequest, Param: param, Code: "model_not_found", Kind: kindUnknownAgent, Message: msg}
}

// models answers GET /v1/models: the agents as OpenAI's model list.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	list := modelList{Object: "list", Data: []modelObject{}}
	for _, n := range s.names {
		list.Data = append(list.Data, s.modelObject(s.agents[n]))
	}
	writeJSON(w, http.StatusOK, list)
}

// model answers GET /v1/models/{model}.
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	a, aerr := s.lookup(r.PathValue("model"), "model")
	if aerr != nil {
		s.fail(w, r, aerr)
		return
	}
	writeJSON(w, http.StatusOK, s.modelObject(a))
}

// modelList is OpenAI's list of models.
type modelList struct {
	Object string        `json:"object"`
	Data   []modelObject `json:"data"`
}

// modelObject is an agent as OpenAI's model object, with what a client
// may want to show of it.
type modelObject struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	Description string `json:"description,omitempty"`
	Model       string `json:"gram_model"`
}

// modelObject returns the model object of an agent.
func (s *Server) modelObject(a *served) modelObject {
	return modelObject{ID: a.agent.Name, Object: "model", Created: s.created, OwnedBy: "gram",
		Description: a.agent.Description, Model: a.agent.Model.String()}
}
