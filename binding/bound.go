package binding

// The bindings a run uses: the project's bindings file, found from the
// paths given or named, read, and merged under what the command line gives
// (a flag for the same name wins).

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
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
	"github.com/gramlang/gram/runtime/mcp"
	"github.com/gramlang/gram/schema"
)

// Bound is what the project's bindings file gives a run that the command
// line does not. Its models, fallbacks and retry policies of agents are
// the file's (see [project.AgentModels.Agent]).
type Bound struct {
	// Path is the bindings file used, or "" (none, or finding it failed).
	Path string
	// Bindings are the file's bindings, nil when there is no file or it
	// cannot be used; their Injects are those the command line leaves.
	Bindings *project.Bindings
	// File is the bindings file's source, nil when it was not read.
	File *diag.File
	// Diags are the file's diagnostics when it has errors.
	Diags diag.List
	// Err says why the bindings cannot be used: finding or reading the
	// file failed, or it has errors.
	Err error
	// Programs are the tools bound to programs; each Command runs in the
	// bindings file's directory.
	Programs []project.Program
	// Injects are the values of injected parameters, as text, of the
	// variables that are set.
	Injects map[string]string
	// Secrets are the values of the environment variables the bindings
	// read (and the token of a header's "Bearer TOKEN"), to mask.
	Secrets []string
	// Endpoints are the endpoints of the providers that have their own
	// (Anthropic, Gemini), by provider; a field is "" when the file gives
	// none (the environment's is used).
	Endpoints map[schema.Provider]runtime.Endpoint
	project.AgentModels
}

// Resolve finds the bindings file of the paths given (see
// [project.FindBindings]) or the one named, reads it and merges it under
// the flags: its tool programs and injected values are those the flags do
// not give, its MCP servers come after the flags', and its endpoint and key
// are used unless --base-url replaces both, so that the key is never sent
// to another server. Nothing is printed: [Setup.Check] reports the
// problems.
func Resolve(o Options) *Setup {
	s := &Setup{Options: o}
	r := &s.Bound
	if o.NoBindings {
		return s
	}
	path := o.BindingsFile
	if path == "" {
		path, r.Err = findFrom(o.From)
		if r.Err != nil || path == "" {
			return s
		}
	}
	r.Path = path
	b, f, diags, err := project.LoadBindings(path, o.BindingsFile == "", o.MaxFileSize)
	r.File = f
	if err != nil {
		r.Err, r.Diags = err, diags
		return s
	}
	r.Bindings = b
	tools, injects := SpecNames(o.Tools), SpecNames(o.Injects)
	for _, p := range b.Programs {
		if !slices.Contains(tools, p.Name) {
			p.Command = inDir(b.Dir, p.Command)
			r.Programs = append(r.Programs, p)
		}
	}
	// The injected values the command line does not give, those set.
	b.Injects = slices.DeleteFunc(slices.Clone(b.Injects), func(s project.Setting) bool { return slices.Contains(injects, s.Name) })
	r.Injects = map[string]string{}
	for _, s := range b.Injects {
		if v, ok := r.read(s.Value); ok {
			r.Injects[s.Name] = v
		}
	}
	for _, sv := range b.Servers {
		s.MCP = append(s.MCP, r.server(b.Dir, sv))
	}
	key, _ := r.read(b.APIKey) // a secret even when not sent
	if o.BaseURL == "" {
		s.BaseURL, s.KeyVar, s.APIKey = b.BaseURL, b.APIKey.Env, key
	}
	for _, p := range project.EndpointProviders {
		ep, ok := b.Endpoints[p]
		if !ok {
			continue
		}
		if r.Endpoints == nil {
			r.Endpoints = map[schema.Provider]runtime.Endpoint{}
		}
		re := runtime.Endpoint{BaseURL: ep.BaseURL}
		if v, ok := r.read(ep.APIKey); ok && ep.APIKey.Env != "" {
			re.APIKey, re.KeyVar = v, ep.APIKey.Env
		}
		r.Endpoints[p] = re
	}
	r.AgentModels = b.AgentModels
	return s
}

// MissingKey returns a line for the first key of a model endpoint that the
// bindings file reads from an environment variable getenv does not find
// or finds empty (see [project.Bindings.MissingKey]): the model endpoint's
// unless --base-url replaces it, then the providers'; "" when every key
// can be read.
func (s *Setup) MissingKey(getenv func(string) (string, bool)) string {
	return s.Bound.Bindings.MissingKey(s.Bound.File, getenv, s.KeyVar != "")
}

// findFrom returns the bindings file of the paths (see
// [project.FindBindings]), or "" when there is none; it fails when they
// have different ones.
func findFrom(from []string) (string, error) {
	seen := ""
	for _, p := range from {
		dir := p
		if p == "-" {
			dir = "."
		} else if info, err := os.Stat(p); err == nil && !info.IsDir() {
			dir = filepath.Dir(p)
		}
		found, err := project.FindBindings(dir)
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

// read returns the value v, reading its variable from the environment (ok
// is false when it is not set), and keeps the value of a variable as a
// secret.
func (r *Bound) read(v project.Value) (string, bool) {
	s, ok := v.Get(os.LookupEnv)
	if ok && v.Env != "" {
		r.Secrets = append(r.Secrets, s)
	}
	return s, ok
}

// server returns the MCP server sv of the bindings file of the directory
// dir, its values read, and keeps them as secrets.
func (r *Bound) server(dir string, sv project.Server) mcp.Source {
	out := mcp.Source{Name: sv.Name, URL: sv.URL}
	if sv.Command != "" {
		out.Command = inDir(dir, sv.Command)
	}
	for _, s := range sv.Env {
		v, _ := s.Value.Get(os.LookupEnv)
		out.Env = append(out.Env, s.Name+"="+v)
		r.Secrets = append(r.Secrets, v)
	}
	for _, s := range sv.Headers {
		if out.Headers == nil {
			out.Headers = http.Header{}
		}
		v, _ := s.Value.Get(os.LookupEnv)
		out.Headers.Add(s.Name, v)
		r.Secrets = append(r.Secrets, v)
		if _, token, ok := strings.Cut(v, " "); ok {
			r.Secrets = append(r.Secrets, token)
		}
	}
	return out
}

// inDir returns the shell command that runs command in the directory dir.
func inDir(dir, command string) string {
	return "cd " + shellquote.Quote(dir) + " && " + command
}
