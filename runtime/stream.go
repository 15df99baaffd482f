// Streamed model answers: the text arrives as it is generated.
//
// A [StreamingModel] calls back with each piece of text; [OpenAIModel]
// streams with openai-go's streaming request and event-stream decoder and
// assembles the reply (tool calls included, whatever the order of their
// pieces) with a small accumulator that agrees with the SDK's
// ChatCompletionAccumulator on the fields the runtime reads.
//
// Retries: an attempt that fails before any text was delivered is retried
// like a call that is not streamed (the caller has seen nothing). Once text
// was delivered it is not: the stream ends the call with an [LLMError] of
// kind [LLMStreamCut] that keeps the text delivered, which the run keeps
// in the conversation as the assistant's (partial) message. A stream that
// is not an answer (an event that is not a chunk, an error event, no chunk
// at all, [DONE] without a finish_reason) is what the server sent: it is
// reported as such and not retried.

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared/constant"

	"github.com/gramlang/gram/runtime/replay"
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
// conversation, and is the reply returned with the error.
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
		return reply, err
	}
	if reply != nil {
		u := reply.Usage
		r.emit(Event{Type: EventModelTurnFinished, Iteration: iter, Duration: time.Since(start), Usage: &u,
			FinishReason: reply.FinishReason, ToolCalls: len(reply.Message.ToolCalls)})
	}
	return reply, nil
}

// Stream implements [StreamingModel]: a streamed chat completion, sent by
// openai-go's streaming request and read with its event-stream decoder;
// each chunk is decoded into the few fields the runtime reads and assembled
// by a [streamAccumulator] (a server that answers with a whole completion
// instead is understood too, its text in one piece). Each attempt is
// limited by req.Timeout. An attempt that fails before any text was
// delivered is retried as [OpenAIModel.Complete] retries; after text was
// delivered the call fails with an [LLMError] of kind [LLMStreamCut] and
// the partial reply. The text is masked like the rest of the answer: a
// secret split across pieces is held back until it can be masked whole.
func (m *OpenAIModel) Stream(ctx context.Context, req *Request, text func(string)) (*Reply, error) {
	params := m.params(req)
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithValue(ctx, streamKey{}, true), context.CancelFunc(func() {})
		if req.Timeout > 0 {
			actx, cancel = context.WithTimeout(actx, req.Timeout)
		}
		mask := m.redact.NewStreamMasker(text)
		var acc streamAccumulator
		err := m.readStream(actx, params, func(c *streamChunk) error {
			if !acc.add(c) {
				return &LLMError{Kind: LLMBadResponse, Attempts: attempt,
					Err: fmt.Errorf("chunk %d of the stream does not follow the ones before", acc.chunks+1)}
			}
			for i := range c.Choices {
				if d := &c.Choices[i].Delta; c.Choices[i].Index == 0 && d.Content != nil && *d.Content != "" {
					mask.Write(*d.Content)
				}
			}
			return nil
		})
		switch {
		case err == errStreamDone && acc.finish == "":
			// The server said the answer was complete, and it is not.
			err = &streamFault{msg: "the stream ended ([DONE]) without a finish_reason"}
		case err == errStreamDone:
			err = nil
		}
		var (
			bad     *LLMError
			fault   *streamFault
			unsaved *replay.WriteError
		)
		if errors.As(err, &unsaved) {
			// The answer came, the recording of it failed.
			cancel()
			return m.partial(mask, &acc), unsaved
		}
		if errors.As(err, &fault) {
			err = &LLMError{Kind: LLMBadResponse, Attempts: attempt, Err: errors.New(m.redact.String(fault.msg))}
		}
		if errors.As(err, &bad) && bad.Kind == LLMBadResponse {
			// The server answered: asking again would most likely get the
			// same. The text shown so far stays.
			cancel()
			return m.partial(mask, &acc), err
		}
		if err == nil && acc.finish == "" {
			err = errStreamUnfinished
		}
		if err == nil {
			mask.Flush()
			cancel()
			return m.streamReply(acc.completion(), attempt, !acc.message)
		}
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if mask.Delivered() {
			// The caller has seen text: asking again would show it twice,
			// maybe different. The text seen so far is the partial reply.
			partial := m.partial(mask, &acc)
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

// partial is the reply of a stream that failed: the text delivered, or
// nil when none was.
func (m *OpenAIModel) partial(mask *replay.StreamMasker, acc *streamAccumulator) *Reply {
	if !mask.Delivered() {
		return nil
	}
	mask.Flush()
	return &Reply{Message: Message{Role: RoleAssistant, Content: m.redact.String(acc.content.String())}}
}

// readStream sends a streamed chat completion request with openai-go (its
// request building, transport and error handling) and calls each with the
// chunks of the answer, in order, until the stream ends (at [DONE] it
// returns errStreamDone), fails, or each returns an error. The SDK's event-stream decoder reads the events; their
// data is decoded into a [streamChunk] by a small decoder (see
// [readChunks]) rather than into the SDK's chunk type, whose decoding keeps
// every field's raw JSON and costs several times more.
func (m *OpenAIModel) readStream(ctx context.Context, params openai.ChatCompletionNewParams, each func(*streamChunk) error) error {
	var res *http.Response
	sdk := m.svc.NewStreaming(ctx, params, option.WithResponseInto(&res))
	defer sdk.Close()
	if err := sdk.Err(); err != nil {
		return err
	}
	// The SDK's stream is not advanced: the body is read here.
	dec := ssestream.NewDecoder(res)
	if dec == nil {
		return errors.New("the server sent no response body")
	}
	done, err := readChunks(dec, each)
	if err != nil {
		return err
	}
	// A recorder saves the stream when its body is closed: a recording
	// that cannot be written is said.
	var unsaved *replay.WriteError
	if err := res.Body.Close(); errors.As(err, &unsaved) {
		return unsaved
	}
	if done {
		return errStreamDone
	}
	return nil
}

// errStreamDone is the end of a stream at [DONE], which readStream
// returns for its caller to tell from a stream that just stopped.
var errStreamDone = errors.New("[DONE]")

// errStreamUnfinished is a stream that ended without a finish_reason.
var errStreamUnfinished = errors.New("the stream ended before the answer was complete (no finish_reason)")

// streamChunk is the part of a chat.completion.chunk the runtime reads.
type streamChunk struct {
	ID      string              `json:"id"`
	Choices []streamChunkChoice `json:"choices"`
	Usage   *streamUsage        `json:"usage"`
}

// streamUsage is the usage of a [streamChunk].
type streamUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// streamChunkChoice is a choice of a [streamChunk]: a null field stays
// nil, as one that is absent.
type streamChunkChoice struct {
	Index        int64       `json:"index"`
	Delta        streamDelta `json:"delta"`
	FinishReason *string     `json:"finish_reason"`
}

// streamDelta is the delta of a [streamChunkChoice].
type streamDelta struct {
	Role      *string           `json:"role"`
	Content   *string           `json:"content"`
	Refusal   *string           `json:"refusal"`
	ToolCalls []streamCallDelta `json:"tool_calls"`
	// FunctionCall is a piece of a legacy function call (the deprecated
	// "functions" API), which the runtime runs as a tool call.
	FunctionCall *streamFunction `json:"function_call"`
}

// streamFunction is a piece of a function: Name and Arguments are
// appended.
type streamFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// streamCallDelta is a piece of a tool call: the call at Index gets the ID
// and type when they are set, and Name and Arguments appended.
type streamCallDelta struct {
	Index    int64          `json:"index"`
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function streamFunction `json:"function"`
}

// streamAccumulator assembles the chunks of a stream into the completion a
// request that is not streamed gets, as openai-go's
// ChatCompletionAccumulator does for the fields the runtime reads: the
// first choice's role, text, refusal and tool calls (by index, -1 read as
// 0 as some servers send for a single call; id and type set, name and
// arguments appended), its last finish_reason, and the usage summed over
// the chunks. Like the SDK's, it refuses a chunk whose id differs from the
// first one's, whose choice index is outside 0..127, or whose tool call
// index is negative or more than 127 past the calls so far; a refused
// chunk changes nothing.
type streamAccumulator struct {
	id               string
	chunks           int
	choices          bool // a chunk had a choice
	message          bool // a chunk had a delta for the first choice
	role             string
	finish           string
	content, refusal strings.Builder
	calls            []*streamCall
	legacy           *streamCall // a legacy function call
	usage            openai.CompletionUsage
}

// streamCall is a tool call being assembled.
type streamCall struct {
	seen       bool // a piece had the call's index
	id, typ    string
	name, args strings.Builder
}

// add adds chunk c, reporting false when it does not follow the chunks
// before.
func (a *streamAccumulator) add(c *streamChunk) bool {
	if a.id != "" && c.ID != a.id {
		return false
	}
	calls := len(a.calls)
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index < 0 || ch.Index > 127 {
			return false
		}
		if ch.Index != 0 {
			continue
		}
		for _, d := range ch.Delta.ToolCalls {
			k, ok := streamCallIndex(d.Index, calls)
			if !ok {
				return false
			}
			calls = max(calls, k+1)
		}
	}
	if a.id == "" {
		a.id = c.ID
	}
	a.chunks++
	a.choices = a.choices || len(c.Choices) > 0
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		a.message = a.message || d.Role != nil || d.Content != nil || d.Refusal != nil || len(d.ToolCalls) > 0 || d.FunctionCall != nil
		if ch.FinishReason != nil {
			a.finish = *ch.FinishReason
		} else {
			a.finish = ""
		}
		if d.Role != nil && *d.Role != "" {
			a.role = *d.Role
		}
		if d.Content != nil {
			a.content.WriteString(*d.Content)
		}
		if d.Refusal != nil {
			a.refusal.WriteString(*d.Refusal)
		}
		if f := d.FunctionCall; f != nil {
			if a.legacy == nil {
				a.legacy = &streamCall{}
			}
			a.legacy.name.WriteString(f.Name)
			a.legacy.args.WriteString(f.Arguments)
		}
		for _, t := range d.ToolCalls {
			k, _ := streamCallIndex(t.Index, len(a.calls))
			for len(a.calls) <= k {
				a.calls = append(a.calls, &streamCall{})
			}
			call := a.calls[k]
			call.seen = true
			if t.ID != "" {
				call.id = t.ID
			}
			if t.Type != "" {
				call.typ = t.Type
			}
			call.name.WriteString(t.Function.Name)
			call.args.WriteString(t.Function.Arguments)
		}
	}
	if u := c.Usage; u != nil {
		a.usage.PromptTokens += u.PromptTokens
		a.usage.CompletionTokens += u.CompletionTokens
		a.usage.TotalTokens += u.TotalTokens
	}
	return true
}

// streamCallIndex is the position of a tool call piece with index i when
// n calls are known.
func streamCallIndex(i int64, n int) (int, bool) {
	if i == -1 {
		i = 0
	}
	if i < 0 || i-int64(n) >= 128 {
		return 0, false
	}
	return int(i), true
}

// completion is the chat completion the chunks added make.
func (a *streamAccumulator) completion() *openai.ChatCompletion {
	comp := &openai.ChatCompletion{ID: a.id, Usage: a.usage}
	if !a.choices {
		return comp
	}
	ch := openai.ChatCompletionChoice{FinishReason: a.finish}
	ch.Message.Role = constant.Assistant(a.role)
	ch.Message.Content = a.content.String()
	ch.Message.Refusal = a.refusal.String()
	for _, c := range a.calls {
		if !c.seen {
			continue
		}
		ch.Message.ToolCalls = append(ch.Message.ToolCalls, openai.ChatCompletionMessageToolCallUnion{
			ID: c.id, Type: c.typ,
			Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: c.name.String(), Arguments: c.args.String()},
		})
	}
	if a.legacy != nil {
		ch.Message.FunctionCall = openai.ChatCompletionMessageFunctionCall{Name: a.legacy.name.String(), Arguments: a.legacy.args.String()}
	}
	comp.Choices = []openai.ChatCompletionChoice{ch}
	return comp
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
	return redactReply(m.redact, r), nil
}

// redactReply masks the secrets of redact in a reply's text and tool
// arguments, which a stream assembled from pieces.
func redactReply(redact replay.Redactor, r *Reply) *Reply {
	r.Message.Content = redact.String(r.Message.Content)
	for i := range r.Message.ToolCalls {
		r.Message.ToolCalls[i].Arguments = redact.String(r.Message.ToolCalls[i].Arguments)
	}
	return r
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
				Role         string          `json:"role"`
				Content      *string         `json:"content"`
				Refusal      *string         `json:"refusal"`
				ToolCalls    json.RawMessage `json:"tool_calls"`
				FunctionCall json.RawMessage `json:"function_call"`
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
			if len(m.FunctionCall) > 0 && string(m.FunctionCall) != "null" {
				delta["function_call"] = m.FunctionCall
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
