// Progress of an agent served over MCP: when the host's tools/call request
// carries a progress token (in its _meta), the run's events become
// notifications/progress messages on that token while the agent works,
// and the model's answers are streamed.

package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/runtime"
)

// textProgressEvery is the least time between two progress notifications
// about the text of one model call.
const textProgressEvery = 200 * time.Millisecond

// withProgress returns opts and, when the request asks for progress, the
// option that reports the run's events to the host as progress
// notifications.
func withProgress(ctx context.Context, req *mcp.CallToolRequest, opts []runtime.Option, logger *slog.Logger) []runtime.Option {
	if req == nil || req.Params == nil || req.Session == nil {
		return opts
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return opts
	}
	p := &progress{ctx: ctx, session: req.Session, token: token, log: logger}
	return append(slices.Clip(opts), runtime.WithEvents(p.event))
}

// progress sends the notifications of one call. Its event method is
// called serialized by the run.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	log     *slog.Logger

	n        int       // notifications sent: the progress value
	chars    int       // characters of text of the current model call
	lastText time.Time // when text was last reported
}

// event turns a run event into a notification (text deltas at most every
// textProgressEvery; of a sub-agent's run, only the tool calls).
func (p *progress) event(e runtime.Event) {
	var msg string
	if e.ParentRunID != "" {
		// A sub-agent's run: its tool calls, named after it.
		if e.Type != runtime.EventToolCallStarted && e.Type != runtime.EventToolCallFinished {
			return
		}
		e.Name = e.Agent + ": " + e.Name
	}
	switch e.Type {
	case runtime.EventTextDelta:
		first := p.chars == 0
		p.chars += len([]rune(e.Text))
		if !first && time.Since(p.lastText) < textProgressEvery {
			return
		}
		p.lastText = time.Now()
		msg = fmt.Sprintf("the model is answering (%d characters so far)", p.chars)
	case runtime.EventModelTurnFinished:
		p.chars = 0
		switch {
		case e.Err != nil:
			msg = fmt.Sprintf("model call %d failed", e.Iteration)
		case e.ToolCalls > 0:
			msg = fmt.Sprintf("model call %d asks for %d tool calls", e.Iteration, e.ToolCalls)
		default:
			msg = fmt.Sprintf("model call %d answered (finish_reason %s)", e.Iteration, e.FinishReason)
		}
	case runtime.EventToolCallStarted:
		msg = "calling " + e.Name
	case runtime.EventToolCallFinished:
		if e.Tool != nil && e.Tool.Failed() {
			msg = fmt.Sprintf("%s failed after %v", e.Name, e.Duration.Round(time.Millisecond))
		} else {
			msg = fmt.Sprintf("%s done in %v", e.Name, e.Duration.Round(time.Millisecond))
		}
	default:
		return // the result follows
	}
	p.n++
	err := p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(p.n), Message: msg})
	if err != nil {
		p.log.Debug("progress notification not sent", "error", err)
	}
}
