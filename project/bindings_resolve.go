package project

// The bindings a run uses: the project's bindings file, found from the
// paths given or named, read, and merged under what the command line gives
// (a flag for the same name wins). gramc's commands and the editor's test
// runs resolve their bindings here.

import (
	"cmp"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/schema"
)

// BindingsRequest says which bindings file a run uses and what the command
// line gives over it.
type BindingsRequest struct {
	// From are the paths given (files, directories, "-" for the working
	// directory): the bindings file is the one [FindBindings] finds from
	// their directories, which must be the same for all of them.
	From []string
	// File names the bindings file to use instead (--bindings FILE): it is
	// read as named, not checked as a file found is.
	File string
	// None says that no bindings file is used (--bindings none).
	None bool
	// Tools and Injects are the names the command line binds to programs
	// and gives values: the file's bindings of those names are left out.
	Tools, Injects []string
	// BaseURL is the model endpoint the command line gives, or "": when
	// set, the file's endpoint and its key are left out, so that the key
	// is never sent to another server.
	BaseURL string
	// Limit is the size limit of the bindings file.
	Limit int64
}

// ResolvedBindings are the bindings of a run: what the bindings file gives
// that the command line does not.
type ResolvedBindings struct {
	// Path is the bindings file used, or "" (none, or finding it failed).
	Path string
	// Bindings are the file's bindings, nil when there is no file or it
	// cannot be used; their Injects are those the command line leaves.
	Bindings *Bindings
	// File is the bindings file's source, nil when it was not read.
	File *diag.File
	// Diags are the file's diagnostics when it has errors.
	Diags diag.List
	// Err says why the bindings cannot be used: finding or reading the
	// file failed, or it has errors.
	Err error
	// Programs are the tools bound to programs; each Command runs in the
	// bindings file's directory.
	Programs []Program
	// Servers are the MCP servers, in file order.
	Servers []ResolvedServer
	// Injects are the values of injected parameters, as text, of the
	// variables that are set.
	Injects map[string]string
	// Secrets are the values of the environment variables the bindings
	// read (and the token of a header's "Bearer TOKEN"), to mask.
	Secrets []string
	// BaseURL, APIKey and KeyVar are the model endpoint, its key and the
	// variable the key is read from; "" when the request gives a BaseURL.
	BaseURL, APIKey, KeyVar string
	// Endpoints are the same for the providers that have their own
	// endpoint (Anthropic, Gemini), by provider; a field is "" when the
	// file gives none (the environment's is used).
	Endpoints map[schema.Provider]ResolvedEndpoint
	// AgentModels are the file's models, fallbacks and retry policies of
	// agents.
	AgentModels
}

// ResolvedServer is an MCP server of the bindings file, ready to start: a
// Command (run in the bindings file's directory) with Env added to its
// environment, or a URL sent Headers. Its fields are those of the runtime's
// mcp.Source, which converts from it.
type ResolvedServer struct {
	Name, Command, URL string
	Env                []string
	Headers            http.Header
}

// ResolveBindings finds the bindings file the request names or the paths
// lead to, reads it and merges it under the command line. Nothing is
// printed: the problems are in the result's Err and Diags.
func ResolveBindings(req BindingsRequest) *ResolvedBindings {
	r := &ResolvedBindings{}
	if req.None {
		return r
	}
	path := req.File
	if path == "" {
		path, r.Err = findFrom(req.From)
		if r.Err != nil || path == "" {
			return r
		}
	}
	r.Path = path
	b, f, diags, err := LoadBindings(path, req.File == "", req.Limit)
	r.File = f
	if err != nil {
		r.Err, r.Diags = err, diags
		return r
	}
	r.Bindings = b
	for _, p := range b.Programs {
		if !slices.Contains(req.Tools, p.Name) {
			p.Command = inDir(b.Dir, p.Command)
			r.Programs = append(r.Programs, p)
		}
	}
	// The injected values the command line does not give, those set.
	b.Injects = slices.DeleteFunc(slices.Clone(b.Injects), func(s Setting) bool { return slices.Contains(req.Injects, s.Name) })
	for _, s := range b.Injects {
		if v, ok := r.read(s.Value, os.LookupEnv); ok {
			put(&r.Injects, s.Name, v)
		}
	}
	for _, sv := range b.Servers {
		r.Servers = append(r.Servers, r.server(b.Dir, sv, os.LookupEnv))
	}
	key, _ := r.read(b.APIKey, os.LookupEnv) // a secret even when not sent
	if req.BaseURL == "" {
		r.BaseURL, r.KeyVar, r.APIKey = b.BaseURL, b.APIKey.Env, key
	}
	for _, p := range EndpointProviders {
		ep, ok := b.Endpoints[p]
		if !ok {
			continue
		}
		re := ResolvedEndpoint{BaseURL: ep.BaseURL}
		if v, ok := r.read(ep.APIKey, os.LookupEnv); ok && ep.APIKey.Env != "" {
			re.APIKey, re.KeyVar = v, ep.APIKey.Env
		}
		put(&r.Endpoints, p, re)
	}
	r.AgentModels = b.AgentModels
	return r
}

// MissingKey returns a line for the first key of a model endpoint that the
// bindings file reads from an environment variable getenv does not find
// or finds empty: the place, the binding and the variable. The model
// endpoint's key comes first, unless the request's BaseURL replaces the
// endpoint, then the providers' endpoints' in the order of
// [EndpointProviders]; "" when every key can be read.
func (r *ResolvedBindings) MissingKey(getenv func(string) (string, bool)) string {
	b := r.Bindings
	if b == nil {
		return ""
	}
	if r.KeyVar != "" {
		if m := missing(r.File, getenv, "model endpoint, apiKey", keyFix, b.APIKey); m != "" {
			return m
		}
	}
	for _, p := range EndpointProviders {
		if m := missing(r.File, getenv, string(p)+" endpoint, apiKey", keyFix, b.Endpoints[p].APIKey); m != "" {
			return m
		}
	}
	return ""
}

// findFrom returns the bindings file of the paths (see [FindBindings]),
// or "" when there is none; it fails when they have different ones.
func findFrom(from []string) (string, error) {
	seen := ""
	for _, p := range from {
		dir := p
		if p == "-" {
			dir = "."
		} else if info, err := os.Stat(p); err == nil && !info.IsDir() {
			dir = filepath.Dir(p)
		}
		found, err := FindBindings(dir)
		if err != nil {
			return "", err
		}
		if seen != "" && found != seen {
			return "", fmt.Errorf("the paths given have different bindings files (%s and %s): give the paths of one project, or choose one with --bindings FILE", seen, cmp.Or(found, "none"))
		}
		seen = found
	}
	return seen, nil
}

// read returns the value v, reading its variable with getenv (ok is false
// when it is not set), and keeps the value of a variable as a secret.
func (r *ResolvedBindings) read(v Value, getenv func(string) (string, bool)) (string, bool) {
	s, ok := v.Get(getenv)
	if ok && v.Env != "" {
		r.Secrets = append(r.Secrets, s)
	}
	return s, ok
}

// server returns the MCP server sv of the bindings file of the directory
// dir, its values read, and keeps them as secrets.
func (r *ResolvedBindings) server(dir string, sv Server, getenv func(string) (string, bool)) ResolvedServer {
	out := ResolvedServer{Name: sv.Name, URL: sv.URL}
	if sv.Command != "" {
		out.Command = inDir(dir, sv.Command)
	}
	for _, s := range sv.Env {
		v, _ := s.Value.Get(getenv)
		out.Env = append(out.Env, s.Name+"="+v)
		r.Secrets = append(r.Secrets, v)
	}
	for _, s := range sv.Headers {
		if out.Headers == nil {
			out.Headers = http.Header{}
		}
		v, _ := s.Value.Get(getenv)
		out.Headers.Add(s.Name, v)
		r.Secrets = append(r.Secrets, v)
		if _, token, ok := strings.Cut(v, " "); ok {
			r.Secrets = append(r.Secrets, token)
		}
	}
	return out
}

// put sets (*m)[k] to v, making the map first when there is none.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// inDir returns the shell command that runs command in the directory dir.
func inDir(dir, command string) string {
	return "cd " + shellquote.Quote(dir) + " && " + command
}

// Agent returns a, or a copy of it with the model the bindings give it in
// place of its own, at the span of its own: the agent given, shared with
// its program, is never modified. gramc's runs and the editor's test runs
// take it.
func (r *ResolvedBindings) Agent(a *schema.Agent) *schema.Agent {
	if a == nil {
		return a
	}
	m, ok := r.Models[a.Name]
	if !ok {
		return a
	}
	c := *a
	m.Span = a.Model.Span
	c.Model = m
	return &c
}

// Program returns p, or a copy of it whose agents have the models the
// bindings give them (see [ResolvedBindings.Agent]): the program of a run
// in which the agents it calls or hands off to are found, each with its
// bound model. p is never modified; nil gives nil.
func (r *ResolvedBindings) Program(p *schema.Program) *schema.Program {
	if p == nil || len(r.Models) == 0 {
		return p
	}
	agents := make([]*schema.Agent, 0, p.NumAgents())
	changed := false
	for _, a := range p.AllAgents() {
		b := r.Agent(a)
		changed = changed || b != a
		agents = append(agents, b)
	}
	if !changed {
		return p
	}
	return schema.NewProgram(p.File, agents, p.Tools(), p.Records)
}

// Test returns t, or a copy of it whose agent has the model the bindings
// give it (see [ResolvedBindings.Agent]).
func (r *ResolvedBindings) Test(t *schema.Test) *schema.Test {
	a := r.Agent(t.Agent)
	if a == t.Agent {
		return t
	}
	c := *t
	c.Agent = a
	return &c
}

// ResolvedEndpoint is a provider's endpoint as the bindings give it: its
// base URL, its key and the environment variable the key was read from
// ("" where the file gives none), the fields of the runtime's Endpoint,
// which converts from it.
type ResolvedEndpoint struct {
	BaseURL, APIKey, KeyVar string
}
