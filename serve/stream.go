// Streamed chat completions: server-sent events in OpenAI's chunk format.
// The answer's headers wait for the run to get under way (the first model
// answer), so that a run that fails at once is answered with its HTTP
// status; from then on text is sent as the model writes it, each model
// call's text after the previous one's separated by a blank line, and the
// stream ends with a chunk carrying the finish reason, a usage chunk when
// stream_options.include_usage asks for one, and "data: [DONE]". A run
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
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// eventStream writes the events of one streamed answer.
type eventStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	base    completion
	started bool
	err     error // the first write error: the client is gone
	wrote   bool  // text was sent
	iter    int   // the model call whose text was sent last
	final   bool  // the text of the summary call (iteration 0) was sent
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
	empty := ""
	es.send(es.chunk(chunkDelta{Role: "assistant", Content: &empty}, nil))
}

// chunk returns a chunk of the answer.
func (es *eventStream) chunk(d chunkDelta, finish *string) chunk {
	return chunk{ID: es.base.ID, Object: "chat.completion.chunk", Created: es.base.Created, Model: es.base.Model,
		Choices: []chunkChoice{{Delta: d, FinishReason: finish}}}
}

// send writes one event.
func (es *eventStream) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	es.write(append(append([]byte("data: "), b...), '\n', '\n'))
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
	es.send(es.chunk(chunkDelta{Content: &t}, nil))
}

// event handles an event of the run.
func (es *eventStream) event(e runtime.Event) {
	switch e.Type {
	case runtime.EventTextDelta:
		es.text(e.Iteration, e.Text)
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
	es := &eventStream{w: w, rc: http.NewResponseController(w), base: c}
	out := s.runAgent(ctx, st, a, conv, true, es.event, req.opts...)
	st.busy = out.busy()
	if es.started {
		defer out.serverTiming(w.Header()) // the trailer, after the events
	}
	if out.err != nil {
		aerr := s.runError(out.err)
		if !es.started {
			s.fail(w, r, aerr)
			return
		}
		st.kind = aerr.Kind
		s.metrics.errors.WithLabelValues(aerr.Kind).Inc()
		if aerr.Status == statusClientGone {
			st.status = statusClientGone
			return
		}
		es.send(errorBody{aerr.object()})
		return
	}
	resp := out.resp
	es.start()
	if resp.Status == runtime.StatusMaxIterations && !es.final {
		// No summary was streamed: the answer is the fixed message.
		es.text(0, resp.Content)
	}
	finish := finishReason(resp.Status)
	last := es.chunk(chunkDelta{}, &finish)
	last.Gram = info(resp, warnings)
	es.send(last)
	if req.includeUsage {
		u := usageOf(resp.Usage)
		uc := es.chunk(chunkDelta{}, nil)
		uc.Choices = []chunkChoice{}
		uc.Usage = &u
		es.send(uc)
	}
	es.write([]byte("data: [DONE]\n\n"))
	if es.err != nil {
		st.status = statusClientGone
	}
}
