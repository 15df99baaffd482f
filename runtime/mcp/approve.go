// Approvals of served agents: a call that needs a person's decision (an
// agent served with approval: true, or a tool with approval: true that a
// served agent's run reaches) is put to the person behind the MCP client
// through elicitation, a form {approve: boolean, reason: string} whose
// message names the tool and its arguments. A client that did not declare
// the elicitation capability cannot be asked: the call's result is an
// error saying so.
//
// The server asks during the call (elicitation/create), which the protocol
// allows up to version 2025-11-25; a server whose agents may ask for
// approval offers those versions only (see [legacyProtocols]).

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/clip"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// approvalSchema is the form of an approval.
const approvalSchema = `{"type":"object","properties":{` +
	`"approve":{"type":"boolean","title":"Approve","description":"Let the call run"},` +
	`"reason":{"type":"string","title":"Reason","description":"Why (told to the agent when you deny the call)"}},` +
	`"required":["approve"]}`

// maxShownArguments is how many characters of a call's arguments the
// message of an approval shows.
const maxShownArguments = 4000

// firstStatelessProtocol is the first protocol version in which a server
// may not send requests of its own during a call.
const firstStatelessProtocol = "2026-07-28"

// legacyProtocols returns the protocol versions the SDK supports in which
// a server may send an elicitation request while it handles a call.
func legacyProtocols() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= firstStatelessProtocol })
}

// asksApproval reports whether a call of a may need a person's approval:
// the agent is served with approval: true, or it or an agent it may come
// to (in its Program) has a tool with approval: true.
func asksApproval(a runtime.Bound) bool {
	return a.Agent.AsTool != nil && a.Agent.AsTool.Approval || a.Program.ReachesApproval(a.Agent)
}

// canElicit reports whether the client that sent req declared the
// elicitation capability, for forms.
func canElicit(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil // {} means forms, as before the modes
}

// noElicitationText is the result of a call that needs the approval of a
// person the client cannot ask; tools names the tools.
func noElicitationText(tools ...string) string {
	what := "the tool " + tools[0] + " needs"
	if len(tools) > 1 {
		what = "the tools " + strings.Join(tools, ", ") + " need"
	}
	return what + " a person's approval before running, which this MCP client cannot give: " +
		"it did not declare the elicitation capability (capabilities.elicitation); " +
		"call it from a client that supports elicitation"
}

// deniedText is the result of a served agent's call that a person denied.
func deniedText(tool, reason string) string {
	return fmt.Sprintf("%s: the call of %s did not run (%s)", runtime.DeniedMessage, tool, reason)
}

// approvalMessage is the message of the elicitation about call c: who
// calls which tool, with which arguments.
func approvalMessage(c runtime.PendingCall) string {
	who := "The MCP client calls the agent " + c.Tool
	if c.Agent != "" {
		who = "The agent " + c.Agent + " calls the tool " + c.Tool
	}
	args := "(none)"
	if len(c.Arguments) > 0 {
		var b bytes.Buffer
		if json.Indent(&b, c.Arguments, "", "  ") == nil {
			args = b.String()
		} else {
			args = string(c.Arguments)
		}
	}
	return who + " with these arguments:\n" + clip.Text(args, maxShownArguments) + "\nDo you approve the call?"
}

// elicitDecision asks the person behind the client of ss about call c.
// Accepted with approve true, the call runs; approve false, a decline or a
// cancel deny it, with the person's reason when there is one.
func elicitDecision(ctx context.Context, ss *mcp.ServerSession, c runtime.PendingCall) (runtime.Decision, error) {
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: approvalMessage(c), RequestedSchema: json.RawMessage(approvalSchema)})
	if err != nil {
		return runtime.Decision{}, fmt.Errorf("asking the MCP client's user to approve the call of %s: %w", c.Tool, err)
	}
	d := runtime.Decision{CallID: c.CallID}
	reason, _ := res.Content["reason"].(string)
	reason = strings.TrimSpace(reason)
	switch res.Action {
	case "accept":
		d.Approve, _ = res.Content["approve"].(bool)
		if !d.Approve && reason == "" {
			reason = "not approved"
		}
	case "decline":
		if reason == "" {
			reason = "declined"
		}
	default:
		reason = "the request for approval was cancelled"
	}
	if !d.Approve {
		d.Reason = reason
	}
	return d, nil
}

// sessionApprover returns the approver of a run started by a call from
// the client of ss: it asks about each call in turn, one request of the
// run's tree at a time.
func sessionApprover(ss *mcp.ServerSession) runtime.Approver {
	var mu sync.Mutex
	return func(ctx context.Context, calls []runtime.PendingCall) ([]runtime.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		ds := make([]runtime.Decision, 0, len(calls))
		for _, c := range calls {
			d, err := elicitDecision(ctx, ss, c)
			if err != nil {
				return nil, err
			}
			ds = append(ds, d)
		}
		return ds, nil
	}
}

// approveCall asks for the approval of a call of the served agent a, when
// it is served with approval: true; it returns the text of the call's
// error result when the call may not run, "" when it may.
func approveCall(ctx context.Context, a *schema.Agent, req *mcp.CallToolRequest) string {
	if a.AsTool == nil || !a.AsTool.Approval {
		return ""
	}
	if !canElicit(req) {
		return noElicitationText(a.Name)
	}
	d, err := elicitDecision(ctx, req.Session, runtime.PendingCall{CallID: "call", Tool: a.Name, Arguments: req.Params.Arguments})
	if err != nil {
		return err.Error()
	}
	if !d.Approve {
		return deniedText(a.Name, d.Reason)
	}
	return ""
}

// pendingTools names the tools of pending calls, each once.
func pendingTools(pending []runtime.PendingCall) []string {
	var names []string
	for _, p := range pending {
		if !slices.Contains(names, p.Tool) {
			names = append(names, p.Tool)
		}
	}
	if len(names) == 0 {
		names = []string{"(unnamed)"}
	}
	return names
}
