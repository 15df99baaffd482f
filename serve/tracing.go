// Traces: OpenTelemetry spans following the GenAI semantic conventions,
// exported over OTLP/HTTP when configured, with the official Go SDK. A
// request has a server span; its run an invoke_agent span; each model call
// a chat span and each tool call an execute_tool span, children of the
// run's, with gen_ai.* attributes (operation, provider, model, agent, tool,
// token usage, finish reasons). A sub-agent's run has its own invoke_agent
// span, a child of the execute_tool span of the call that started it (see
// nested.go). Messages, tool arguments and results are
// not recorded, nor any credential.

package serve

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/gramlang/gram/schema"
)

// Tracing configures the export of traces.
type Tracing struct {
	// Endpoint is the URL of an OTLP/HTTP collector
	// ("http://localhost:4318"; traces go to its /v1/traces, unless the URL
	// ends with that path already). Empty: the
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
	// environment variable if set (with the SDK's other OTEL_EXPORTER_OTLP_*
	// settings), else no export.
	Endpoint string
	// Exporter, when set, receives the spans instead (synchronously), for
	// tests.
	Exporter sdktrace.SpanExporter
	// ServiceName is the service.name of the spans' resource (default
	// "gramc-serve", or OTEL_SERVICE_NAME).
	ServiceName string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// tracing is the tracer and what ends it.
type tracing struct {
	tracer   trace.Tracer
	provider *sdktrace.TracerProvider // nil when nothing is exported
	prop     propagation.TextMapPropagator
	endpoint string // where spans go, for the start message; "" for none
}

// newTracing sets up the tracer of cfg.
func newTracing(cfg Tracing, version string) (*tracing, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	t := &tracing{tracer: noop.NewTracerProvider().Tracer(""), prop: propagation.TraceContext{}}
	var opts []sdktrace.TracerProviderOption
	switch {
	case cfg.Exporter != nil:
		opts = append(opts, sdktrace.WithSyncer(cfg.Exporter))
		t.endpoint = "the given exporter"
	case cfg.Endpoint != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		var eopts []otlptracehttp.Option
		t.endpoint = cfg.Endpoint
		if cfg.Endpoint != "" {
			u := strings.TrimSuffix(cfg.Endpoint, "/")
			if !strings.HasSuffix(u, "/v1/traces") {
				u += "/v1/traces"
			}
			eopts = append(eopts, otlptracehttp.WithEndpointURL(u))
		} else if e := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); e != "" {
			t.endpoint = e
		} else {
			t.endpoint = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		}
		exp, err := otlptracehttp.New(context.Background(), eopts...)
		if err != nil {
			return nil, fmt.Errorf("the OTLP exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	default:
		return t, nil
	}
	name := cfg.ServiceName
	if name == "" {
		name = getenv("OTEL_SERVICE_NAME")
	}
	if name == "" {
		name = "gramc-serve"
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(name), semconv.ServiceVersion(version))
	t.provider = sdktrace.NewTracerProvider(append(opts, sdktrace.WithResource(res))...)
	t.tracer = t.provider.Tracer("github.com/gramlang/gram/serve", trace.WithInstrumentationVersion(version))
	return t, nil
}

// shutdown flushes and stops the export.
func (t *tracing) shutdown(ctx context.Context) error {
	if t.provider == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// providerName is the gen_ai.provider.name of a model's provider.
func providerName(m schema.Model) attribute.KeyValue {
	switch m.Provider {
	case schema.OpenAI:
		return semconv.GenAIProviderNameOpenAI
	case "":
		return semconv.GenAIProviderNameKey.String("unknown")
	}
	return semconv.GenAIProviderNameKey.String(strings.ToLower(string(m.Provider)))
}

// agentAttributes are the attributes of an invoke_agent span.
func agentAttributes(a *schema.Agent, stream bool) []attribute.KeyValue {
	return []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		providerName(a.Model),
		semconv.GenAIAgentName(a.Name),
		semconv.GenAIRequestModel(a.Model.ID),
		semconv.GenAIRequestStream(stream),
	}
}

// chatAttributes are the attributes of a chat span.
func chatAttributes(a *schema.Agent, stream bool) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		providerName(a.Model),
		semconv.GenAIRequestModel(a.Model.ID),
		semconv.GenAIAgentName(a.Name),
		semconv.GenAIRequestStream(stream),
	}
	if t := a.Settings.Temperature; t != nil {
		attrs = append(attrs, semconv.GenAIRequestTemperature(*t))
	}
	if n := a.Settings.MaxTokens; n > 0 {
		attrs = append(attrs, semconv.GenAIRequestMaxTokens(n))
	}
	return attrs
}

// toolAttributes are the attributes of an execute_tool span.
func toolAttributes(name, callID, description string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(name),
		semconv.GenAIToolCallID(callID),
		semconv.GenAIToolTypeKey.String("function"),
	}
	if description != "" {
		attrs = append(attrs, semconv.GenAIToolDescription(description))
	}
	return attrs
}

// failSpan marks a span as failed with an error type.
func failSpan(span trace.Span, errType, msg string) {
	span.SetAttributes(semconv.ErrorTypeKey.String(errType))
	span.SetStatus(codes.Error, msg)
}
