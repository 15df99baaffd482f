// Package mcptest is a small Model Context Protocol server for tests and
// demos: a task list per user, in the spirit of the agent-service contract
// (every tool takes the user's id, which a host injects).
//
// # Entry points
//
//   - [NewServer] builds the server with the go-sdk, for in-memory tests;
//   - [InMemory] starts one on an in-memory transport and returns the
//     client's end;
//   - [Main] runs it over standard input and output, as the
//     mcp-demo-server command does.
//
// # Tools
//
// Its tools are
//
//   - add_task(user_id, title, description?, priority?, tags?, reminder?):
//     creates a task and returns it as structured content;
//   - list_tasks(user_id, status?, limit?): the user's tasks;
//   - complete_task(user_id, task_id): marks a task done, or fails with
//     isError when the user has no such task;
//
// and, with [Options.Many], that many tools tool_1, tool_2, ...; and,
// with [Options.Extra], echo (plain text content), schedule (whose
// schema uses oneOf and a nullable type, which gram cannot write) and, when
// [Options.Crash] is set, crash (which calls it: the subprocess exits).
// With [Options.Media]: snapshot (a result of every kind of content: text,
// a PNG image, an SVG image, audio, a resource link, an embedded text
// resource and an embedded blob) and weather (structured content whose
// text form differs from it).
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' JSON Schemas, written by hand so that their keywords and key
// order are exactly what the server lists.
const (
	addTaskInput = `{"type":"object",
"properties":{
 "user_id":{"type":"string","description":"The id of the signed-in user"},
 "title":{"type":"string","minLength":1,"maxLength":200,"description":"What to do"},
 "description":{"type":"string","description":"More details"},
 "priority":{"type":"string","enum":["low","normal","high"],"default":"normal"},
 "tags":{"type":"array","items":{"type":"string"},"maxItems":5,"description":"Labels for the task"},
 "reminder":{"type":"object","description":"When to remind the user",
  "properties":{"at":{"type":"string","format":"date-time"},"channel":{"type":"string","enum":["email","sms"],"default":"email"}},
  "required":["at"],"additionalProperties":false}
},
"required":["user_id","title"],
"additionalProperties":false}`

	taskSchema = `{"type":"object","title":"Task","description":"A task",
"properties":{
 "id":{"type":"integer"},
 "owner":{"type":"string"},
 "title":{"type":"string"},
 "priority":{"type":"string","enum":["low","normal","high"]},
 "done":{"type":"boolean"},
 "tags":{"type":"array","items":{"type":"string"}}
},
"required":["id","owner","title","priority","done"],
"additionalProperties":false}`

	listTasksInput = `{"type":"object",
"properties":{
 "user_id":{"type":"string","description":"The id of the signed-in user"},
 "status":{"type":"string","enum":["all","open","done"],"default":"all","description":"Which tasks to list"},
 "limit":{"type":"integer","minimum":1,"maximum":100,"default":20}
},
"required":["user_id"],
"additionalProperties":false}`

	listTasksOutput = `{"type":"object",
"properties":{"tasks":{"type":"array","items":` + taskSchema + `}},
"required":["tasks"],"additionalProperties":false}`

	completeTaskInput = `{"type":"object",
"properties":{
 "user_id":{"type":"string","description":"The id of the signed-in user"},
 "task_id":{"type":"integer","minimum":1,"description":"The task's id"}
},
"required":["user_id","task_id"],
"additionalProperties":false}`

	echoInput = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`

	scheduleInput = `{"type":"object",
"properties":{
 "when":{"oneOf":[{"type":"string","format":"date-time"},{"type":"integer","minimum":0}],"description":"A date-time or a Unix time"},
 "note":{"type":["string","null"]}
},
"required":["when"],
"additionalProperties":false}`

	crashInput = `{"type":"object","properties":{},"additionalProperties":false}`

	manyInput = `{"type":"object","properties":{"query":{"type":"string","description":"What to look for"},
"limit":{"type":"integer","minimum":1,"maximum":50},"mode":{"type":"string","enum":["fast","full"]}},
"required":["query"],"additionalProperties":false}`
)

// Options configure [NewServer].
type Options struct {
	// Extra adds the echo and schedule tools.
	Extra bool
	// Media adds the snapshot and weather tools.
	Media bool
	// Crash, when set, adds the crash tool, which calls it (to stop the
	// server process).
	Crash func()
	// Many adds that many tools, tool_1, tool_2, ..., each with a few
	// parameters, that echo their arguments: a server with a large tool
	// list.
	Many int
}

// Task is a task of the store, as the tools return it.
type Task struct {
	// ID numbers the tasks of the server from 1.
	ID int `json:"id"`
	// Owner is the user_id of the call that added the task.
	Owner string `json:"owner"`
	// Title says what to do.
	Title string `json:"title"`
	// Priority is low, normal or high.
	Priority string `json:"priority"`
	// Done is set by complete_task.
	Done bool `json:"done"`
	// Tags label the task.
	Tags []string `json:"tags,omitempty"`
}

// Call is a tool call the server received.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Arguments are the arguments as sent.
	Arguments map[string]any
}

// Server is the task server: the MCP server and its store.
type Server struct {
	// MCP is the go-sdk server; connect it to a transport with Run or
	// Connect.
	MCP *mcp.Server

	mu    sync.Mutex
	next  int
	tasks []Task
	calls []Call
}

// NewServer returns a task server with an empty store.
func NewServer(opts Options) *Server {
	s := &Server{MCP: mcp.NewServer(&mcp.Implementation{Name: "mcp-demo-server", Version: "1.0.0"}, nil), next: 1}
	s.add("add_task", "Creates a task for the user and returns it", addTaskInput, taskSchema, s.addTask)
	s.add("list_tasks", "Lists the user's tasks, newest first", listTasksInput, listTasksOutput, s.listTasks)
	s.add("complete_task", "Marks one of the user's tasks as done", completeTaskInput, taskSchema, s.completeTask)
	if opts.Extra {
		s.add("echo", "Returns its text", echoInput, "", func(args map[string]any) (any, error) {
			return text(fmt.Sprint(args["text"])), nil
		})
		s.add("schedule", "Schedules a note", scheduleInput, "", func(args map[string]any) (any, error) {
			return text(fmt.Sprintf("scheduled at %v", args["when"])), nil
		})
	}
	if opts.Media {
		s.addMedia()
	}
	for i := 1; i <= opts.Many; i++ {
		s.add(fmt.Sprintf("tool_%d", i), fmt.Sprintf("Tool number %d", i), manyInput, "", func(args map[string]any) (any, error) {
			return text(fmt.Sprint(args)), nil
		})
	}
	if opts.Crash != nil {
		s.add("crash", "Stops the server", crashInput, "", func(map[string]any) (any, error) {
			opts.Crash()
			return text("still here"), nil
		})
	}
	return s
}

// Calls returns the tool calls received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// text is a result sent as text content only.
type text string

// toolError is a failure reported with isError.
type toolError string

func (e toolError) Error() string { return string(e) }

// add registers a tool whose handler receives the decoded arguments and
// returns a structured result (sent as structured and text content), a
// text, or a toolError.
func (s *Server) add(name, desc, input, output string, h func(map[string]any) (any, error)) {
	t := &mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(input)}
	if output != "" {
		t.OutputSchema = json.RawMessage(output)
	}
	s.MCP.AddTool(t, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.UseNumber()
		if len(req.Params.Arguments) > 0 {
			if err := dec.Decode(&args); err != nil {
				return nil, fmt.Errorf("invalid arguments: %v", err)
			}
		}
		s.mu.Lock()
		s.calls = append(s.calls, Call{Tool: name, Arguments: args})
		s.mu.Unlock()
		res, err := h(args)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		if t, ok := res.(text); ok {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(t)}}}, nil
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
}

// TinyPNG is the PNG image the snapshot tool returns (1×1 pixel).
var TinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// addMedia adds the snapshot and weather tools.
func (s *Server) addMedia() {
	empty := &mcp.Tool{Name: "snapshot", Description: "Returns content of every kind", InputSchema: json.RawMessage(crashInput)}
	s.MCP.AddTool(empty, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		size := int64(2048)
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "Here is everything."},
			&mcp.ImageContent{MIMEType: "image/png", Data: TinyPNG},
			&mcp.ImageContent{MIMEType: "image/svg+xml", Data: []byte("<svg/>")},
			&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 44)},
			&mcp.ResourceLink{URI: "file:///docs/report.pdf", Name: "report", MIMEType: "application/pdf", Size: &size, Description: "The quarterly report"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://notes/1", MIMEType: "text/plain", Text: "Note one."}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://blobs/1", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
		}}, nil
	})
	weather := &mcp.Tool{Name: "weather", Description: "The weather in a city",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}`)}
	s.MCP.AddTool(weather, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			StructuredContent: json.RawMessage(`{"temperature":22.5,"conditions":"Sunny"}`),
			Content:           []mcp.Content{&mcp.TextContent{Text: "Sunny, 22.5 °C"}},
		}, nil
	})
}

// user returns the user_id argument, which every task tool needs.
func user(args map[string]any) (string, error) {
	u, _ := args["user_id"].(string)
	if u == "" {
		return "", toolError("user_id is required: the host must supply the signed-in user")
	}
	return u, nil
}

func (s *Server) addTask(args map[string]any) (any, error) {
	u, err := user(args)
	if err != nil {
		return nil, err
	}
	title, _ := args["title"].(string)
	if title == "" {
		return nil, toolError("title must not be empty")
	}
	t := Task{Owner: u, Title: title, Priority: "normal"}
	if p, ok := args["priority"].(string); ok {
		if !slices.Contains([]string{"low", "normal", "high"}, p) {
			return nil, toolError(fmt.Sprintf("priority %q is not one of low, normal, high", p))
		}
		t.Priority = p
	}
	if tags, ok := args["tags"].([]any); ok {
		for _, x := range tags {
			t.Tags = append(t.Tags, fmt.Sprint(x))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.ID = s.next
	s.next++
	s.tasks = append(s.tasks, t)
	return t, nil
}

func (s *Server) listTasks(args map[string]any) (any, error) {
	u, err := user(args)
	if err != nil {
		return nil, err
	}
	status, _ := args["status"].(string)
	limit := 20
	if n, ok := args["limit"].(json.Number); ok {
		if i, err := n.Int64(); err == nil && i > 0 {
			limit = int(i)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Task{}
	for i := len(s.tasks) - 1; i >= 0 && len(out) < limit; i-- {
		t := s.tasks[i]
		if t.Owner != u || status == "open" && t.Done || status == "done" && !t.Done {
			continue
		}
		out = append(out, t)
	}
	return map[string]any{"tasks": out}, nil
}

func (s *Server) completeTask(args map[string]any) (any, error) {
	u, err := user(args)
	if err != nil {
		return nil, err
	}
	n, _ := args["task_id"].(json.Number)
	id, _ := n.Int64()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.tasks {
		if t := &s.tasks[i]; int64(t.ID) == id && t.Owner == u {
			t.Done = true
			return *t, nil
		}
	}
	return nil, toolError(fmt.Sprintf("task %d not found", id))
}
