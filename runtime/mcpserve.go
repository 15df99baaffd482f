// Agents served over MCP: each agent becomes an MCP tool whose input is the
// user's message and whose result is the agent's answer, so any MCP host can
// call gram agents. Every call is one turn of a new conversation, run by
// [Run] with the agent's tool library and options.

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gramlang/gram/schema"
)

// agentInputSchema is the input of an agent served as a tool.
const agentInputSchema = `{"type":"object","properties":{"message":{"type":"string","minLength":1,"description":"The user's message to the agent"}},"required":["message"],"additionalProperties":false}`

// ServedAgent is an agent to serve over MCP with what it runs with.
type ServedAgent struct {
	// Agent is the agent; its name is the tool's name.
	Agent *schema.Agent
	// Library binds the agent's tools.
	Library *Library
	// Options configure each run (the model, injected values, logger, ...).
	Options []Option
}

// NewMCPServer returns an MCP server, named by impl, exposing each agent
// as a tool: its name is the agent's, its description the agent's (or one
// naming the agent and its model), its input {"message": string}. A call
// runs one turn of a new conversation; the result's text is the agent's
// answer. A run that fails gives a result flagged isError whose text is the
// error, which never contains an API key. Connect the server to a
// transport with its Run or Connect method.
func NewMCPServer(impl *mcp.Implementation, agents []ServedAgent, logger *slog.Logger) *mcp.Server {
	if logger == nil {
		logger = slog.Default()
	}
	s := mcp.NewServer(impl, &mcp.ServerOptions{Logger: logger})
	for _, a := range agents {
		desc := strings.TrimSpace(a.Agent.Description)
		if desc == "" {
			desc = fmt.Sprintf("Asks the %s agent (%s): send it a message, get its answer.", a.Agent.Name, a.Agent.Model)
		}
		tool := &mcp.Tool{Name: a.Agent.Name, Description: desc, InputSchema: json.RawMessage(agentInputSchema)}
		s.AddTool(tool, agentHandler(a, logger))
	}
	return s
}

// agentHandler runs the agent for one call.
func agentHandler(a ServedAgent, logger *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Message *string `json:"message"`
		}
		fail := func(msg string) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
		}
		if msg := decodeAgentArgs(req.Params.Arguments, &in.Message); msg != "" {
			return fail("invalid arguments: " + msg)
		}
		logger.Info("agent called over MCP", "agent", a.Agent.Name)
		resp, err := Run(ctx, a.Agent, a.Library, nil, *in.Message, a.Options...)
		if err != nil {
			return fail(err.Error())
		}
		text := resp.Content
		if resp.Status != StatusCompleted {
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
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
}

// decodeAgentArgs reads the arguments of an agent's call, {"message":
// "..."}, into *msg; it returns what is wrong with them, or "".
func decodeAgentArgs(raw json.RawMessage, msg **string) string {
	const want = "arguments must be an object with a string `message`, e.g. {\"message\": \"Hello\"}"
	var fields map[string]json.RawMessage
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return want
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return want
	}
	for k := range fields {
		if k != "message" {
			return fmt.Sprintf("unknown argument %q: %s", k, want)
		}
	}
	m, ok := fields["message"]
	if !ok {
		return want
	}
	var s string
	if err := json.Unmarshal(m, &s); err != nil {
		return "`message` must be a string: " + want
	}
	if strings.TrimSpace(s) == "" {
		return "`message` is empty: " + want
	}
	*msg = &s
	return ""
}
