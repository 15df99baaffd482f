package project

// The project's bindings file: the default tool programs, MCP servers,
// injected values, model endpoint and overrides, and cassette directory of
// the commands that run agents.

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/pricing"
	"github.com/gramlang/gram/schema"
)

// BindingsFile is the name of a project's bindings file, and BindingsKind
// the kind its header must give.
const (
	BindingsFile = "bindings.gram"
	BindingsKind = "bindings"
)

// The codes of the diagnostics of a bindings file.
const (
	// CodeBindings is a binding written wrong: an unknown label, a
	// property missing or of the wrong type, a name bound twice.
	CodeBindings = "invalid-binding"
	// CodeLiteralSecret is a literal that looks like a key or a token (a
	// warning), or any literal given as the model endpoint's apiKey (an
	// error).
	CodeLiteralSecret = "literal-secret"
)

// Codes lists the codes of the diagnostics of a bindings file, with their
// severity and a summary.
var Codes = []diag.CodeInfo{
	{Code: CodeBindings, Severity: diag.Error, Summary: "A binding written wrong: an unknown label, a property missing or of the wrong type, a name bound twice."},
	{Code: CodeLiteralSecret, Severity: diag.Error, Summary: "A key written in the bindings file (any literal apiKey), or a literal that looks like a key or a token (a warning)."},
}

// IsBindings reports whether a parsed file is a bindings file: its header
// gives the kind [BindingsKind]. A bindings file joins no package, and is
// checked by the rules of bindings, not compiled.
func IsBindings(doc *parser.Document) bool { return HeaderKind(doc) == BindingsKind }

// Bindings are the bindings a bindings file declares.
type Bindings struct {
	// Path is the file, and Dir its directory: programs and MCP servers
	// run there, and relative paths are relative to it.
	Path, Dir string
	// Programs bind tools to programs.
	Programs []Program
	// Servers are the MCP servers, in file order.
	Servers []Server
	// Injects are the values of injected parameters.
	Injects []Setting
	// Endpoint is the model endpoint, (:Model {baseURL, apiKey}): its
	// fields are "" and zero when the file gives none.
	Endpoint
	// Endpoints are the endpoints of the providers that have their own
	// ((:Model {provider: "Anthropic", ...}) and the same for Gemini), by
	// provider.
	Endpoints map[schema.Provider]Endpoint
	// AgentModels are the models, fallbacks and retry policies the file
	// gives agents.
	AgentModels
	// Cassettes is the cassette directory (absolute), or "".
	Cassettes string
	// Prices are the prices of models the file gives, by model string
	// ("OpenAI/gpt-4o-mini"), over the embedded table (see
	// [Bindings.PriceTable]).
	Prices map[string]pricing.Price
}

// Program binds the tool Name to a program: Command runs with sh -c in the
// bindings file's directory.
type Program struct {
	Name, Command string
	Span          diag.Span
}

// Server is an MCP server: a Command run with sh -c (with Env added to its
// environment) or a URL (sent Headers). From is the mcp.json file that
// declares it, as the bindings file names it, or "".
type Server struct {
	Name, Command, URL, From string
	Env, Headers             []Setting
	Span                     diag.Span
}

// Setting is a name and its value.
type Setting struct {
	Name  string
	Value Value
}

// Value is a value written in the file (Literal) or taken from the
// environment variable Env, with Prefix before it ("Bearer ").
type Value struct {
	Literal, Env, Prefix string
	Span                 diag.Span
}

// AgentModels are what a bindings file gives agents, (:Model {agent,
// model, fallback, retries, backoff}), by agent name.
type AgentModels struct {
	// Models replace the agents' own.
	Models map[string]schema.Model
	// Fallbacks are the models tried after an agent's own, in order, when
	// a call fails.
	Fallbacks map[string][]schema.Model
	// Retries are the agents' retry policies.
	Retries map[string]Retry
}

// Retry is an agent's retry policy of the bindings file, (:Model {agent,
// retries, backoff}).
type Retry struct {
	// Retries, when not nil, is the number of retries of a failed model
	// call after the first attempt (0: none).
	Retries *int
	// Backoff, when not 0, is the wait before the first retry, doubled
	// before each next one.
	Backoff time.Duration
}

// IsZero reports whether the policy sets nothing.
func (r Retry) IsZero() bool { return r.Retries == nil && r.Backoff == 0 }

// Get returns the value, reading an environment variable with getenv; ok
// is false when the variable is not set.
func (v Value) Get(getenv func(string) (string, bool)) (string, bool) {
	if v.Env == "" {
		return v.Literal, true
	}
	s, ok := getenv(v.Env)
	return v.Prefix + s, ok
}

// Missing returns a line for each environment variable the bindings refer
// to that getenv does not find or finds empty (no key, token or value is
// empty): the place, the binding and the variable.
func (b *Bindings) Missing(f *diag.File, getenv func(string) (string, bool)) []string {
	var out []string
	check := func(what, fix string, v Value) {
		if m := missing(f, getenv, what, fix, v); m != "" {
			out = append(out, m)
		}
	}
	for _, s := range b.Injects {
		check("binding "+s.Name, "set it, or give the value with --inject "+s.Name+"=VALUE", s.Value)
	}
	for _, sv := range b.Servers {
		name := sv.Name
		if sv.From != "" {
			name += " (" + sv.From + ")"
		}
		for _, s := range sv.Env {
			check("MCP server "+name+", variable "+s.Name, "set it", s.Value)
		}
		for _, s := range sv.Headers {
			check("MCP server "+name+", header "+s.Name, "set it", s.Value)
		}
	}
	return out
}

// Endpoint is a model endpoint: its base URL ("" for the provider's
// default) and its key, always an environment variable, never a literal.
type Endpoint struct {
	BaseURL string
	APIKey  Value
}

// EndpointProviders are the providers a bindings file can give an
// endpoint of with (:Model {provider, baseURL, apiKey}), in the order
// their keys are checked.
var EndpointProviders = []schema.Provider{schema.Anthropic, schema.Gemini}

// keyFix is what the line of a missing key of an endpoint says to do.
const keyFix = "set it to the endpoint's API key"

// missing returns a line when the value v is read from an environment
// variable that getenv does not find or finds empty: the place, what the
// value is, the variable and the fix; "" otherwise.
func missing(f *diag.File, getenv func(string) (string, bool), what, fix string, v Value) string {
	if v.Env == "" {
		return ""
	}
	state := "is not set"
	switch s, ok := getenv(v.Env); {
	case ok && s != "":
		return ""
	case ok:
		state = "is empty"
	}
	return fmt.Sprintf("%s:%s: %s: the environment variable %s %s; %s", f.Path, f.OffsetPosition(v.Span.Start), what, v.Env, state, fix)
}

// FindBindings returns the bindings file of the directory dir: the
// nearest BindingsFile in dir or its parents, stopping at the repository
// root (a directory holding .git, included) or the file system's root;
// "" when there is none. The file found is refused with an
// [*UntrustedError] when another user owns it or could have written it
// (see bindings_trust.go) and [TrustEnv] does not list it.
func FindBindings(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(abs, BindingsFile)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			if _, err := trusted(p, ""); err != nil {
				return "", err
			}
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(abs, ".git")); err == nil {
			return "", nil
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", nil
		}
		abs = parent
	}
}

// Served returns the packages, read as they are on disk, of the
// directories of the tree of the bindings file at path (a [Walk]) whose
// bindings file it is.
func Served(path string) []*Loaded {
	abs, _ := filepath.Abs(path)
	var files []string
	serves := map[string]bool{}
	Walk(filepath.Dir(path), Tree, func(p string) error {
		dir := filepath.Dir(p)
		if _, ok := serves[dir]; !ok {
			found, err := FindBindings(dir)
			serves[dir] = err == nil && found == abs
		}
		if serves[dir] {
			files = append(files, p)
		}
		return nil
	}, func(error) error { return nil })
	return LoadFiles(files, LoadOptions{})
}

// value reads a value: {value: LITERAL} or {env: "VARIABLE"}, with an
// optional prefix.
func value(s *parser.Subject, span diag.Span, errf func(diag.Span, string, ...any)) (Value, bool) {
	v := Value{Span: span}
	lit, env := s.Prop("value"), s.Prop("env")
	switch {
	case lit != nil && env != nil, lit == nil && env == nil:
		errf(span, "%s: give {value: ...} or {env: \"VARIABLE\"}, one of them", cmp.Or(s.Identity, "value"))
		return v, false
	case lit != nil:
		if lit.Value.Kind() == grammar.ScalarValue {
			v.Literal = lit.Value.Tok.Text()
		} else {
			v.Literal = parser.ValueJSON(lit.Value)
		}
	default:
		v.Env = env.Value.Tok.Text()
		if env.Value.Kind() != grammar.ScalarValue || !envName().MatchString(v.Env) {
			errf(env.Value.Span(), "env: %q is not the name of an environment variable", v.Env)
			return v, false
		}
	}
	if pr := s.Prop("prefix"); pr != nil {
		v.Prefix = pr.Value.Tok.Text()
	}
	return v, true
}

// apiKeyVar is the variable the fix of a literal API key names.
const apiKeyVar = "MODEL_API_KEY"

// apiKey reads the key of the model endpoint: {env: "VARIABLE"}, never a
// literal (a literal-secret error whose fix reads it from the variable
// apiKeyVar).
func apiKey(pr *parser.Property) (Value, diag.List) {
	v := Value{Span: pr.Value.Span()}
	bad := func(span diag.Span, format string, a ...any) (Value, diag.List) {
		return v, diag.List{diag.Errorf(CodeBindings, span, format, a...)}
	}
	literal := func() (Value, diag.List) {
		d := diag.Errorf(CodeLiteralSecret, pr.Value.Span(), "apiKey: a key is never written in the bindings file: anyone who reads the file or its history could use it")
		d.Detail = "keep the key in an environment variable and name it: apiKey: {env: \"NAME\"}"
		d.Fixes = []diag.Fix{{Title: "Read the key from the environment variable " + apiKeyVar,
			Edits: []diag.Edit{{Span: pr.Value.Span(), NewText: "{env: \"" + apiKeyVar + "\"}"}}}}
		return v, diag.List{d}
	}
	if pr.Value.Kind() != grammar.MapValue {
		return literal()
	}
	for _, e := range pr.Value.Entries() {
		switch e.KeyName() {
		case "env":
			v.Env = e.Value.Tok.Text()
			if e.Value.Kind() != grammar.ScalarValue || !envName().MatchString(v.Env) {
				return bad(e.Value.Span(), "apiKey: env: %q is not the name of an environment variable", v.Env)
			}
		case "value":
			return literal()
		default:
			return bad(e.Key.Span(), "apiKey: unknown property %s: write apiKey: {env: \"NAME\"}", e.KeyName())
		}
	}
	if v.Env == "" {
		return bad(pr.Value.Span(), "apiKey: give the environment variable that holds the key: apiKey: {env: \"NAME\"}")
	}
	return v, nil
}

// envName matches the name of an environment variable.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// keyLike matches the literals that look like a key or a token: the
// prefixes of the common providers' keys, or a long run of letters and
// digits.
var keyLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:Bearer|Basic|token)\s+)?(?:(?:sk-|sk_live_|rk_live_|ghp_|gho_|ghs_|github_pat_|glpat-|xox[abposr]-|AKIA|AIza|hf_)[A-Za-z0-9_\-]{12,}|[A-Za-z0-9_\-+/=]{32,})$`)
})

// LooksLikeKey reports whether a literal looks like a key or a token.
func LooksLikeKey(s string) bool {
	if !keyLike().MatchString(s) || strings.Contains(s, "://") || strings.HasPrefix(s, "/") {
		return false
	}
	return strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'z' }) >= 0
}

// literalSecrets returns a warning for each string of the properties of s
// and of its elements that looks like a key; a {value: KEY} gets the fix
// {env: "NAME"}.
func literalSecrets(s *parser.Subject, elems []*parser.Pattern) diag.List {
	var out diag.List
	subjects := []*parser.Subject{s}
	for _, e := range elems {
		subjects = append(subjects, &e.Subject)
	}
	for _, s := range subjects {
		for i := range s.Properties {
			pr := &s.Properties[i]
			if pr.Value == nil || pr.Key == "apiKey" {
				continue // an apiKey is never a literal: an error (see apiKey)
			}
			vals := []grammar.Value{*pr.Value}
			if pr.Value.Kind() == grammar.ArrayValue {
				vals = pr.Value.Items()
			}
			for _, v := range vals {
				if v.Kind() != grammar.ScalarValue || !LooksLikeKey(v.Tok.Text()) {
					continue
				}
				d := diag.Warningf(CodeLiteralSecret, v.Span(), "this looks like a key or a token written in the bindings file: anyone who reads the file or its history can use it")
				d.Detail = "keep it in an environment variable and refer to it: {env: \"NAME\"}"
				if pr.Key == "value" {
					name := cmp.Or(envVarName(s.Identity), "API_TOKEN")
					d.Fixes = []diag.Fix{{Title: "Read it from the environment variable " + name,
						Edits: []diag.Edit{{Span: diag.Span{Start: pr.KeySpan().Start, End: v.Span().End}, NewText: "env: \"" + name + "\""}}}}
				}
				out = append(out, d)
			}
		}
	}
	return out
}

// LoadBindings reads and parses the bindings file at path, to run what it
// binds; the error is for I/O, and for the problems of the file (its
// diagnostics, which the caller writes). A file found by [FindBindings]
// (found) is checked again as it is read, and read only if it is the file
// checked; one the user named is not. The mcp.json files it names are
// checked as a found bindings file is (they start programs too), named or
// found: one another user could have written is refused with an
// [*UntrustedError] whose NamedBy is path, and no diagnostics.
func LoadBindings(path string, found bool, limit int64) (*Bindings, *diag.File, diag.List, error) {
	var data []byte
	var err error
	if found {
		data, err = readTrusted(path, "", limit)
	} else {
		data, err = inputfile.Read(path, limit)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	f := diag.NewFile(path, data)
	doc, parsed := Parse(f)
	var untrusted error
	b, diags := ParseBindings(f, doc, func(named string) ([]byte, error) {
		data, err := readTrusted(named, path, mcpJSONLimit)
		if ue := (*UntrustedError)(nil); errors.As(err, &ue) && untrusted == nil {
			untrusted = err
		}
		return data, err
	})
	if untrusted != nil {
		return nil, f, nil, untrusted
	}
	all := schema.Merge(parsed, diags)
	if all.HasErrors() {
		return b, f, all, errors.New("the bindings file has errors")
	}
	return b, f, all, nil
}

// envVarName returns the environment variable name for an identity:
// apiToken is API_TOKEN.
func envVarName(id string) string {
	var b strings.Builder
	for i, r := range id {
		if r >= 'A' && r <= 'Z' && i > 0 && id[i-1] >= 'a' && id[i-1] <= 'z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(envName().FindString(strings.ReplaceAll(b.String(), "-", "_")))
}

// MissingKey returns a line for the first key of a model endpoint that the
// bindings read from an environment variable getenv does not find or finds
// empty: the place in f, the binding and the variable. The model
// endpoint's key comes first, when own says that it is used (the command
// line does not replace the endpoint), then the providers' endpoints' in
// the order of [EndpointProviders]; "" when every key can be read, or b is
// nil.
func (b *Bindings) MissingKey(f *diag.File, getenv func(string) (string, bool), own bool) string {
	if b == nil {
		return ""
	}
	if own {
		if m := missing(f, getenv, "model endpoint, apiKey", keyFix, b.APIKey); m != "" {
			return m
		}
	}
	for _, p := range EndpointProviders {
		if m := missing(f, getenv, string(p)+" endpoint, apiKey", keyFix, b.Endpoints[p].APIKey); m != "" {
			return m
		}
	}
	return ""
}

// Agent returns a, or a copy of it with the model the bindings give it in
// place of its own, at the span of its own: the agent given, shared with
// its program, is never modified. gramc's runs and the editor's test runs
// take it.
func (m AgentModels) Agent(a *schema.Agent) *schema.Agent {
	if a == nil {
		return a
	}
	model, ok := m.Models[a.Name]
	if !ok {
		return a
	}
	c := *a
	model.Span = a.Model.Span
	c.Model = model
	return &c
}

// Program returns p, or a copy of it whose agents have the models the
// bindings give them (see [AgentModels.Agent]): the program of a run in
// which the agents it calls or hands off to are found, each with its
// bound model. p is never modified; nil gives nil.
func (m AgentModels) Program(p *schema.Program) *schema.Program {
	if p == nil || len(m.Models) == 0 {
		return p
	}
	agents := make([]*schema.Agent, 0, p.NumAgents())
	changed := false
	for _, a := range p.AllAgents() {
		b := m.Agent(a)
		changed = changed || b != a
		agents = append(agents, b)
	}
	if !changed {
		return p
	}
	return schema.NewProgram(p.File, agents, p.Tools(), p.Records)
}

// Test returns t, or a copy of it whose agent has the model the bindings
// give it (see [AgentModels.Agent]).
func (m AgentModels) Test(t *schema.Test) *schema.Test {
	a := m.Agent(t.Agent)
	if a == t.Agent {
		return t
	}
	c := *t
	c.Agent = a
	return &c
}
