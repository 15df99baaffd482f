package project

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

func parseBindings(t *testing.T, src string) (*Bindings, diag.List) {
	t.Helper()
	f := diag.NewFile("bindings.gram", []byte(src))
	doc, diags := parser.Parse(f)
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags)
	}
	return ParseBindings(f, doc, nil)
}

func TestParseBindings(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(findOrders:Program {command: "sh", args: ["tools/orders.sh", "find orders"]})
(customerId:Inject {value: "c-7"})
(token:Inject {env: "API_TOKEN"})
[github:MCPServer {command: "npx", args: ["-y", "server"]} | (GITHUB_TOKEN:Env {env: "GH_TOKEN"})]
[docs:MCPServer {url: "https://example.com/mcp"} | (:Header {name: "Authorization", env: "DOCS_TOKEN", prefix: "Bearer "})]
(:Model {baseURL: "http://localhost:11434/v1"})
(:Model {agent: "helper", model: "Ollama/llama3.2"})
(:Cassettes {dir: "cassettes"})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if len(b.Programs) != 1 || b.Programs[0].Command != "sh tools/orders.sh 'find orders'" {
		t.Errorf("programs: %+v", b.Programs)
	}
	if len(b.Injects) != 2 || b.Injects[0].Value.Literal != "c-7" || b.Injects[1].Value.Env != "API_TOKEN" {
		t.Errorf("injects: %+v", b.Injects)
	}
	if len(b.Servers) != 2 || b.Servers[0].Env[0].Name != "GITHUB_TOKEN" || b.Servers[1].Headers[0].Value.Prefix != "Bearer " {
		t.Errorf("servers: %+v", b.Servers)
	}
	if b.BaseURL == "" || len(b.Models) != 1 || b.Models["helper"].ID != "llama3.2" || !strings.HasSuffix(b.Cassettes, "cassettes") {
		t.Errorf("model, cassettes: %+v", b)
	}
	env := map[string]string{"API_TOKEN": "t", "GH_TOKEN": ""}
	missing := b.Missing(diag.NewFile("bindings.gram", nil), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if len(missing) != 2 || !strings.Contains(missing[0], "MCP server github, variable GITHUB_TOKEN: the environment variable GH_TOKEN is empty") ||
		!strings.Contains(missing[1], "MCP server docs, header Authorization: the environment variable DOCS_TOKEN is not set") {
		t.Errorf("missing: %q", missing)
	}
}

func TestParseBindingsProblems(t *testing.T) {
	_, diags := parseBindings(t, `{kind: "bindings"}
(x:Foo)
(t:Inject {value: "1", env: "T"})
(a:Program {})
(key:Inject {value: "sk-proj-abcdefghijklmnop123456"})
`)
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	want := []string{CodeBindings, CodeBindings, CodeBindings, CodeLiteralSecret}
	if strings.Join(codes, " ") != strings.Join(want, " ") {
		t.Fatalf("codes %v, want %v: %v", codes, want, diags)
	}
	fix := diags[3].Fixes
	if len(fix) != 1 || fix[0].Edits[0].NewText != `env: "KEY"` {
		t.Errorf("fix: %+v", fix)
	}
}

// TestParseBindingsUnknownKeys: a property a binding does not take, such
// as a misspelt key that would leave the binding other than written, is
// an error at the key with the properties it takes.
func TestParseBindingsUnknownKeys(t *testing.T) {
	src := `{kind: "bindings"}
(:Model {agent: "desk", modle: "OpenAI/gpt-4o"})
(:Price {model: "OpenAI/house", input: 1, output: 2, extra: 2})
[docs:MCPServer {url: "https://example.com/mcp"} | (:Header {name: "Authorization", env: "DOCS_TOKEN", prefx: "Bearer "})]
(ok:Inject {env: "T", prefix: "Bearer "})
`
	_, diags := parseBindings(t, src)
	want := []string{
		`modle: (:Model) takes no property modle; the properties it takes are: provider, baseURL, apiKey, agent, model, fallback, retries, backoff; did you mean "model"?`,
		`extra: (:Price) takes no property extra; the properties it takes are: model, input, output, cachedInput`,
		`prefx: (:Header) takes no property prefx; the properties it takes are: value, env, prefix, name; did you mean "prefix"?`,
	}
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%s: %s", src[d.Span.Start:d.Span.End], d.Message))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLooksLikeKey(t *testing.T) {
	for s, want := range map[string]bool{
		"sk-proj-abcdefghijklmnop123456":                true,
		"ghp_0123456789abcdefghijklmnopqrstuvwxyz":      true,
		"Bearer 0123456789abcdefghijklmnopqrstuvwxyzAB": true,
		"c-7":                       false,
		"tools/orders.sh":           false,
		"http://localhost:11434/v1": false,
		"Ollama/llama3.2":           false,
		"a very long sentence of words, not a key at all": false,
	} {
		if got := LooksLikeKey(s); got != want {
			t.Errorf("LooksLikeKey(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestFindBindings(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	if p, err := FindBindings(sub); err != nil || p != "" {
		t.Fatalf("none: %q %v", p, err)
	}
	os.WriteFile(filepath.Join(root, BindingsFile), []byte(`{kind: "bindings"}`), 0o644)
	if p, _ := FindBindings(sub); p != filepath.Join(root, BindingsFile) {
		t.Errorf("root: %q", p)
	}
	os.WriteFile(filepath.Join(root, "a", BindingsFile), []byte(`{kind: "bindings"}`), 0o644)
	if p, _ := FindBindings(sub); p != filepath.Join(root, "a", BindingsFile) {
		t.Errorf("nearest: %q", p)
	}
}

// A bindings file never joins its package: its names do not clash with the
// package's, and gramc check reports its problems.
func TestBindingsFileDoesNotJoin(t *testing.T) {
	src := func(path, text string) Source {
		f := diag.NewFile(path, []byte(text))
		doc, diags := parser.Parse(f)
		return Source{File: f, Doc: doc, Diags: diags}
	}
	pkg := Compile("p", []Source{
		src("p/tools.gram", `{kind: "agents"}
[find:Tool {description: "Finds"} | (q::String)==>(::String)]
[a:Agent {model: "OpenAI/gpt-4o-mini", instruction: "x"} | find]
`),
		src("p/bindings.gram", `{kind: "bindings"}
(find:Program {command: "echo"})
(oops:Foo)
`),
	})
	if d := pkg.Lookup("p/tools.gram").Diags; d.HasErrors() {
		t.Fatalf("tools.gram: %v", d)
	}
	b := pkg.Lookup("p/bindings.gram")
	if b.Member || !b.Diags.HasErrors() || pkg.HasErrors() {
		t.Errorf("member %v, diags %v, package errors %v", b.Member, b.Diags, pkg.HasErrors())
	}
}

// The model endpoint's key is read from an environment variable, and
// MissingKey names the binding and the variable when it is not set, unless
// the command line replaces the endpoint.
func TestParseBindingsAPIKey(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(:Model {baseURL: "https://gw.example/v1", apiKey: {env: "GW_KEY"}})
`)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if b.BaseURL != "https://gw.example/v1" || b.APIKey.Env != "GW_KEY" || b.APIKey.Literal != "" {
		t.Fatalf("endpoint: %q, key %+v", b.BaseURL, b.APIKey)
	}
	f := diag.NewFile("bindings.gram", []byte(`{kind: "bindings"}
(:Model {baseURL: "https://gw.example/v1", apiKey: {env: "GW_KEY"}})
`))
	env := map[string]string{}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if m := b.MissingKey(f, getenv, true); m != "bindings.gram:2:52: model endpoint, apiKey: the environment variable GW_KEY is not set; set it to the endpoint's API key" {
		t.Errorf("not set: %q", m)
	}
	env["GW_KEY"] = ""
	if m := b.MissingKey(f, getenv, true); !strings.Contains(m, "GW_KEY is empty") {
		t.Errorf("empty: %q", m)
	}
	if m := b.MissingKey(f, getenv, false); m != "" {
		t.Errorf("endpoint replaced: %q", m)
	}
	env["GW_KEY"] = "k"
	if m := b.MissingKey(f, getenv, true); m != "" {
		t.Errorf("set: %q", m)
	}
	if m := (&Bindings{}).MissingKey(f, getenv, true); m != "" {
		t.Errorf("no key: %q", m)
	}
}

// A key written in the file is a literal-secret error, whatever it looks
// like, with a fix that reads it from a variable; a key given to an agent's model, a
// variable name that is not one and a key bound twice are invalid-binding
// errors.
func TestParseBindingsAPIKeyProblems(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(:Model {baseURL: "https://gw.example/v1", apiKey: "sk-proj-abcdefghijklmnop123456"})`, "a key is never written"},
		{`(:Model {apiKey: "short"})`, "a key is never written"},
		{`(:Model {apiKey: {value: "short"}})`, "a key is never written"},
		{`(:Model {apiKey: {env: "GW KEY"}})`, `env: "GW KEY" is not the name of an environment variable`},
		{`(:Model {apiKey: {name: "GW_KEY"}})`, "unknown property name"},
		{`(:Model {apiKey: {}})`, "give the environment variable"},
		{`(:Model {agent: "a", model: "Ollama/x", apiKey: {env: "K"}})`, "belongs to the model endpoint"},
		{"(:Model {apiKey: {env: \"A\"}})\n(:Model {apiKey: {env: \"B\"}})", "model endpoint apiKey is bound twice"},
	} {
		b, diags := parseBindings(t, "{kind: \"bindings\"}\n"+tc.src+"\n")
		code := CodeBindings
		if tc.want == "a key is never written" {
			code = CodeLiteralSecret
		}
		if len(diags) != 1 || diags[0].Code != code || diags[0].Severity != diag.Error || !strings.Contains(diags[0].Message, tc.want) {
			t.Errorf("%s: diagnostics %v, want one error %q", tc.src, diags, tc.want)
		}
		if strings.Contains(tc.src, "never") && b.APIKey.Env != "" {
			t.Errorf("%s: key %+v", tc.src, b.APIKey)
		}
		if tc.want == "a key is never written" {
			fix := diags[0].Fixes
			if len(fix) != 1 || fix[0].Edits[0].NewText != `{env: "MODEL_API_KEY"}` || !strings.Contains(diags[0].Detail, `{env: "NAME"}`) {
				t.Errorf("%s: fix %+v, detail %q", tc.src, fix, diags[0].Detail)
			}
		}
	}
}

// TestParseBindingsArgs checks that the args of a program and of an MCP
// server are read the same way: an array of strings, quoted after the
// command, and an error for anything else.
func TestParseBindingsArgs(t *testing.T) {
	b, diags := parseBindings(t, `{kind: "bindings"}
(p:Program {command: "run", args: ["a b"]})
(s:MCPServer {command: "serve", args: ["-y", "x y"]})
(q:Program {command: "run", args: "a"})
(r:MCPServer {command: "serve", args: "-y"})
`)
	if got := b.Programs[0].Command; got != "run 'a b'" {
		t.Errorf("program command %q", got)
	}
	if got := b.Servers[0].Command; got != "serve -y 'x y'" {
		t.Errorf("server command %q", got)
	}
	var msgs []string
	for _, d := range diags {
		msgs = append(msgs, d.Message)
	}
	want := "q: args must be an array of strings; r: args must be an array of strings"
	if got := strings.Join(msgs, "; "); got != want {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
}
