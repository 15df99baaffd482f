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
	"encoding/json"
	"errors"
	"fmt"
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
// chunks assembled by openai-go's accumulator (a server that answers with
// a whole completion instead is understood too, its text in one piece). Each attempt is limited by
// req.Timeout. An attempt that fails before any text was delivered is
// retried as [OpenAIModel.Complete] retries; after text was delivered the
// call fails with an [LLMError] of kind [LLMStreamCut] and the partial
// reply. The text is masked like the rest of the answer: a secret split
// across pieces is held back until it can be masked whole.
func (m *OpenAIModel) Stream(ctx context.Context, req *Request, text func(string)) (*Reply, error) {
	params := m.params(req)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithValue(ctx, streamKey{}, true), context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(actx, req.Timeout)
		}
		mask := m.redact.NewStreamMasker(text)
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
					mask.Write(d.Content)
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
			mask.Flush()
			cancel()
			return m.streamReply(&acc.ChatCompletion, attempt, !message)
		}
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if mask.Delivered() {
			// The caller has seen text: asking again would show it twice,
			// maybe different. The text seen so far is the partial reply.
			mask.Flush()
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

// streamKey marks the context of a streamed request, for the transports.
type streamKey struct{}

// streamRequested reports whether ctx is that of a streamed request.
func streamRequested(ctx context.Context) bool {
	on, _ := ctx.Value(streamKey{}).(bool)
	return on
}

// completionAsStream turns the JSON chat completion of a server that does
// not stream (it ignored "stream": true) into the event stream it stands
// for: one chunk with the whole message, one with the finish_reason, one
// with the usage. It reports false when body is not a chat completion.
func completionAsStream(body []byte) ([]byte, bool) {
	var comp struct {
		ID      string          `json:"id"`
		Created int64           `json:"created"`
		Model   string          `json:"model"`
		Usage   json.RawMessage `json:"usage"`
		Choices []struct {
			Index   int `json:"index"`
			Message *struct {
				Role      string          `json:"role"`
				Content   *string         `json:"content"`
				Refusal   *string         `json:"refusal"`
				ToolCalls json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &comp) != nil || len(comp.Choices) == 0 {
		return nil, false
	}
	var out bytes.Buffer
	event := func(choices []any, usage json.RawMessage) {
		c := map[string]any{"id": comp.ID, "object": "chat.completion.chunk", "created": comp.Created, "model": comp.Model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		out.WriteString("data: ")
		out.Write(b)
		out.WriteString("\n\n")
	}
	for _, ch := range comp.Choices {
		if m := ch.Message; m != nil {
			delta := map[string]any{"role": "assistant"}
			if m.Content != nil {
				delta["content"] = *m.Content
			}
			if m.Refusal != nil {
				delta["refusal"] = *m.Refusal
			}
			var calls []map[string]any
			if json.Unmarshal(m.ToolCalls, &calls) == nil && len(calls) > 0 {
				for i, c := range calls {
					c["index"] = i
				}
				delta["tool_calls"] = calls
			}
			event([]any{map[string]any{"index": ch.Index, "delta": delta, "finish_reason": nil}}, nil)
		}
		event([]any{map[string]any{"index": ch.Index, "delta": map[string]any{}, "finish_reason": ch.FinishReason}}, nil)
	}
	if len(comp.Usage) > 0 && string(comp.Usage) != "null" {
		event([]any{}, comp.Usage)
	}
	out.WriteString("data: [DONE]\n\n")
	return out.Bytes(), true
}
