// Streamed model answers: the text arrives as it is generated.
//
// A [StreamingModel] calls back with each piece of text; [OpenAIModel]
// streams with openai-go's chat completion stream and assembles the reply
// (tool calls included, whatever the order of their pieces) with the SDK's
// ChatCompletionAccumulator.
//
// Retries: an attempt that fails before any text was delivered is retried
// like a call that is not streamed (the caller has seen nothing). Once text
// was delivered it is not: the stream ends the call with an [LLMError] of
// kind [LLMStreamCut] that keeps the text delivered, which the run keeps
// in the conversation as the assistant's (partial) message.

package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
)

// LLMStreamCut: a streamed answer ended before the server said it was
// complete (the connection dropped, or the stream stopped without a
// finish_reason) after some of its text was delivered.
const LLMStreamCut LLMErrorKind = "stream_cut"

// StreamingModel is a [Model] that can stream its answers: Stream calls
// text with each piece of the answer's text as it arrives, in order, and
// returns the whole reply at the end. When it fails after text was
// delivered, it returns the partial reply (the text delivered) with the
// error.
type StreamingModel interface {
	Model
	Stream(ctx context.Context, req *Request, text func(string)) (*Reply, error)
}

// complete makes the model call of one iteration, streamed when the run
// streams and the model can, and reports its text and its end as events.
// A streamed answer cut after some text keeps that text in the
// conversation.
func (r *runner) complete(ctx context.Context, iter int, req *Request) (*Reply, error) {
	if r.cfg.events == nil && !r.cfg.streamed() {
		return r.cfg.model.Complete(ctx, req)
	}
	start := time.Now()
	var (
		reply *Reply
		err   error
	)
	sm, ok := r.cfg.model.(StreamingModel)
	if ok && r.cfg.streamed() {
		reply, err = sm.Stream(ctx, req, func(s string) {
			r.emit(Event{Type: EventTextDelta, Iteration: iter, Text: s})
		})
	} else {
		reply, err = r.cfg.model.Complete(ctx, req)
		if err == nil && reply != nil && reply.Message.Content != "" {
			r.emit(Event{Type: EventTextDelta, Iteration: iter, Text: reply.Message.Content})
		}
	}
	if err != nil {
		if reply != nil && reply.Message.Content != "" {
			// The text the user has seen stays in the transcript.
			r.resp.Conversation = append(r.resp.Conversation, Message{Role: RoleAssistant, Content: reply.Message.Content})
		}
		r.emit(Event{Type: EventModelTurnFinished, Iteration: iter, Duration: time.Since(start), Err: asRunError(err)})
		return nil, err
	}
	if reply != nil {
		u := reply.Usage
		r.emit(Event{Type: EventModelTurnFinished, Iteration: iter, Duration: time.Since(start), Usage: &u,
			FinishReason: reply.FinishReason, ToolCalls: len(reply.Message.ToolCalls)})
	}
	return reply, nil
}

// Stream implements [StreamingModel]: a streamed chat completion, its
// chunks assembled by openai-go's accumulator. Each attempt is limited by
// req.Timeout. An attempt that fails before any text was delivered is
// retried as [OpenAIModel.Complete] retries; after text was delivered the
// call fails with an [LLMError] of kind [LLMStreamCut] and the partial
// reply. The text is masked like the rest of the answer: a secret split
// across pieces is held back until it can be masked whole.
func (m *OpenAIModel) Stream(ctx context.Context, req *Request, text func(string)) (*Reply, error) {
	params := m.params(req)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	for attempt := 1; ; attempt++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, req.Timeout)
		}
		mask := newDeltaMasker(m.redact, text)
		acc := openai.ChatCompletionAccumulator{}
		stream := m.svc.NewStreaming(actx, params)
		chunks := 0
		message := false // a chunk had a delta: the answer has a message
		for stream.Next() {
			chunk := stream.Current()
			if !acc.AddChunk(chunk) {
				stream.Close()
				cancel()
				return nil, &LLMError{Kind: LLMBadResponse, Attempts: attempt,
					Err: fmt.Errorf("chunk %d of the stream does not follow the ones before", chunks+1)}
			}
			chunks++
			for _, ch := range chunk.Choices {
				if ch.Index != 0 {
					continue
				}
				d := &ch.Delta
				message = message || d.JSON.Role.Valid() || d.JSON.Content.Valid() || d.JSON.Refusal.Valid() || len(d.ToolCalls) > 0
				if d.Content != "" {
					mask.write(d.Content)
				}
			}
		}
		err := stream.Err()
		stream.Close()
		finished := len(acc.Choices) > 0 && acc.Choices[0].FinishReason != ""
		if err == nil && !finished {
			err = errStreamUnfinished
		}
		if err == nil {
			mask.flush()
			cancel()
			return m.streamReply(&acc.ChatCompletion, attempt, !message)
		}
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if mask.delivered {
			// The caller has seen text: asking again would show it twice,
			// maybe different. The text seen so far is the partial reply.
			mask.flush()
			partial := &Reply{Message: Message{Role: RoleAssistant, Content: m.redact.String(partialContent(&acc))}}
			kind, detail := LLMStreamCut, err
			if timedOut {
				kind = LLMTimeout
			}
			return partial, &LLMError{Kind: kind, Attempts: attempt, Timeout: req.Timeout,
				Err: fmt.Errorf("the answer stopped after %d characters: %s", utf8.RuneCountInString(partial.Message.Content), m.redact.String(detail.Error()))}
		}
		if timedOut && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %v", context.DeadlineExceeded, err)
		}
		if err := m.retryOrFail(ctx, err, attempt, req.Timeout); err != nil {
			return nil, err
		}
	}
}

// errStreamUnfinished is a stream that ended without a finish_reason.
var errStreamUnfinished = errors.New("the stream ended before the answer was complete (no finish_reason)")

// partialContent is the text accumulated so far.
func partialContent(acc *openai.ChatCompletionAccumulator) string {
	if len(acc.Choices) == 0 {
		return ""
	}
	return acc.Choices[0].Message.Content
}

// streamReply converts an accumulated stream: noMessage is set when no
// chunk had a delta (the stream's form of "message": null). The text and
// arguments were assembled from pieces, so secrets are masked again.
func (m *OpenAIModel) streamReply(comp *openai.ChatCompletion, attempts int, noMessage bool) (*Reply, error) {
	r, err := m.reply(comp, attempts)
	if err != nil {
		return nil, err
	}
	r.NoMessage = noMessage
	r.Message.Content = m.redact.String(r.Message.Content)
	for i := range r.Message.ToolCalls {
		r.Message.ToolCalls[i].Arguments = m.redact.String(r.Message.ToolCalls[i].Arguments)
	}
	return r, nil
}

// deltaMasker passes text on as it arrives, masking secrets: it holds
// back a tail of the text that could be the start of a secret (or of an
// API-key-like token) until the text that follows tells, and masks the
// rest.
type deltaMasker struct {
	r         Redactor
	out       func(string)
	pend      []byte
	delivered bool
}

// partialKey matches, at the end of a text, what could be the start of a
// key-like token (see keyLike).
var partialKey = regexp.MustCompile(`\bs(?:k(?:(?:-|\\+(?:u(?:0(?:0(?:2[dD]?)?)?)?)?|%(?:2[dD]?)?)[A-Za-z0-9_*.\-]*)?)?$`)

func newDeltaMasker(r Redactor, out func(string)) *deltaMasker {
	return &deltaMasker{r: r, out: out}
}

// write takes a piece of text and passes on what is safe to.
func (d *deltaMasker) write(s string) {
	d.pend = append(d.pend, s...)
	cut := d.safe()
	for cut > 0 && cut < len(d.pend) && !utf8.RuneStart(d.pend[cut]) {
		cut--
	}
	if cut <= 0 {
		return
	}
	d.send(d.pend[:cut])
	d.pend = append(d.pend[:0], d.pend[cut:]...)
}

// safe returns how much of the pending text can be passed on: up to the
// first place from which the rest could begin a secret.
func (d *deltaMasker) safe() int {
	b := d.pend
	cut := len(b)
	for _, n := range d.r.needles {
		for p := max(0, len(b)-len(n)); p < cut; p++ {
			if bytes.HasPrefix([]byte(n), b[p:]) {
				cut = p
				break
			}
		}
	}
	if loc := partialKey.FindIndex(b); loc != nil {
		cut = min(cut, loc[0])
	}
	for _, sp := range d.r.spans(b) {
		if sp[1] == len(b) || sp[0] < cut && sp[1] > cut {
			// A token at the very end may go on; one across the cut
			// must go whole.
			cut = min(cut, sp[0])
		}
	}
	return cut
}

// flush passes on what is held back.
func (d *deltaMasker) flush() {
	if len(d.pend) > 0 {
		d.send(d.pend)
		d.pend = d.pend[:0]
	}
}

func (d *deltaMasker) send(b []byte) {
	d.delivered = true
	if d.out != nil {
		d.out(string(d.r.Bytes(b)))
	}
}

// spans returns the spans of b a Redactor masks.
func (r Redactor) spans(b []byte) [][2]int {
	spans := r.find(b)
	if !bytes.Contains(b, []byte("sk")) {
		return spans // keyLike cannot match: skip the regular expression
	}
	for _, loc := range keyLike.FindAllIndex(b, -1) {
		spans = append(spans, [2]int{loc[0], loc[1]})
	}
	return spans
}

// retryOrFail decides after a failed attempt: it waits and returns nil
// when the call is to be retried, and returns the error to give up with
// otherwise.
func (m *OpenAIModel) retryOrFail(ctx context.Context, err error, attempt int, timeout time.Duration) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	lerr, retry := m.classify(err, attempt, timeout)
	if lerr.StatusCode == http.StatusUnauthorized || lerr.StatusCode == http.StatusForbidden {
		return m.keyRejected(lerr)
	}
	if !retry || attempt > m.retry.MaxRetries {
		return lerr
	}
	var h http.Header
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Response != nil {
		h = apiErr.Response.Header
	}
	wait, told := retryAfter(h, time.Now())
	if told && wait > m.retry.MaxRetryAfter {
		m.log.Warn("model asks to wait longer than allowed; not retrying",
			"provider", string(m.cfg.Provider), "wait", wait, "max", m.retry.MaxRetryAfter)
		return lerr
	}
	if !told {
		wait = m.retry.Backoff(attempt - 1)
	}
	m.log.Warn("model call failed; retrying", "provider", string(m.cfg.Provider),
		"attempt", attempt, "kind", string(lerr.Kind), "status", lerr.StatusCode, "wait", wait, "retryAfter", told)
	return m.retry.Sleep(ctx, wait)
}

// isEventStream reports whether a response is a server-sent event stream.
func isEventStream(resp *http.Response) bool {
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	return strings.HasPrefix(strings.TrimSpace(ct), "text/event-stream")
}
