// A scripted model: answers from a queue, for tests and demos.

package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Scripted is a [Model] that answers each request with the next reply of a
// queue and records the requests it receives. When the queue is empty it
// calls Respond, or fails if Respond is nil. It is safe for concurrent use.
type Scripted struct {
	// Respond answers requests once the queue is empty.
	Respond func(req *Request) (*Reply, error)

	mu       sync.Mutex
	queue    []scriptedItem
	requests []*Request
	calls    int
}

type scriptedItem struct {
	reply *Reply
	err   error
}

// NewScripted returns a model that answers with replies, in order.
func NewScripted(replies ...*Reply) *Scripted {
	s := &Scripted{}
	s.Push(replies...)
	return s
}

// Push appends replies to the queue.
func (s *Scripted) Push(replies ...*Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range replies {
		s.queue = append(s.queue, scriptedItem{reply: r})
	}
}

// PushError appends a failure to the queue: the request that reaches it
// gets err.
func (s *Scripted) PushError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, scriptedItem{err: err})
}

// Requests returns copies of the requests received so far.
func (s *Scripted) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Complete implements [Model].
func (s *Scripted) Complete(ctx context.Context, req *Request) (*Reply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cp := *req
	cp.Messages = Conversation(req.Messages).Clone()
	cp.Tools = append([]ToolDefinition(nil), req.Tools...)
	s.mu.Lock()
	s.requests = append(s.requests, &cp)
	s.calls++
	n := s.calls
	var item scriptedItem
	empty := len(s.queue) == 0
	if !empty {
		item = s.queue[0]
		s.queue = s.queue[1:]
	}
	respond := s.Respond
	s.mu.Unlock()
	if empty {
		if respond == nil {
			return nil, &LLMError{Kind: LLMBadResponse, Attempts: 1,
				Err: fmt.Errorf("the scripted model has no reply for request %d", n)}
		}
		item.reply, item.err = respond(&cp)
	}
	if item.err != nil {
		return nil, item.err
	}
	if item.reply == nil {
		return nil, &LLMError{Kind: LLMBadResponse, Attempts: 1, Err: errors.New("the scripted reply is nil")}
	}
	r := *item.reply
	r.Message = Conversation{item.reply.Message}.Clone()[0]
	if r.Message.Role == "" {
		r.Message.Role = RoleAssistant
	}
	for i := range r.Message.ToolCalls {
		if r.Message.ToolCalls[i].ID == "" {
			r.Message.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", n, i+1)
		}
	}
	if r.FinishReason == "" {
		r.FinishReason = "stop"
		if len(r.Message.ToolCalls) > 0 {
			r.FinishReason = "tool_calls"
		}
	}
	return &r, nil
}

// TextReply returns a reply that answers with text.
func TextReply(content string) *Reply {
	return &Reply{Message: Message{Role: RoleAssistant, Content: content}}
}

// CallReply returns a reply that asks for tool calls. Calls without an ID
// get one when the reply is used.
func CallReply(calls ...ToolCall) *Reply {
	return &Reply{Message: Message{Role: RoleAssistant, ToolCalls: calls}}
}

// Call returns a tool call of name with JSON arguments, for [CallReply].
func Call(name, arguments string) ToolCall {
	return ToolCall{Name: name, Arguments: arguments}
}
