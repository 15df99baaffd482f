// Streaming on Anthropic's Messages API: the SDK's streaming request and
// event-stream decoder, its events assembled into a message by the SDK's
// Message.Accumulate (text blocks, tool_use blocks whose input arrives as
// pieces of JSON, the usage of message_start and message_delta). Retries
// follow the rules of [OpenAIModel.Stream]: an attempt that fails before
// any text was delivered is retried; after text was delivered the call
// fails with an [LLMError] of kind [LLMStreamCut] and the partial reply.

package runtime

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gramlang/gram/runtime/replay"
)

// errAnthropicUnfinished is a stream that ended before message_stop.
var errAnthropicUnfinished = errors.New("the stream ended before the answer was complete (no message_stop)")

// Stream implements [StreamingModel]: a streamed Messages request whose
// text deltas are passed to text as they arrive (masked like the rest of
// the answer) and whose events are assembled into the reply. Each attempt
// is limited by req.Timeout.
func (m *AnthropicModel) Stream(ctx context.Context, req *Request, text func(string)) (*Reply, error) {
	params, err := anthropicParams(req)
	if err != nil {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: 0, Err: err}
	}
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithValue(ctx, streamKey{}, true), context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(actx, req.Timeout)
		}
		mask := m.redact.NewStreamMasker(text)
		msg, err := m.readStream(actx, params, req, mask)
		var (
			bad     *LLMError
			unsaved *replay.WriteError
		)
		switch {
		case err == nil:
			mask.Flush()
			cancel()
			return redactReply(m.redact, anthropicReply(msg)), nil
		case errors.As(err, &unsaved):
			cancel()
			return m.partialReply(mask, msg), unsaved
		case errors.As(err, &bad) && bad.Kind == LLMBadResponse:
			// The server answered: asking again would most likely get
			// the same.
			bad.Attempts = attempt
			cancel()
			return m.partialReply(mask, msg), bad
		}
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if mask.Delivered() {
			partial := m.partialReply(mask, msg)
			kind := LLMStreamCut
			if timedOut {
				kind = LLMTimeout
			}
			return partial, &LLMError{Kind: kind, Attempts: attempt, Timeout: req.Timeout,
				Err: fmt.Errorf("the answer stopped after %d characters: %s", utf8.RuneCountInString(partial.Message.Content), m.redact.String(err.Error()))}
		}
		if timedOut && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w: %v", context.DeadlineExceeded, err)
		}
		if err := m.retryOrFail(ctx, err, attempt, req.Timeout); err != nil {
			return nil, err
		}
	}
}

// readStream sends the streamed request and accumulates its events into a
// message, writing the text deltas to mask. It returns the message so far
// with any error; a stream that ends before message_stop is an error.
func (m *AnthropicModel) readStream(ctx context.Context, params anthropic.MessageNewParams, req *Request, mask *replay.StreamMasker) (*anthropic.Message, error) {
	stream := m.svc.NewStreaming(ctx, params, anthropicOptions(req)...)
	defer stream.Close()
	msg := &anthropic.Message{}
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return msg, &LLMError{Kind: LLMBadResponse, Err: errors.New(m.redact.String(err.Error()))}
		}
		switch ev.Type {
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
				mask.Write(ev.Delta.Text)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return msg, err
	}
	// A recorder saves the stream when its body is closed.
	var unsaved *replay.WriteError
	if err := stream.Close(); errors.As(err, &unsaved) {
		return msg, unsaved
	}
	if !stopped {
		return msg, errAnthropicUnfinished
	}
	return msg, nil
}

// partialReply is the reply of a stream that failed: the text delivered,
// or nil when none was.
func (m *AnthropicModel) partialReply(mask *replay.StreamMasker, msg *anthropic.Message) *Reply {
	if !mask.Delivered() {
		return nil
	}
	mask.Flush()
	text := ""
	for _, b := range msg.Content {
		if b.Type == "text" {
			text += b.Text
		}
	}
	return &Reply{Message: Message{Role: RoleAssistant, Content: m.redact.String(text)}}
}
