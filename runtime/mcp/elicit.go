// Elicitation on the client side: an MCP server may ask, in the middle of
// a tool call, for input from the person behind the client (an approval, a
// missing value). A [Config] with an [Elicitor] declares the elicitation
// capability and answers those requests with it; one without does not
// declare it, so servers do not ask.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is a server's request for input from a person: a message to
// show and, for a form, the JSON Schema of the answer (an object of flat
// properties: strings, numbers, integers, booleans, enums and multi-select
// enums). A request to open a URL has URL set and no Schema.
type Elicitation struct {
	// Server names the server that asks.
	Server string
	// Message is the server's text for the person.
	Message string
	// Schema is the requested schema of a form, as JSON; nil when the
	// server asked for no fields.
	Schema json.RawMessage
	// URL is the page a URL-mode request asks the person to visit.
	URL string
}

// The actions an answer to an [Elicitation] takes.
const (
	// ElicitAccept sends the answer's Content.
	ElicitAccept = "accept"
	// ElicitDecline refuses explicitly.
	ElicitDecline = "decline"
	// ElicitCancel dismisses the request without a choice.
	ElicitCancel = "cancel"
)

// ElicitAnswer is the answer to an [Elicitation]: an action
// ([ElicitAccept], [ElicitDecline] or [ElicitCancel]) and, when accepted,
// the values of the requested fields.
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// Elicitor answers a server's elicitation requests, such as
// [TerminalElicitor]. It is called from the session's goroutines and may
// block until the person answers or ctx ends.
type Elicitor func(ctx context.Context, e Elicitation) (ElicitAnswer, error)

// elicitationHandler returns the go-sdk handler that answers the requests
// of the server called server with ask.
func elicitationHandler(server string, ask Elicitor) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		e := Elicitation{Server: server}
		if p := req.Params; p != nil {
			e.Message, e.URL = p.Message, p.URL
			if p.RequestedSchema != nil {
				raw, err := json.Marshal(p.RequestedSchema)
				if err != nil {
					return nil, fmt.Errorf("the requested schema cannot be read: %w", err)
				}
				e.Schema = raw
			}
		}
		a, err := ask(ctx, e)
		if err != nil {
			return nil, err
		}
		switch a.Action {
		case ElicitAccept:
			if a.Content == nil {
				a.Content = map[string]any{}
			}
			return &mcp.ElicitResult{Action: a.Action, Content: a.Content}, nil
		case ElicitDecline, ElicitCancel:
			return &mcp.ElicitResult{Action: a.Action}, nil
		}
		return nil, fmt.Errorf("elicitation answer: unknown action %q (want accept, decline or cancel)", a.Action)
	}
}
