// Streamed chat completions: server-sent events in OpenAI's chunk format.
// The answer's headers wait for the run to get under way (the first model
// answer), so that a run that fails at once is answered with its HTTP
// status; from then on text is sent as the model writes it, each model
// call's text after the previous one's separated by a blank line, and the
// stream ends with a chunk carrying the finish reason, a usage chunk when
// stream_options.include_usage asks for one, and "data: [DONE]"; a run
// that stopped at the client's tool calls sends them in a chunk before
// the one with the finish reason "tool_calls". A run
// that fails after the headers went out ends the stream with an error
// event, {"error": {...}}, as OpenAI's own streams do. The Server-Timing
// of the run (its model and tool time) comes as a trailer.

package serve

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gramlang/gram/runtime"
)

// chunk is a chat completion chunk.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint *string       `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *usage        `json:"usage,omitempty"`
	Gram              *gramInfo     `json:"gram,omitempty"`
}

// chunkChoice is the one choice of a chunk.
type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
	Logprobs     *struct{}  `json:"logprobs"`
}

// chunkDelta is what a chunk adds to the message.
type chunkDelta struct {
	Role      string               `json:"role,omitempty"`
	Content   *string              `json:"content,omitempty"`
	ToolCalls []completionToolCall `json:"tool_calls,omitempty"`
}

// streamFormat is the shape of a streamed answer's events: a chat
// completion's chunks, or a response's events (see responses.go).
type streamFormat interface {
	// opening sends the first events, once the headers went out.
	opening(es *eventStream)
	// delta sends a piece of the answer's text.
	delta(es *eventStream, text string)
}

// eventStream writes the events of one streamed answer.
type eventStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	format  streamFormat
	started bool
	err     error // the first write error: the client is gone
	wrote   bool  // text was sent
	iter    int   // the model call whose text was sent last
	final   bool  // the text of the summary call (iteration 0) was sent
	// typed: the agent has a result type; its answer is sent once
	// checked, in one piece, never as the model writes it.
	typed bool
}

// start sends the headers and the first chunk, once.
func (es *eventStream) start() {
	if es.started {
		return
	}
	es.started = true
	h := es.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("Trailer", "Server-Timing")
	es.w.WriteHeader(http.StatusOK)
	es.format.opening(es)
}

// chatChunks is the format of a streamed chat completion: chunks of base.
type chatChunks struct{ base completion }

// opening sends the chunk that opens the assistant's message.
func (f chatChunks) opening(es *eventStream) {
	empty := ""
	es.send(f.chunk(chunkDelta{Role: "assistant", Content: &empty}, nil))
}

// delta sends a chunk of text.
func (f chatChunks) delta(es *eventStream, text string) {
	es.send(f.chunk(chunkDelta{Content: &text}, nil))
}

// chunk returns a chunk of the answer.
func (f chatChunks) chunk(d chunkDelta, finish *string) chunk {
	return chunk{ID: f.base.ID, Object: "chat.completion.chunk", Created: f.base.Created, Model: f.base.Model,
		Choices: []chunkChoice{{Delta: d, FinishReason: finish}}}
}

// send writes one event of data v.
func (es *eventStream) send(v any) { es.sendEvent("", v) }

// sendEvent writes one event of data v, named when name is not empty.
func (es *eventStream) sendEvent(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	var line []byte
	if name != "" {
		line = append(append([]byte("event: "), name...), '\n')
	}
	es.write(append(append(append(line, "data: "...), b...), '\n', '\n'))
}

// write writes bytes and flushes them, remembering the first error.
func (es *eventStream) write(b []byte) {
	if es.err != nil {
		return
	}
	if _, err := es.w.Write(b); err != nil {
		es.err = err
		return
	}
	if err := es.rc.Flush(); err != nil {
		es.err = err
	}
}

// text sends a piece of the model's text.
func (es *eventStream) text(iter int, t string) {
	if t == "" {
		return
	}
	es.start()
	if es.wrote && iter != es.iter {
		t = "\n\n" + t
	}
	es.wrote, es.iter = true, iter
	if iter == 0 {
		es.final = true
	}
	es.format.delta(es, t)
}

// event handles an event of the run.
func (es *eventStream) event(e runtime.Event) {
	switch e.Type {
	case runtime.EventTextDelta:
		if !es.typed {
			es.text(e.Iteration, e.Text)
		}
	case runtime.EventModelTurnFinished:
		if e.Err == nil && e.Error == "" {
			es.start()
		}
	case runtime.EventToolCallStarted:
		es.start()
	}
}

// chatStream runs the agent and streams its answer.
func (s *Server) chatStream(ctx context.Context, w http.ResponseWriter, r *http.Request, st *requestState, a *served,
	conv runtime.Conversation, req *chatRequest, c completion, warnings []string) {
	f := chatChunks{base: c}
	es := &eventStream{w: w, rc: http.NewResponseController(w), format: f}
	resp := s.streamRun(ctx, w, r, st, a, conv, es, req.opts, func(aerr *apiError) { es.send(errorBody{aerr.object()}) })
	if resp == nil {
		return
	}
	if calls := wireCalls(resp, true); len(calls) > 0 {
		es.send(f.chunk(chunkDelta{ToolCalls: calls}, nil))
	}
	finish := finishReason(resp.Status)
	last := f.chunk(chunkDelta{}, &finish)
	last.Gram = info(resp, warnings)
	es.send(last)
	if req.includeUsage {
		u := usageOf(resp.Usage)
		uc := f.chunk(chunkDelta{}, nil)
		uc.Choices = []chunkChoice{}
		uc.Usage = &u
		es.send(uc)
	}
	es.write([]byte("data: [DONE]\n\n"))
	if es.err != nil {
		st.status = statusClientGone
	}
}

// streamRun runs the agent for a streamed answer, its text sent on es as
// the model writes it. A run that fails before the headers went out is
// answered with its status, and one that fails after with failed's
// events; both return nil. Otherwise it returns the run's response, the
// text complete on es (the fixed message of a run at its limit without a
// summary included; the answer of an agent with a result type, sent in
// one piece once checked, as its JSON text), for the caller to send the
// closing events. The Server-Timing trailer is set when the handler
// returns.
func (s *Server) streamRun(ctx context.Context, w http.ResponseWriter, r *http.Request, st *requestState, a *served,
	conv runtime.Conversation, es *eventStream, opts []runtime.Option, failed func(*apiError)) *runtime.Response {
	es.typed = a.agent.Result() != nil
	out := s.runAgent(ctx, st, a, conv, true, es.event, opts...)
	st.busy = out.busy()
	if es.started {
		// The trailer, which the server sends when the handler returns.
		defer out.serverTiming(w.Header())
	}
	if out.err != nil {
		aerr := s.runError(out.err)
		if !es.started {
			s.fail(w, r, aerr)
			return nil
		}
		st.kind = aerr.Kind
		s.metrics.errors.WithLabelValues(aerr.Kind).Inc()
		if aerr.Status == statusClientGone {
			st.status = statusClientGone
			return nil
		}
		failed(aerr)
		return nil
	}
	resp := out.resp
	es.start()
	if es.typed && resp.Status != runtime.StatusToolCalls {
		es.text(0, answerText(resp))
	} else if resp.Status == runtime.StatusMaxIterations && !es.final || resp.Status == runtime.StatusMaxModelCalls || resp.Status == runtime.StatusBudgetExceeded {
		// No summary was streamed: the answer is the fixed message.
		es.text(0, answerText(resp))
	}
	return resp
}
