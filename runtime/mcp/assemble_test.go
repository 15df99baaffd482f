package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
)

// The command line's servers come before the bindings' programs, which
// come before the bindings' servers: the first source of a name binds it.
func TestAssembleOrder(t *testing.T) {
	a := mcp.Assembly{
		Tools:    []runtime.Tool{runtime.ExecTool("sayHello", "echo hi", 0)},
		Servers:  []mcp.Source{{Command: serverCommand(t)}, {Name: "bound", Command: serverCommand(t, "-extra")}},
		Programs: []mcp.Program{{Name: "add_task", Command: "true"}, {Name: "echo", Command: "true"}, {Name: "own", Command: "true"}},
		Need:     []string{"add_task", "echo"},
		Logger:   quietLog,
	}
	lib, closeTools, err := mcp.Assemble(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	if tool, _ := lib.Lookup("add_task"); tool.Parameters == nil {
		t.Error("add_task: the program replaced the command line's server")
	}
	if tool, _ := lib.Lookup("echo"); tool.Parameters != nil {
		t.Error("echo: the bindings' server replaced their program")
	}
	if _, ok := lib.Lookup("own"); !ok {
		t.Error("own: not registered")
	}
	if _, ok := lib.Lookup("list_tasks"); ok {
		t.Error("list_tasks: added, though not needed")
	}
	if tool, _ := lib.Lookup("sayHello"); tool.Description != "" {
		t.Errorf("sayHello: the built-in tool was not replaced: %+v", tool)
	}
}

func TestAssembleRegisterError(t *testing.T) {
	_, _, err := mcp.Assemble(context.Background(), mcp.Assembly{Programs: []mcp.Program{{Command: "true"}}, Logger: quietLog})
	var re *mcp.RegisterError
	if !errors.As(err, &re) || !re.Program || err.Error() != "tool : registering a tool without a name" {
		t.Errorf("err: %v", err)
	}
}

// Headers go to the origins of the servers' URLs only.
func TestHeaderTransport(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	h := http.Header{"Authorization": {"Bearer secret"}}
	for _, urls := range [][]string{{srv.URL + "/mcp"}, {"http://elsewhere.example/mcp"}} {
		c := &http.Client{Transport: mcp.NewHeaderTransport(h, http.DefaultTransport, urls...)}
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if len(got) != 2 || got[0] != "Bearer secret" || got[1] != "" {
		t.Errorf("headers sent: %q", got)
	}
}
