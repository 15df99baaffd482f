// The reading of a bindings file's patterns: a reader collects the
// bindings and the diagnostics, and each kind of binding is read by a
// method of its own.

package project

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/shellquote"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// ParseBindings reads the bindings of a parsed bindings file; its
// diagnostics are the problems, and a warning for each literal that looks
// like a key or a token. The files it names (an mcp.json file, by its
// absolute path) are read with read, or from disk with [ReadNamedFile]
// when read is nil.
func ParseBindings(f *diag.File, doc *parser.Document, read func(path string) ([]byte, error)) (*Bindings, diag.List) {
	if read == nil {
		read = ReadNamedFile
	}
	abs, _ := filepath.Abs(f.Path)
	r := &bindingsReader{b: &Bindings{Path: f.Path, Dir: filepath.Dir(abs)}, read: read, seen: map[string]diag.Span{}}
	if k := HeaderKind(doc); k != BindingsKind {
		r.errf(diag.Span{}, "%s: the header must be {kind: %q} (found %q)", filepath.Base(f.Path), BindingsKind, k)
		return r.b, r.diags
	}
	for i, p := range doc.Lowered() {
		if i == 0 && doc.Header != nil {
			continue
		}
		r.pattern(p)
	}
	return r.b, r.diags
}

// bindingsReader reads the patterns of a bindings file into b, collecting
// the diagnostics.
type bindingsReader struct {
	b     *Bindings
	diags diag.List
	// read reads the files the bindings file names.
	read func(path string) ([]byte, error)
	// seen holds where each name was first bound, by kind and name.
	seen map[string]diag.Span
}

// errf adds an error at span.
func (r *bindingsReader) errf(span diag.Span, format string, a ...any) {
	r.diags = append(r.diags, diag.Errorf(CodeBindings, span, format, a...))
}

// bound records that the name of kind is bound at span, with an error
// when it was bound before.
func (r *bindingsReader) bound(kind, name string, span diag.Span) {
	if prev, ok := r.seen[kind+" "+name]; ok {
		d := diag.Errorf(CodeBindings, span, "%s %s is bound twice", kind, name)
		d.Related = []diag.Related{{Span: prev, Message: "first bound here"}}
		r.diags = append(r.diags, d)
		return
	}
	r.seen[kind+" "+name] = span
}

// binding is one pattern of the file as it is read: its subject, its
// label and its span.
type binding struct {
	*bindingsReader
	p     *parser.Pattern
	s     *parser.Subject
	label string
	span  diag.Span
}

// pattern reads the pattern p: a warning for each literal that looks like
// a key, then the binding its label names.
func (r *bindingsReader) pattern(p *parser.Pattern) {
	e := binding{bindingsReader: r, p: p, s: &p.Subject, span: p.Span()}
	r.diags = append(r.diags, literalSecrets(e.s, p.Elements)...)
	if len(e.s.Labels) == 1 {
		e.label = e.s.Labels[0]
	}
	switch rd, ok := bindingReaders[e.label]; {
	case !ok:
		r.errf(e.span, "unknown binding %s: a bindings file holds (NAME:Program {command}), [NAME:MCPServer {command} | (NAME:Env {env})] or [NAME:MCPServer {url} | (:Header {name, env})], (:MCPServers {file}) (an mcp.json file), (NAME:Inject {value} or {env}), (:Model {baseURL, apiKey: {env}}) (with provider: \"Anthropic\" or \"Gemini\" for that provider's), (:Model {agent, model, fallback, retries, backoff}), (:Cassettes {dir}) and (:Price {model, input, output}) (US dollars per million tokens)", cmp.Or(strings.Join(e.s.Labels, ":"), "(no label)"))
	case rd.named && e.s.Identity == "":
		r.errf(e.span, "a %s binding needs a name: (NAME:%s {...})", e.label, e.label)
	default:
		r.unknownKeys(e.label, e.s, rd.keys)
		rd.read(e)
	}
}

// unknownKeys adds an error for each property of s that a binding labelled
// label does not take, such as a misspelt key, which would leave the
// binding other than written.
func (r *bindingsReader) unknownKeys(label string, s *parser.Subject, keys []string) {
	for _, pr := range s.Properties {
		if slices.Contains(keys, pr.Key) {
			continue
		}
		hint := "the properties it takes are: " + strings.Join(keys, ", ")
		if c := suggest.ClosestOrSwapped(pr.Key, keys); c != "" {
			hint += "; did you mean " + strconv.Quote(c) + "?"
		}
		r.errf(pr.KeySpan(), "(%s:%s) takes no property %s; %s", s.Identity, label, pr.Key, hint)
	}
}

// bindingReaders are the readers of the bindings by label; named says
// that the binding needs a name, (NAME:Label {...}), and keys are the
// properties it takes.
var bindingReaders = map[string]struct {
	read  func(binding)
	named bool
	keys  []string
}{
	"Program":    {binding.program, true, []string{"command", "args"}},
	"MCPServer":  {binding.mcpServer, true, []string{"command", "args", "url"}},
	"MCPServers": {binding.mcpServers, false, []string{"file"}},
	"Inject":     {binding.inject, true, valueKeys},
	"Model":      {binding.model, false, []string{"provider", "baseURL", "apiKey", "agent", "model", "fallback", "retries", "backoff"}},
	"Cassettes":  {binding.cassettes, false, []string{"dir"}},
	"Price":      {binding.price, false, []string{"model", "input", "output", "cachedInput"}},
}

// valueKeys are the properties of a value (see [value]), and of an MCP
// server's (NAME:Env {...}) and (:Header {name, ...}) with name.
var valueKeys = []string{"value", "env", "prefix"}

// str returns the string property key, or "" with an error when it is
// not a string, or missing and needed.
func (e binding) str(key string, need bool) string {
	pr := e.s.Prop(key)
	if pr == nil || pr.Value == nil {
		if need {
			e.errf(e.span, "%s: the %s binding needs %s", cmp.Or(e.s.Identity, e.label), e.label, key)
		}
		return ""
	}
	if pr.Value.Kind() != grammar.ScalarValue {
		e.errf(pr.Value.Span(), "%s: %s must be a string", cmp.Or(e.s.Identity, e.label), key)
		return ""
	}
	return pr.Value.Tok.Text()
}

// program reads (NAME:Program {command, args}).
func (e binding) program() {
	cmd := e.withArgs(e.str("command", true))
	e.bound("tool", e.s.Identity, e.span)
	e.b.Programs = append(e.b.Programs, Program{Name: e.s.Identity, Command: cmd, Span: e.span})
}

// withArgs returns cmd followed by the strings of the args property, each
// quoted for sh, with an error when args is not an array.
func (e binding) withArgs(cmd string) string {
	args := e.s.Prop("args")
	if args == nil || args.Value == nil {
		return cmd
	}
	if args.Value.Kind() != grammar.ArrayValue {
		e.errf(args.Value.Span(), "%s: args must be an array of strings", e.s.Identity)
	}
	for _, it := range args.Value.Items() {
		cmd += " " + shellquote.Quote(it.Tok.Text())
	}
	return cmd
}

// mcpServer reads [NAME:MCPServer {command, args} | (NAME:Env {...})] or
// [NAME:MCPServer {url} | (:Header {...})].
func (e binding) mcpServer() {
	s := e.s
	sv := Server{Name: s.Identity, Command: e.str("command", false), URL: e.str("url", false), Span: e.span}
	if (sv.Command == "") == (sv.URL == "") {
		e.errf(e.span, "MCP server %s: give a command or a url, not both", s.Identity)
	}
	sv.Command = e.withArgs(sv.Command)
	for _, el := range e.p.Elements {
		e.unknownKeys(strings.Join(el.Subject.Labels, ":"), &el.Subject, append(valueKeys[:3:3], "name"))
		v, ok := value(&el.Subject, el.Span(), e.errf)
		name := el.Subject.Identity
		if n := el.Subject.Prop("name"); n != nil && n.Value != nil {
			name = n.Value.Tok.Text()
		}
		switch {
		case !ok:
		case name == "":
			e.errf(el.Span(), "MCP server %s: give the name: (NAME:Env {...}) or (:Header {name: \"Authorization\", ...})", s.Identity)
		case el.Subject.HasLabel("Env") && sv.Command != "":
			sv.Env = append(sv.Env, Setting{name, v})
		case el.Subject.HasLabel("Header") && sv.URL != "":
			sv.Headers = append(sv.Headers, Setting{name, v})
		default:
			e.errf(el.Span(), "MCP server %s: a server run by a command takes (NAME:Env {...}) elements, a server at a url (:Header {...}) elements", s.Identity)
		}
	}
	e.bound("MCP server", s.Identity, e.span)
	e.b.Servers = append(e.b.Servers, sv)
}

// mcpServers reads (:MCPServers {file}): the servers of an mcp.json file.
func (e binding) mcpServers() {
	file := e.str("file", true)
	if file == "" {
		return
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.b.Dir, path)
	}
	servers, d := readMCPJSON(e.read, path, file, e.s.Prop("file").Value.Span())
	e.diags = append(e.diags, d...)
	for _, sv := range servers {
		e.bound("MCP server", sv.Name, e.span)
	}
	e.b.Servers = append(e.b.Servers, servers...)
}

// inject reads (NAME:Inject {value} or {env}).
func (e binding) inject() {
	if v, ok := value(e.s, e.span, e.errf); ok {
		e.bound("injected parameter", e.s.Identity, e.span)
		e.b.Injects = append(e.b.Injects, Setting{e.s.Identity, v})
	}
}

// model reads (:Model {baseURL, apiKey: {env}}), the same with
// provider: "Anthropic" or "Gemini" (the provider's endpoint), and
// (:Model {agent, model, fallback}).
func (e binding) model() {
	s := e.s
	prov := schema.Provider(e.str("provider", false))
	ep, kind := &e.b.Endpoint, "model endpoint"
	switch {
	case prov == "":
	case slices.Contains(EndpointProviders, prov):
		pe := e.b.Endpoints[prov]
		ep, kind = &pe, string(prov)+" endpoint"
		defer func() { put(&e.b.Endpoints, prov, pe) }()
	default:
		e.errf(s.Prop("provider").Value.Span(), "provider %q: the endpoint of a provider other than Anthropic or Gemini is written without provider", string(prov))
	}
	if prov != "" && s.Prop("agent") != nil {
		e.errf(s.Prop("provider").KeySpan(), "provider: an agent's model names its provider: (:Model {agent: \"NAME\", model: \"Provider/model-id\"})")
	}
	if u := e.str("baseURL", false); u != "" {
		ep.BaseURL = u
	}
	if pr := s.Prop("apiKey"); pr != nil && pr.Value != nil {
		if s.Prop("agent") != nil {
			e.errf(pr.KeySpan(), "apiKey: the key belongs to the model endpoint, not to an agent: write it in (:Model {baseURL: \"...\", apiKey: {env: \"NAME\"}})")
		} else if v, d := apiKey(pr); len(d) > 0 {
			e.diags = append(e.diags, d...)
		} else {
			e.bound(kind, "apiKey", pr.KeySpan())
			ep.APIKey = v
		}
	}
	e.agentModel()
}

// agentModel reads the model, fallbacks and retry policy of (:Model
// {agent, model, fallback, retries, backoff}).
func (e binding) agentModel() {
	s := e.s
	m, fb := e.str("model", false), s.Prop("fallback")
	if m == "" && fb == nil && s.Prop("retries") == nil && s.Prop("backoff") == nil {
		return
	}
	agent := e.str("agent", true)
	retry, ok := e.retry()
	var model schema.Model
	if m != "" {
		var good bool
		model, good = e.modelName(s.Prop("model").Value.Span(), m)
		ok = ok && good
	}
	var fallbacks []schema.Model
	if fb != nil && fb.Value != nil {
		if fb.Value.Kind() != grammar.ArrayValue {
			e.errf(fb.Value.Span(), "fallback must be an array of models: fallback: [\"Provider/model-id\", ...]")
			ok = false
		}
		for _, it := range fb.Value.Items() {
			fm, good := e.modelName(it.Span(), it.Tok.Text())
			ok = ok && good
			fallbacks = append(fallbacks, fm)
		}
	}
	if !ok || agent == "" {
		return
	}
	e.bound("model of agent", agent, e.span)
	ms := &e.b.AgentModels
	if m != "" {
		put(&ms.Models, agent, model)
	}
	if len(fallbacks) > 0 {
		put(&ms.Fallbacks, agent, fallbacks)
	}
	if !retry.IsZero() {
		put(&ms.Retries, agent, retry)
	}
}

// MaxRetries and MaxBackoff bound the retry policy of a bindings file.
const (
	MaxRetries = 10
	MaxBackoff = time.Minute
)

// retry reads the retries and backoff of (:Model {agent, retries,
// backoff}): retries an integer from 0 to [MaxRetries], backoff a
// duration such as 500ms or "2s", above 0 and at most [MaxBackoff].
func (e binding) retry() (Retry, bool) {
	var r Retry
	ok := true
	if pr := e.s.Prop("retries"); pr != nil && pr.Value != nil {
		n, err := strconv.Atoi(pr.Value.Tok.Text())
		if pr.Value.Kind() != grammar.ScalarValue || pr.Value.Tok.Type != grammar.Integer || err != nil || n < 0 || n > MaxRetries {
			e.errf(pr.Value.Span(), "retries must be an integer from 0 to %d: the retries of a failed model call after the first attempt", MaxRetries)
			ok = false
		} else {
			r.Retries = &n
		}
	}
	if pr := e.s.Prop("backoff"); pr != nil && pr.Value != nil {
		d, err := time.ParseDuration(pr.Value.Tok.Text())
		if pr.Value.Kind() != grammar.ScalarValue || err != nil || d <= 0 || d > MaxBackoff {
			e.errf(pr.Value.Span(), "backoff must be a duration above 0 and at most %s, such as 500ms or \"2s\": the wait before the first retry, doubled before each next one", MaxBackoff)
			ok = false
		} else {
			r.Backoff = d
		}
	}
	return r, ok
}

// modelName reads "Provider/model-id" at span.
func (e binding) modelName(span diag.Span, m string) (schema.Model, bool) {
	prov, id, _ := strings.Cut(m, "/")
	if !slices.Contains(schema.Providers, schema.Provider(prov)) || id == "" {
		e.errf(span, "model %q: write \"Provider/model-id\", the provider one of OpenAI, Ollama, OpenAICompatible, Anthropic, Gemini", m)
		return schema.Model{}, false
	}
	return schema.Model{Provider: schema.Provider(prov), ID: id}, true
}

// cassettes reads (:Cassettes {dir}).
func (e binding) cassettes() {
	if d := e.str("dir", true); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(e.b.Dir, d)
		}
		e.b.Cassettes = d
	}
}

// put sets (*m)[k] to v, making the map first when there is none.
func put[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}
