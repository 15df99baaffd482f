// Agents served over MCP: each agent becomes an MCP tool whose input is the
// user's message (or the parameters of its signature element) and whose
// result is the agent's answer (structured, for an agent with a result
// type), so any MCP host can call gram agents. Every call is one turn of a
// new conversation, run by [runtime.Run] with the agent's tool library and
// options.

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/internal/jsonvalue"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/schema"
)

// agentInputSchema is the input of an agent served as a tool.
const agentInputSchema = `{"type":"object","properties":{"message":{"type":"string","minLength":1,"description":"The user's message to the agent"}},"required":["message"],"additionalProperties":false}`

// Implementation names and describes a server to MCP clients (the
// SDK's type, so that callers of [NewServer] need not import the SDK).
type Implementation = mcp.Implementation

// NewServer returns an MCP server, named by impl, exposing each agent
// as a tool (see agentTool): its name is the agent's, its description the
// agent's (or one naming the agent and its model), its input
// {"message": string} or the parameters of the agent's signature element.
// A call runs one turn of a new conversation; the result's text is the
// agent's answer, and the answer of an agent with a result type is the
// result's structuredContent too. A call whose request carries a progress
// token gets progress notifications while the agent works: its model calls
// (streamed), its tool calls and how much text it has written. A run that
// fails (an answer that never matched the result type among them) gives a
// result flagged isError whose text is the error, which never contains an
// API key. Connect the server to a transport with its Run or Connect
// method.
//
// A call that needs a person's approval (an agent with approval: true, or
// a tool with approval: true its run reaches) asks the client through
// elicitation, a form {approve, reason} naming the tool and its arguments;
// a denial is an error result saying a person denied the call, with the
// reason, and a client without the elicitation capability gets an error
// result saying it cannot give the approval. A server with such agents
// offers the protocol versions up to 2025-11-25 only, in which a server
// may ask during a call.
func NewServer(impl *mcp.Implementation, agents []runtime.Bound, logger *slog.Logger) *mcp.Server {
	if logger == nil {
		logger = slog.Default()
	}
	opts := &mcp.ServerOptions{Logger: logger}
	if slices.ContainsFunc(agents, asksApproval) {
		opts.SupportedProtocolVersions = legacyProtocols()
	}
	s := mcp.NewServer(impl, opts)
	for _, a := range agents {
		s.AddTool(agentTool(a.Agent), agentHandler(a, logger))
	}
	return s
}

// agentTool returns the MCP tool of a served agent. An agent without a
// signature element takes {"message": string}; one with a signature
// element takes its parameters, as [schema.MCPTool] writes them. An agent
// with a result type ([schema.Agent.Result]) has the outputSchema that
// [schema.MCPTool] writes for its signature: an object at its root, so a
// result that is not an object (neither a record nor Object) is the
// "result" member of an object, {"result": T}, and the call's
// structuredContent is wrapped the same way (see [schema.MCPResultWrapped]).
func agentTool(a *schema.Agent) *mcp.Tool {
	desc := strings.TrimSpace(a.Description)
	if desc == "" {
		desc = fmt.Sprintf("Asks the %s agent (%s): send it a message, get its answer.", a.Name, a.Model)
	}
	tool := &mcp.Tool{Name: a.Name, Description: desc, InputSchema: json.RawMessage(agentInputSchema)}
	if !a.Signature || a.AsTool == nil {
		return tool
	}
	def := schema.MCPTool(a.AsTool, false)
	if in, ok := def.Get("inputSchema"); ok {
		tool.InputSchema = in
	}
	if out, ok := def.Get("outputSchema"); ok && a.Result() != nil {
		tool.OutputSchema = out
	}
	return tool
}

// agentHandler runs the agent for one call.
func agentHandler(a runtime.Bound, logger *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fail := func(msg string) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
		}
		message, problem := callMessage(a.Agent, req.Params.Arguments)
		if problem != "" {
			return fail(`invalid arguments: ` + problem)
		}
		logger.Info("agent called over MCP", "agent", a.Agent.Name)
		if denied := approveCall(ctx, a.Agent, req); denied != "" {
			return fail(denied)
		}
		opts := withProgress(ctx, req, a.Options, logger)
		if canElicit(req) {
			opts = append(slices.Clip(opts), runtime.WithApprover(sessionApprover(req.Session)))
		}
		resp, err := runtime.Run(ctx, a.Agent, a.Library, nil, message, opts...)
		if err != nil {
			return fail(err.Error())
		}
		if resp.Status == runtime.StatusAwaitingApproval {
			// No approver: the client cannot be asked.
			return fail(noElicitationText(pendingTools(resp.Pending)...))
		}
		text := resp.Content
		if resp.Status != runtime.StatusCompleted {
			// The host must not take a partial answer for the answer.
			note := strings.Join(resp.Warnings, "; ")
			if note == "" {
				note = fmt.Sprintf("the run ended with status %s", resp.Status)
			}
			if text == "" {
				text = "The agent gave no answer: " + note
			} else {
				text = "The agent did not finish (" + note + "). What it gave:\n\n" + text
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}
		if resp.Output != nil {
			return typedResult(a.Agent.AsTool, resp.Output), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
}

// typedResult returns the result of a call whose answer is the JSON value
// out of an agent with a result type: structuredContent (wrapped as
// {"result": out} when the result is not an object, see agentTool) and
// its JSON text as text content.
func typedResult(t *schema.Tool, out json.RawMessage) *mcp.CallToolResult {
	structured := out
	if schema.MCPResultWrapped(t) {
		structured = json.RawMessage(`{"result":` + string(out) + `}`)
	}
	return &mcp.CallToolResult{StructuredContent: structured, Content: []mcp.Content{&mcp.TextContent{Text: string(structured)}}}
}

// callMessage returns the user message of a call of agent a, or what is
// wrong with the arguments. An agent without a signature element takes
// {"message": string}; one with a signature element takes its parameters,
// validated with their defaults filled in, passed as the JSON text of
// the arguments object, except that a signature of one String parameter
// called message passes its text.
func callMessage(a *schema.Agent, raw json.RawMessage) (string, string) {
	if !a.Signature || a.AsTool == nil {
		m, problem := agentMessage(raw)
		if problem != "" {
			return "", problem + agentArgsShape
		}
		return m, ""
	}
	args, err := schema.ValidateArgs(a.AsTool, raw)
	if err != nil {
		var ae *schema.ArgsError
		if !errors.As(err, &ae) {
			return "", "the arguments could not be read"
		}
		return "", schema.ProblemsText(ae.Problems)
	}
	if p := a.AsTool.ModelParams(); len(p) == 1 && p[0].Name == "message" && p[0].Type != nil && p[0].Type.Kind == schema.StringType {
		m, _ := args["message"].(string)
		if strings.TrimSpace(m) == "" {
			return "", `"message" is empty`
		}
		return m, ""
	}
	b, err := json.Marshal(args)
	if err != nil {
		return "", "the arguments could not be read"
	}
	return string(b), ""
}

// agentArgsShape ends every complaint about an agent call's arguments: the
// shape the host must send, in JSON's terms.
const agentArgsShape = "; arguments must be an object with a string `message`, e.g. {\"message\": \"...\"}, and no other property"

// agentMessage reads the arguments of an agent call: the message, or what
// is wrong with them, in JSON's terms.
func agentMessage(raw json.RawMessage) (string, string) {
	if len(raw) == 0 {
		return "", "no arguments"
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return "", "the arguments are not valid JSON"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", "the arguments are " + jsonvalue.KindName(v) + ", not an object"
	}
	for k := range obj {
		if k != "message" {
			return "", fmt.Sprintf("unknown property %q", k)
		}
	}
	m, ok := obj["message"]
	if !ok {
		return "", `"message" is missing`
	}
	s, ok := m.(string)
	if !ok {
		return "", `"message" is ` + jsonvalue.KindName(m) + `, not a string`
	}
	if strings.TrimSpace(s) == "" {
		return "", `"message" is empty`
	}
	return s, ""
}
