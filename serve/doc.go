// Package serve serves gram agents over HTTP, so that any OpenAI client,
// and any service that follows the agent service contract, can call them.
//
// # Entry points
//
//   - [New] makes a [Server] from a [Config]: the agents ([runtime.Bound]: a
//     compiled agent, the tool library it binds to and the runtime options
//     of its runs), the credentials requests need ([AuthConfig]), the static
//     values of injected parameters, the [Limits], and where traces go
//     ([Tracing]).
//   - [Server.Handler] is the HTTP handler: POST /v1/chat/completions
//     (OpenAI's Chat Completions, "model" naming an agent, streamed as
//     server-sent events with "stream": true), POST /v1/responses
//     (OpenAI's Responses API, without stored responses), GET /v1/models, POST
//     /v1/agents/{agent}/run (the contract's run_agent, answered with its
//     response envelope), durable runs (POST /v1/agents/{agent}/runs, GET
//     /v1/runs and /v1/runs/{id}, POST /v1/runs/{id}/decisions and
//     /v1/runs/{id}/cancel; see [RunsConfig]), GET /openapi.json (OpenAPI
//     3.1), GET /metrics (Prometheus), GET /healthz and /readyz.
//   - [Server.Serve] answers a listener's connections, at most
//     [Limits].MaxConnections at once and each request's headers and body
//     within [Limits].ReadTimeout, until its context is done; then /readyz
//     and new runs answer 503 while the runs in progress finish within the
//     grace period ([Limits].Grace), the others are cancelled and it stops
//     accepting; [Server.Close] flushes the traces.
//   - Web pages: a request that runs an agent needs a JSON body, a page of
//     another origin needs to be allowed ([Config].AllowedOrigins,
//     [NormalizeOrigin]), and a server without credentials answers only
//     requests addressed to a loopback name or address.
//   - Credentials: [ParseKeys] reads a keys document (each key's SHA-256
//     hash, its identity and claims; [HashKey] hashes a key), [CheckClaims]
//     checks that every identity fills the injected parameters, and
//     [ParsePublicKey] reads the key that verifies JWTs ([JWTConfig]).
//     [IdentityFrom] returns a request's [Identity].
//   - Set-up from a command line (gramc serve): [LoadAuth] reads the
//     credentials' configuration from files and environment variables
//     ([AuthSources]), [ParseClaims] the claims that fill injected
//     parameters ([InjectedNames]), [CheckAddr] refuses to listen
//     beyond loopback without credentials, and [RunsConfig.Complete]
//     reads the run store's URL from the environment.
//
// # Statelessness
//
// The server keeps nothing between requests: the conversation travels with
// each one. Replicas behind any load balancer answer alike; the limits
// ([Limits]) hold per replica. Durable runs are the exception, and they
// live in the run store ([RunsConfig].Store), which replicas share: a run
// started by one is read, decided and cancelled through any, and executed
// by the process that started it or took it over (package durable). Only
// the identity that started a run, or one with the [ApproverClaim], sees
// it.
//
// # What is never written
//
// Credentials are compared by their hash and never appear in logs, errors,
// traces or metrics. A request's body and the model cannot set an injected
// parameter: the identity's claims and the static values do, for the tools
// of the served agent and of every agent it may come to, as a tool or by a
// handoff ([runtime.Bound.Program]). Errors are
// OpenAI error objects whose messages are for the end user; the technical
// cause is logged. Spans follow the OpenTelemetry GenAI semantic
// conventions without recording messages, arguments or results.
package serve
