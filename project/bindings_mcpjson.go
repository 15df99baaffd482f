package project

// The MCP servers of an mcp.json file, the shape editors and agent tools
// share: {"servers": {NAME: {command, args, env} | {url, headers}}} (or
// "mcpServers"). A bindings file reads one with (:MCPServers {file: PATH});
// a value that refers to an environment variable ("${env:NAME}" or
// "${NAME}", after an optional prefix such as "Bearer ") is read from the
// environment, as {env: "NAME"} is.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/shellquote"
)

// mcpJSONLimit is the size limit of an mcp.json file.
const mcpJSONLimit = 1 << 20

// mcpJSONServer is a server of an mcp.json file, as written.
type mcpJSONServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	EnvFile *string           `json:"envFile"`
	Cwd     *string           `json:"cwd"`
}

// mcpJSONVar matches a reference to a variable at the end of a value:
// "${env:NAME}" or "${NAME}" (group 2), or another kind "${KIND:...}"
// (group 1).
var mcpJSONVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(?:(env|input|config|command|workspaceFolder[^:}]*):)?([^}]*)\}`)
})

// readMCPJSON reads, with read, the servers of the mcp.json file at path
// (as written in the bindings file: rel) in file order. Each problem is an
// error at span, naming the file, the server and the fix, every problem of
// every server reported; a literal value that looks like a key is a
// warning there. A server with a problem is left out.
func readMCPJSON(read func(string) ([]byte, error), path, rel string, span diag.Span) ([]Server, diag.List) {
	var diags diag.List
	errf := func(format string, a ...any) {
		diags = append(diags, diag.Errorf(CodeBindings, span, "%s: %s", rel, fmt.Sprintf(format, a...)))
	}
	data, err := read(path)
	if err != nil {
		errf("%v", err)
		return nil, diags
	}
	names, raw, err := mcpJSONEntries(data)
	if err != nil {
		errf("%v; the file is {\"servers\": {NAME: {\"command\": ..., \"args\": [...], \"env\": {...}} | {\"url\": ..., \"headers\": {...}}}}", err)
		return nil, diags
	}
	var out []Server
	for i, name := range names {
		var js mcpJSONServer
		if err := json.Unmarshal(raw[i], &js); err != nil {
			errf("server %s: %v", name, err)
			continue
		}
		sv, d := mcpJSONServerOf(js, name, rel, span)
		diags = append(diags, d...)
		if !d.HasErrors() {
			out = append(out, sv)
		}
	}
	return out, diags
}

// mcpJSONServerOf returns the server an mcp.json file declares as name,
// and its problems: every one, each an error at span naming the file
// (rel), the server and the fix, and a warning for each literal value
// that looks like a key.
func mcpJSONServerOf(js mcpJSONServer, name, rel string, span diag.Span) (Server, diag.List) {
	var diags diag.List
	where := "server " + name
	errAt := func(at, format string, a ...any) {
		diags = append(diags, diag.Errorf(CodeBindings, span, "%s: %s: %s", rel, at, fmt.Sprintf(format, a...)))
	}
	errf := func(format string, a ...any) { errAt(where, format, a...) }
	sv := Server{Name: name, URL: js.URL, From: rel, Span: span}
	if js.EnvFile != nil {
		errf("envFile is not read: list the variables in \"env\", each as \"${env:NAME}\"")
	}
	if js.Cwd != nil {
		errf("cwd is not read: the server runs in the bindings file's directory")
	}
	switch {
	case js.Type == "sse":
		errf("type \"sse\" is not supported: gramc reaches MCP servers over streamable HTTP (type \"http\")")
	case js.Type != "" && js.Type != "stdio" && js.Type != "http":
		errf("unknown type %q: give \"stdio\" (a command) or \"http\" (a url)", js.Type)
	}
	if (js.Command == "") == (js.URL == "") {
		errf("give a command or a url, not both")
	}
	for _, s := range append([]string{js.Command, js.URL}, js.Args...) {
		if strings.Contains(s, "${") {
			errf("%q: variables are read in \"env\" and \"headers\" only; write the value, or pass it to the server in \"env\"", s)
		}
	}
	if js.Command != "" {
		sv.Command = shellquote.Quote(js.Command)
		for _, a := range js.Args {
			sv.Command += " " + shellquote.Quote(a)
		}
	}
	settings := func(kind string, m map[string]string) []Setting {
		var out []Setting
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v, err := mcpJSONValue(m[k], span)
			if err != nil {
				errAt(where+", "+kind+" "+k, "%v", err)
				continue
			}
			if v.Env == "" && LooksLikeKey(v.Literal) {
				d := diag.Warningf(CodeLiteralSecret, span, "%s: %s, %s %s: this looks like a key or a token written in the file: anyone who reads the file or its history can use it", rel, where, kind, k)
				d.Detail = "keep it in an environment variable and refer to it: \"${env:NAME}\""
				diags = append(diags, d)
			}
			out = append(out, Setting{k, v})
		}
		return out
	}
	sv.Env, sv.Headers = settings("env", js.Env), settings("header", js.Headers)
	if js.URL == "" && len(js.Headers) > 0 {
		errf("headers are sent to a server at a url; a server run by a command takes \"env\"")
	}
	if js.Command == "" && len(js.Env) > 0 {
		errf("env is given to a server run by a command; a server at a url takes \"headers\"")
	}
	return sv, diags
}

// mcpJSONValue reads a value of env or headers: text, or text ending in a
// reference to an environment variable.
func mcpJSONValue(s string, span diag.Span) (Value, error) {
	v := Value{Span: span}
	loc := mcpJSONVar().FindStringSubmatchIndex(s)
	if loc == nil {
		if strings.Contains(s, "${") {
			return v, fmt.Errorf("%q: write a reference to a variable as \"${env:NAME}\"", s)
		}
		v.Literal = s
		return v, nil
	}
	kind, name := "", s[loc[4]:loc[5]]
	if loc[2] >= 0 {
		kind = s[loc[2]:loc[3]]
	}
	switch {
	case kind == "input":
		return v, fmt.Errorf("%q is an editor prompt, which a command cannot answer: read the value from an environment variable, \"${env:NAME}\"", s)
	case kind != "" && kind != "env":
		return v, fmt.Errorf("%q: only environment variables are read, \"${env:NAME}\"", s)
	case !envName().MatchString(name):
		return v, fmt.Errorf("%q: %q is not the name of an environment variable", s, name)
	case loc[1] != len(s) || strings.Contains(s[:loc[0]], "${"):
		return v, fmt.Errorf("%q: a value is text followed by one variable (\"Bearer ${env:TOKEN}\"), nothing after it", s)
	}
	v.Prefix, v.Env = s[:loc[0]], name
	return v, nil
}

// mcpJSONEntries returns the names and the values of the servers of an
// mcp.json file, in file order.
func mcpJSONEntries(data []byte) ([]string, []json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %v", err)
	}
	key := "servers"
	_, s := top["servers"]
	_, m := top["mcpServers"]
	switch {
	case s && m:
		return nil, nil, errors.New("both \"servers\" and \"mcpServers\": give one")
	case m:
		key = "mcpServers"
	case !s:
		return nil, nil, errors.New("no \"servers\"")
	}
	dec := json.NewDecoder(bytes.NewReader(top[key]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("%q is not an object", key)
	}
	var names []string
	var raws []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		if len(raw) == 0 || raw[0] != '{' {
			return nil, nil, fmt.Errorf("server %s is not an object", t)
		}
		names, raws = append(names, t.(string)), append(raws, raw)
	}
	return names, raws, nil
}

// ReadNamedFile reads a file a bindings file names (an mcp.json file) at
// path: a regular file, refused when larger than the limit of such files
// (1 MiB; see [inputfile.Read]).
func ReadNamedFile(path string) ([]byte, error) { return inputfile.Read(path, mcpJSONLimit) }
