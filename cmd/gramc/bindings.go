package main

// The project's bindings file under the flags: found from the path given,
// read before anything is printed (its secrets are masked), checked after,
// and merged under the flags (a flag for the same name wins).

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// boundProgram is a tool bound to a program by the bindings file.
type boundProgram struct {
	name, command, dir string
}

// bindingsState is what the bindings file gave a command.
type bindingsState struct {
	from     []string          // the paths given, whose bindings file is used
	noFile   bool              // --bindings none
	explicit string            // --bindings FILE
	b        *project.Bindings // nil: none
	file     *diag.File        // the bindings file's source
	diags    diag.List         // its errors, reported after protect
	loadErr  error             // reading it failed
	programs []boundProgram    // tools not bound by a --tool flag
	injects  map[string]string // injected values not given by --inject, as text
	secrets  []string          // the values of the variables it reads
	noModel  bool              // every answer is replayed: the endpoint's key is not needed
	models   map[string]schema.Model
}

// loadBindings finds the bindings file of the paths given (see
// project.FindBindings), reads it and merges it under the flags. Nothing
// is printed: problems are reported by checkBindings.
func (o *runOptions) loadBindings(e *env) {
	st := &o.bound
	path := st.explicit
	if st.noFile {
		return
	}
	if path == "" {
		seen := ""
		for _, p := range st.from {
			dir := p
			if p == "-" {
				dir = "."
			} else if info, err := os.Stat(p); err == nil && !info.IsDir() {
				dir = filepath.Dir(p)
			}
			found, err := project.FindBindings(dir)
			if err != nil {
				st.loadErr = err
				return
			}
			if seen != "" && found != seen {
				st.loadErr = fmt.Errorf("the paths given have different bindings files (%s and %s): give the paths of one project, or choose one with --bindings FILE", seen, noneIfEmpty(found))
				return
			}
			seen = found
		}
		path = seen
	}
	if path == "" {
		return
	}
	b, f, diags, err := project.LoadBindings(path, st.explicit == "", e.maxFileSize)
	st.file = f
	if err != nil {
		st.loadErr = err
		st.diags = diags
		return
	}
	st.b = b
	getenv := os.LookupEnv
	flagTools := specNames(o.tools)
	for _, p := range b.Programs {
		if !slices.Contains(flagTools, p.Name) {
			st.programs = append(st.programs, boundProgram{p.Name, p.Command, b.Dir})
		}
	}
	flagInjects := specNames(o.injects)
	kept := b.Injects[:0:0]
	for _, s := range b.Injects {
		if slices.Contains(flagInjects, s.Name) {
			continue
		}
		kept = append(kept, s)
		if v, ok := s.Value.Get(getenv); ok {
			if st.injects == nil {
				st.injects = map[string]string{}
			}
			st.injects[s.Name] = v
			if s.Value.Env != "" {
				st.secrets = append(st.secrets, v)
			}
		}
	}
	b.Injects = kept
	for _, sv := range b.Servers {
		src := mcpSource{name: sv.Name, url: sv.URL}
		if sv.Command != "" {
			src.command = "cd " + shellQuote(b.Dir) + " && " + sv.Command
		}
		for _, s := range sv.Env {
			v, _ := s.Value.Get(getenv)
			src.env = append(src.env, s.Name+"="+v)
			st.secrets = append(st.secrets, v)
		}
		for _, s := range sv.Headers {
			if src.headers == nil {
				src.headers = http.Header{}
			}
			v, _ := s.Value.Get(getenv)
			src.headers.Add(s.Name, v)
			st.secrets = append(st.secrets, v)
			if _, token, ok := strings.Cut(v, " "); ok {
				st.secrets = append(st.secrets, token)
			}
		}
		o.mcp = append(o.mcp, src)
	}
	if v, ok := b.APIKey.Get(getenv); ok && b.APIKey.Env != "" {
		st.secrets = append(st.secrets, v)
	}
	if o.baseURL == "" {
		// The endpoint and its key go together: --base-url replaces both,
		// so that the key is never sent to another server.
		o.baseURL = b.BaseURL
		o.keyVar = b.APIKey.Env
		o.apiKey, _ = b.APIKey.Get(getenv)
	}
	for _, m := range b.Models {
		if st.models == nil {
			st.models = map[string]schema.Model{}
		}
		st.models[m.Agent] = m.Model
	}
}

// checkBindings reports the problems of the bindings file, once what is
// written is masked: its errors, and the environment variables it reads
// that are not set (the model endpoint's key only when a model is called:
// not with --replay, and not when --base-url replaces the endpoint). Both
// come before any model call.
func (o *runOptions) checkBindings(e *env) error {
	st := &o.bound
	if len(st.diags) > 0 && st.file != nil {
		var errs diag.List
		for _, d := range st.diags {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
		writeDiags(e, st.file, errs, 0)
	}
	if st.loadErr != nil {
		if ue := (*project.UntrustedError)(nil); st.file != nil && !errors.As(st.loadErr, &ue) {
			return fail(exitConfig, "%s: %s: %v; see gramc check %s", o.cmd, st.file.Path, st.loadErr, st.file.Path)
		}
		return fail(exitConfig, "%s: bindings: %v", o.cmd, st.loadErr)
	}
	if st.b == nil {
		return nil
	}
	missing := st.b.Missing(st.file, os.LookupEnv)
	if !st.noModel && o.replay == "" {
		if m := o.missingKey(); m != "" {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return fail(exitConfig, "%s", joinLines(o.cmd+": "+strings.Join(missing, "\n"+o.cmd+": "),
			"  hint: the bindings file refers to environment variables and never holds their values: export each one before the command"))
	}
	return nil
}

// missingKey returns why the model endpoint's key that the bindings file
// names cannot be read (its variable not set or empty), or "".
func (o *runOptions) missingKey() string {
	if o.keyVar == "" || o.bound.b == nil {
		return ""
	}
	return o.bound.b.MissingKey(o.bound.file, os.LookupEnv)
}

// keyError is the configuration error of missingKey.
func (o *runOptions) keyError(missing string) error {
	return fail(exitConfig, "%s", joinLines(o.cmd+": "+missing,
		"  hint: the bindings file names the variable that holds the model endpoint's key and never holds the key: export it before the command, or replay recorded answers with --replay"))
}

// applyModels replaces the models of the agents the bindings file names.
func (o *runOptions) applyModels(agents ...*schema.Agent) {
	for _, a := range agents {
		if a == nil {
			continue
		}
		if m, ok := o.bound.models[a.Name]; ok {
			m.Span = a.Model.Span
			a.Model = m
		}
	}
}

// specNames returns the names of NAME=VALUE flag values.
func specNames(specs []string) []string {
	var out []string
	for _, s := range specs {
		name, _, _ := strings.Cut(s, "=")
		out = append(out, strings.TrimSpace(name))
	}
	return out
}

// noneIfEmpty returns s, or "none".
func noneIfEmpty(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
