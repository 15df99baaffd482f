package binding

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

func TestResolve(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, project.BindingsFile), []byte(`{kind: "bindings"}
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

	r := Resolve(Options{From: []string{file}, Tools: []string{"lookup=x"}, Injects: []string{"customerId=y"}, MaxFileSize: 1 << 20})
	if r.Bound.Err != nil {
		t.Fatalf("err: %v %v", r.Bound.Err, r.Bound.Diags)
	}
	if r.Bound.Path != filepath.Join(root, project.BindingsFile) {
		t.Errorf("path: %q", r.Bound.Path)
	}
	if len(r.Bound.Programs) != 1 || r.Bound.Programs[0].Name != "findOrders" || !strings.HasPrefix(r.Bound.Programs[0].Command, "cd ") || !strings.HasSuffix(r.Bound.Programs[0].Command, " && orders.sh") {
		t.Errorf("programs: %+v", r.Bound.Programs)
	}
	if len(r.Bound.Injects) != 1 || r.Bound.Injects["token"] != "token-value" || len(r.Bound.Bindings.Injects) != 1 {
		t.Errorf("injects: %v, kept %+v", r.Bound.Injects, r.Bound.Bindings.Injects)
	}
	if len(r.MCP) != 1 || r.MCP[0].Headers.Get("Authorization") != "Bearer docs-secret" {
		t.Errorf("servers: %+v", r.MCP)
	}
	for _, s := range []string{"token-value", "docs-secret", "the-key"} {
		if !strings.Contains(strings.Join(r.Bound.Secrets, " "), s) {
			t.Errorf("secret %q not in %q", s, r.Bound.Secrets)
		}
	}
	if r.BaseURL != "http://localhost:11434/v1" || r.APIKey != "the-key" || r.KeyVar != "MY_KEY" || r.Bound.Models["helper"].ID != "llama3.2" ||
		len(r.Bound.Fallbacks["helper"]) != 1 || *r.Bound.Retries["helper"].Retries != 2 {
		t.Errorf("model: %q %q %q %+v", r.BaseURL, r.APIKey, r.KeyVar, r.Bound.AgentModels)
	}

	// --base-url replaces the endpoint and its key; --bindings none, the file.
	if r := Resolve(Options{From: []string{file}, BaseURL: "http://other", MaxFileSize: 1 << 20}); r.BaseURL != "http://other" || r.APIKey != "" || r.KeyVar != "" {
		t.Errorf("--base-url: %q %q %q", r.BaseURL, r.APIKey, r.KeyVar)
	}
	if r := Resolve(Options{From: []string{file}, NoBindings: true}); r.Bound.Path != "" || r.Bound.Bindings != nil || r.Bound.Err != nil || r.BaseURL != "" {
		t.Errorf("none: %+v", r)
	}

	// Paths of two projects have different bindings files.
	other := t.TempDir()
	os.Mkdir(filepath.Join(other, ".git"), 0o755)
	r = Resolve(Options{From: []string{file, other}, MaxFileSize: 1 << 20})
	if r.Bound.Err == nil || !strings.Contains(r.Bound.Err.Error(), "different bindings files") || !strings.Contains(r.Bound.Err.Error(), " and none)") {
		t.Errorf("two projects: %v", r.Bound.Err)
	}
}

func TestResolveGeminiEndpoint(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, project.BindingsFile), []byte(`{kind: "bindings"}
(:Model {provider: "Gemini", baseURL: "https://gemini.example", apiKey: {env: "MY_GEMINI_KEY"}})
`), 0o600)
	file := filepath.Join(root, "agent.gram")
	os.WriteFile(file, []byte(`{kind: "agents"}`), 0o600)
	t.Setenv("MY_GEMINI_KEY", "gemini-secret")
	r := Resolve(Options{From: []string{file}, MaxFileSize: 1 << 20})
	if r.Bound.Err != nil {
		t.Fatalf("err: %v %v", r.Bound.Err, r.Bound.Diags)
	}
	g := r.Bound.Endpoints[schema.Gemini]
	if g.BaseURL != "https://gemini.example" || g.APIKey != "gemini-secret" || g.KeyVar != "MY_GEMINI_KEY" {
		t.Errorf("Gemini endpoint: base %q var %q, key set %v", g.BaseURL, g.KeyVar, g.APIKey != "")
	}
	if _, ok := r.Bound.Endpoints[schema.Anthropic]; ok {
		t.Errorf("an Anthropic endpoint the file does not give")
	}
	if r.APIKey != "" || !slices.Contains(r.Bound.Secrets, "gemini-secret") {
		t.Errorf("the key is the model endpoint's or not among the secrets (model key set %v)", r.APIKey != "")
	}
}
