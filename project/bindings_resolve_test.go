package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveBindings(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, BindingsFile), []byte(`{kind: "bindings"}
(findOrders:Program {command: "orders.sh"})
(lookup:Program {command: "lookup.sh"})
(customerId:Inject {value: "c-7"})
(token:Inject {env: "API_TOKEN"})
[docs:MCPServer {url: "https://example.com/mcp"} | (:Header {name: "Authorization", env: "DOCS_TOKEN", prefix: "Bearer "})]
(:Model {baseURL: "http://localhost:11434/v1", apiKey: {env: "MY_KEY"}})
(:Model {agent: "helper", model: "Ollama/llama3.2", fallback: ["OpenAI/gpt-4o"], retries: 2})
`), 0o600)
	file := filepath.Join(root, "agent.gram")
	os.WriteFile(file, []byte(`{kind: "agents"}`), 0o600)
	t.Setenv("API_TOKEN", "token-value")
	t.Setenv("DOCS_TOKEN", "docs-secret")
	t.Setenv("MY_KEY", "the-key")

	r := ResolveBindings(BindingsRequest{From: []string{file}, Tools: []string{"lookup"}, Injects: []string{"customerId"}, Limit: 1 << 20})
	if r.Err != nil {
		t.Fatalf("err: %v %v", r.Err, r.Diags)
	}
	if r.Path != filepath.Join(root, BindingsFile) {
		t.Errorf("path: %q", r.Path)
	}
	if len(r.Programs) != 1 || r.Programs[0].Name != "findOrders" || !strings.HasPrefix(r.Programs[0].Command, "cd ") || !strings.HasSuffix(r.Programs[0].Command, " && orders.sh") {
		t.Errorf("programs: %+v", r.Programs)
	}
	if len(r.Injects) != 1 || r.Injects["token"] != "token-value" || len(r.Bindings.Injects) != 1 {
		t.Errorf("injects: %v, kept %+v", r.Injects, r.Bindings.Injects)
	}
	if len(r.Servers) != 1 || r.Servers[0].Headers.Get("Authorization") != "Bearer docs-secret" {
		t.Errorf("servers: %+v", r.Servers)
	}
	for _, s := range []string{"token-value", "docs-secret", "the-key"} {
		if !strings.Contains(strings.Join(r.Secrets, " "), s) {
			t.Errorf("secret %q not in %q", s, r.Secrets)
		}
	}
	if r.BaseURL != "http://localhost:11434/v1" || r.APIKey != "the-key" || r.KeyVar != "MY_KEY" || r.Models["helper"].ID != "llama3.2" ||
		len(r.Fallbacks["helper"]) != 1 || *r.Retries["helper"].Retries != 2 {
		t.Errorf("model: %q %q %q %+v", r.BaseURL, r.APIKey, r.KeyVar, r.AgentModels)
	}

	// --base-url replaces the endpoint and its key; --bindings none, the file.
	if r := ResolveBindings(BindingsRequest{From: []string{file}, BaseURL: "http://other", Limit: 1 << 20}); r.BaseURL != "" || r.APIKey != "" || r.KeyVar != "" {
		t.Errorf("--base-url: %q %q %q", r.BaseURL, r.APIKey, r.KeyVar)
	}
	if r := ResolveBindings(BindingsRequest{From: []string{file}, None: true}); r.Path != "" || r.Bindings != nil || r.Err != nil {
		t.Errorf("none: %+v", r)
	}

	// Paths of two projects have different bindings files.
	other := t.TempDir()
	os.Mkdir(filepath.Join(other, ".git"), 0o755)
	r = ResolveBindings(BindingsRequest{From: []string{file, other}, Limit: 1 << 20})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "different bindings files") || !strings.Contains(r.Err.Error(), " and none)") {
		t.Errorf("two projects: %v", r.Err)
	}
}
