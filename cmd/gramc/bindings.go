package main

// The project's bindings file under the flags: resolved by
// project.ResolveBindings before anything is printed (its secrets are
// masked), its problems reported after.

import (
	"errors"
	"os"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime/mcp"
)

// bindingsState is what the bindings file gave a command.
type bindingsState struct {
	from     []string // the paths given, whose bindings file is used
	noFile   bool     // --bindings none
	explicit string   // --bindings FILE
	noModel  bool     // every answer is replayed: the endpoint's key is not needed
	// The bindings resolved under the flags (see loadBindings).
	project.ResolvedBindings
}

// loadBindings finds the bindings file of the paths given (see
// project.FindBindings), reads it and merges it under the flags. Nothing
// is printed: problems are reported by checkBindings.
func (o *runOptions) loadBindings(e *env) {
	st := &o.bound
	st.ResolvedBindings = *project.ResolveBindings(project.BindingsRequest{
		From: st.from, File: st.explicit, None: st.noFile,
		Tools: specNames(o.tools), Injects: specNames(o.injects), BaseURL: o.baseURL,
		Limit: e.maxFileSize,
	})
	for _, sv := range st.Servers {
		o.mcp = append(o.mcp, mcp.Source(sv))
	}
	if o.baseURL == "" {
		// The endpoint and its key go together: --base-url replaces both,
		// so that the key is never sent to another server.
		o.baseURL, o.keyVar, o.apiKey = st.BaseURL, st.KeyVar, st.APIKey
	}
}

// checkBindings reports the problems of the bindings file, once what is
// written is masked: its errors, and the environment variables it reads
// that are not set (the model endpoint's key only when a model is called:
// not with --replay, and not when --base-url replaces the endpoint). Both
// come before any model call.
func (o *runOptions) checkBindings(e *env) error {
	st := &o.bound
	if len(st.Diags) > 0 && st.File != nil {
		var errs diag.List
		for _, d := range st.Diags {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
		writeDiags(e, st.File, errs, 0)
	}
	if st.Err != nil {
		if ue := (*project.UntrustedError)(nil); st.File != nil && !errors.As(st.Err, &ue) {
			return fail(exitConfig, "%s: %s: %v; see gramc check %s", o.cmd, st.File.Path, st.Err, st.File.Path)
		}
		return fail(exitConfig, "%s: bindings: %v", o.cmd, st.Err)
	}
	if st.Bindings == nil {
		return nil
	}
	missing := st.Bindings.Missing(st.File, os.LookupEnv)
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
	b := o.bound.Bindings
	if b == nil {
		return ""
	}
	if o.keyVar != "" {
		if m := b.MissingKey(o.bound.File, os.LookupEnv); m != "" {
			return m
		}
	}
	return b.MissingEndpointKey(o.bound.File, os.LookupEnv)
}

// keyError is the configuration error of missingKey.
func (o *runOptions) keyError(missing string) error {
	return fail(exitConfig, "%s", joinLines(o.cmd+": "+missing,
		"  hint: the bindings file names the variable that holds the model endpoint's key and never holds the key: export it before the command, or replay recorded answers with --replay"))
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
