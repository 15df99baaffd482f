// Package replay holds the HTTP transports around the model client that
// keep a session reproducible and its secrets safe: recording, replaying,
// tracing and redaction.
//
// # Entry points
//
//   - [NewRecorder] returns a transport that saves every request and
//     response to a JSON file ([Recording]; see [WriteRecording],
//     [ReadRecording]).
//   - [NewReplayer] answers from such a file with no network, in order; a
//     request that differs from the recorded one fails with an [*Error]
//     naming the first JSON pointer where the bodies differ.
//   - [NewTracer] prints every request and response.
//   - [NewRedactor] returns a [Redactor] that masks the given secrets (and
//     anything shaped like an API key, and the credentials of every URL)
//     in text, in a streamed answer whose pieces split one, in what an
//     [io.Writer] receives and in what an HTTP transport sends on, also
//     where a secret is JSON-escaped, URL-encoded or in base64. Recordings and traces
//     replace credential headers by [Redacted]. [ProcessSecrets] finds
//     the secrets a process holds (credential-like variables, headers,
//     URL credentials) for it.
//   - [RecordTarget] says where a recording may be written: never over a
//     file the session reads ([Input]), nor over one that is not a
//     recording unless forced.
//
// Package github.com/gramlang/gram/runtime uses these transports for its
// OpenAI-compatible model client; this package does not depend on it.
package replay
