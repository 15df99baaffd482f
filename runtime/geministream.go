// Streaming on the Gemini API: the SDK's streamGenerateContent (an event
// stream of whole GenerateContentResponse chunks), each chunk's text parts
// passed on as they come, its function calls (which come whole in a
// chunk) collected, the usage read from the last chunk's usageMetadata.
// Retries follow the rules of [OpenAIModel.Stream]: an attempt that fails
// before any text was delivered is retried; after text was delivered the
// call fails with an [LLMError] of kind [LLMStreamCut] and the partial
// reply.

package runtime

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gramlang/gram/runtime/replay"
)

// errGeminiUnfinished is a stream that ended before a chunk gave the
// finish reason.
var errGeminiUnfinished = errors.New("the stream ended before the answer was complete (no finishReason)")

// Stream implements [StreamingModel]: a streamed generateContent request
// whose text parts are passed to text as they arrive (masked like the
// rest of the answer) and whose chunks are assembled into the reply. Each
// attempt is limited by req.Timeout.
func (m *GeminiModel) Stream(ctx context.Context, req *Request, text func(string)) (*Reply, error) {
	contents, config, err := geminiParams(req)
	if err != nil {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: 0, Err: err}
	}
	// The SDK's resuming of a broken stream is off: the rules above apply.
	off := false
	config.AutomaticContinuation = &off
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithValue(ctx, streamKey{}, true), context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(actx, req.Timeout)
		}
		mask := m.redact.NewStreamMasker(text)
		reply, err := m.readStream(actx, req.Model, contents, config, mask)
		if err == nil {
			mask.Flush()
			cancel()
			return redactReply(m.redact, reply), nil
		}
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if mask.Delivered() {
			mask.Flush()
			partial := &Reply{Message: Message{Role: RoleAssistant, Content: m.redact.String(reply.Message.Content)}}
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

// readStream sends the streamed request and assembles its chunks into a
// reply, writing the text parts to mask. It returns the reply so far with
// any error; a stream that ends without a finish reason is an error.
func (m *GeminiModel) readStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig, mask *replay.StreamMasker) (*Reply, error) {
	r := &Reply{Message: Message{Role: RoleAssistant}}
	var finish genai.FinishReason
	blocked := false
	parts := 0
	for chunk, err := range m.models.GenerateContentStream(ctx, model, contents, config) {
		if err != nil {
			return r, err
		}
		if chunk == nil {
			continue
		}
		if u := chunk.UsageMetadata; u != nil {
			r.Usage = geminiUsage(u)
		}
		if chunk.PromptFeedback != nil && chunk.PromptFeedback.BlockReason != "" {
			blocked = true
		}
		if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
			continue
		}
		c := chunk.Candidates[0]
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				switch {
				case p == nil || p.Thought:
				case p.FunctionCall != nil:
					r.Message.ToolCalls = append(r.Message.ToolCalls, geminiToolCall(p.FunctionCall, parts))
				case p.Text != "":
					r.Message.Content += p.Text
					mask.Write(p.Text)
				}
				parts++
			}
		}
		if c.FinishReason != "" {
			finish = c.FinishReason
		}
	}
	switch {
	case finish != "":
		r.FinishReason = geminiFinishReason(finish, len(r.Message.ToolCalls) > 0)
	case blocked:
		r.FinishReason = "content_filter"
	default:
		return r, errGeminiUnfinished
	}
	return r, nil
}
