package project

// The project's bindings file: the default tool programs, MCP servers,
// injected values, model endpoint and overrides, and cassette directory of
// the commands that run agents.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/parser"
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
	// BaseURL is the model endpoint, or "".
	BaseURL string
	// APIKey is the key of the model endpoint: always an environment
	// variable (Env), never a literal; zero when the file gives none.
	APIKey Value
	// Models are the model overrides of agents.
	Models []ModelOverride
	// Cassettes is the cassette directory (absolute), or "".
	Cassettes string
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

// ModelOverride replaces the model of the agent Agent.
type ModelOverride struct {
	Agent string
	Model schema.Model
}

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
		if v.Env == "" {
			return
		}
		state := "is not set"
		if s, ok := getenv(v.Env); ok && s != "" {
			return
		} else if ok {
			state = "is empty"
		}
		out = append(out, fmt.Sprintf("%s:%s: %s: the environment variable %s %s; %s", f.Path, f.OffsetPosition(v.Span.Start), what, v.Env, state, fix))
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

// MissingKey returns a line when the model endpoint's key is read from an
// environment variable that getenv does not find or finds empty: the place,
// the binding and the variable; "" otherwise.
func (b *Bindings) MissingKey(f *diag.File, getenv func(string) (string, bool)) string {
	v := b.APIKey
	if v.Env == "" {
		return ""
	}
	state := "is not set"
	if s, ok := getenv(v.Env); ok && s != "" {
		return ""
	} else if ok {
		state = "is empty"
	}
	return fmt.Sprintf("%s:%s: model endpoint, apiKey: the environment variable %s %s; set it to the endpoint's API key", f.Path, f.OffsetPosition(v.Span.Start), v.Env, state)
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
			if err := checkTrusted(p); err != nil {
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

// ParseBindings reads the bindings of a parsed bindings file; its
// diagnostics are the problems, and a warning for each literal that looks
// like a key or a token. The files it names (an mcp.json file) are read
// from disk.
func ParseBindings(f *diag.File, doc *parser.Document) (*Bindings, diag.List) {
	return ParseBindingsWith(f, doc, nil)
}

// ParseBindingsWith is [ParseBindings] reading the files the bindings
// file names (an mcp.json file, by its absolute path) with read, or with
// [ReadNamedFile] when read is nil.
func ParseBindingsWith(f *diag.File, doc *parser.Document, read func(path string) ([]byte, error)) (*Bindings, diag.List) {
	if read == nil {
		read = ReadNamedFile
	}
	abs, _ := filepath.Abs(f.Path)
	b := &Bindings{Path: f.Path, Dir: filepath.Dir(abs)}
	var diags diag.List
	errf := func(span diag.Span, format string, a ...any) {
		diags = append(diags, diag.Errorf(CodeBindings, span, format, a...))
	}
	if doc == nil {
		return b, nil
	}
	if k := HeaderKind(doc); k != BindingsKind {
		errf(diag.Span{}, "%s: the header must be {kind: %q} (found %q)", filepath.Base(f.Path), BindingsKind, k)
		return b, diags
	}
	seen := map[string]diag.Span{}
	bound := func(kind, name string, span diag.Span) {
		if prev, ok := seen[kind+" "+name]; ok {
			d := diag.Errorf(CodeBindings, span, "%s %s is bound twice", kind, name)
			d.Related = []diag.Related{{Span: prev, Message: "first bound here"}}
			diags = append(diags, d)
			return
		}
		seen[kind+" "+name] = span
	}
	for i, p := range doc.Lowered {
		if i == 0 && doc.Header != nil {
			continue
		}
		span := p.Span()
		s := &p.Subject
		diags = append(diags, literalSecrets(s, p.Elements)...)
		label := ""
		if len(s.Labels) == 1 {
			label = s.Labels[0]
		}
		str := func(key string, need bool) string {
			pr := s.Prop(key)
			if pr == nil || pr.Value == nil {
				if need {
					errf(span, "%s: the %s binding needs %s", nameOr(s.Identity, label), label, key)
				}
				return ""
			}
			if pr.Value.Kind() != grammar.ScalarValue {
				errf(pr.Value.Span(), "%s: %s must be a string", nameOr(s.Identity, label), key)
				return ""
			}
			return pr.Value.Tok.Text()
		}
		named := func() bool {
			if s.Identity == "" {
				errf(span, "a %s binding needs a name: (NAME:%s {...})", label, label)
				return false
			}
			return true
		}
		switch label {
		case "Program":
			if !named() {
				continue
			}
			cmd := str("command", true)
			if args := s.Prop("args"); args != nil && args.Value != nil {
				if args.Value.Kind() != grammar.ArrayValue {
					errf(args.Value.Span(), "%s: args must be an array of strings", s.Identity)
				}
				for _, it := range args.Value.Items() {
					cmd += " " + shellQuote(it.Tok.Text())
				}
			}
			bound("tool", s.Identity, span)
			b.Programs = append(b.Programs, Program{Name: s.Identity, Command: cmd, Span: span})
		case "MCPServer":
			if !named() {
				continue
			}
			sv := Server{Name: s.Identity, Command: str("command", false), URL: str("url", false), Span: span}
			if (sv.Command == "") == (sv.URL == "") {
				errf(span, "MCP server %s: give a command or a url, not both", s.Identity)
			}
			if args := s.Prop("args"); args != nil && args.Value != nil {
				for _, it := range args.Value.Items() {
					sv.Command += " " + shellQuote(it.Tok.Text())
				}
			}
			for _, e := range p.Elements {
				v, ok := value(&e.Subject, e.Span(), errf)
				name := e.Subject.Identity
				if n := e.Subject.Prop("name"); n != nil && n.Value != nil {
					name = n.Value.Tok.Text()
				}
				switch {
				case !ok:
				case name == "":
					errf(e.Span(), "MCP server %s: give the name: (NAME:Env {...}) or (:Header {name: \"Authorization\", ...})", s.Identity)
				case e.Subject.HasLabel("Env") && sv.Command != "":
					sv.Env = append(sv.Env, Setting{name, v})
				case e.Subject.HasLabel("Header") && sv.URL != "":
					sv.Headers = append(sv.Headers, Setting{name, v})
				default:
					errf(e.Span(), "MCP server %s: a server run by a command takes (NAME:Env {...}) elements, a server at a url (:Header {...}) elements", s.Identity)
				}
			}
			bound("MCP server", s.Identity, span)
			b.Servers = append(b.Servers, sv)
		case "MCPServers":
			file := str("file", true)
			if file == "" {
				continue
			}
			path := file
			if !filepath.IsAbs(path) {
				path = filepath.Join(b.Dir, path)
			}
			servers, d := readMCPJSON(read, path, file, s.Prop("file").Value.Span())
			diags = append(diags, d...)
			for _, sv := range servers {
				bound("MCP server", sv.Name, span)
			}
			b.Servers = append(b.Servers, servers...)
		case "Inject":
			if !named() {
				continue
			}
			if v, ok := value(s, span, errf); ok {
				bound("injected parameter", s.Identity, span)
				b.Injects = append(b.Injects, Setting{s.Identity, v})
			}
		case "Model":
			if u := str("baseURL", false); u != "" {
				b.BaseURL = u
			}
			if pr := s.Prop("apiKey"); pr != nil && pr.Value != nil {
				if s.Prop("agent") != nil {
					errf(pr.KeySpan(), "apiKey: the key belongs to the model endpoint, not to an agent: write it in (:Model {baseURL: \"...\", apiKey: {env: \"NAME\"}})")
				} else if v, d := apiKey(pr); len(d) > 0 {
					diags = append(diags, d...)
				} else {
					bound("model endpoint", "apiKey", pr.KeySpan())
					b.APIKey = v
				}
			}
			if m := str("model", false); m != "" {
				agent := str("agent", true)
				prov, id, _ := strings.Cut(m, "/")
				if !slices.Contains(schema.Providers, schema.Provider(prov)) || id == "" {
					errf(s.Prop("model").Value.Span(), "model %q: write \"Provider/model-id\", the provider one of OpenAI, Ollama, OpenAICompatible", m)
				} else if agent != "" {
					bound("model of agent", agent, span)
					b.Models = append(b.Models, ModelOverride{Agent: agent, Model: schema.Model{Provider: schema.Provider(prov), ID: id}})
				}
			}
		case "Cassettes":
			if d := str("dir", true); d != "" {
				if !filepath.IsAbs(d) {
					d = filepath.Join(b.Dir, d)
				}
				b.Cassettes = d
			}
		default:
			errf(span, "unknown binding %s: a bindings file holds (NAME:Program {command}), [NAME:MCPServer {command} | (NAME:Env {env})] or [NAME:MCPServer {url} | (:Header {name, env})], (:MCPServers {file}) (an mcp.json file), (NAME:Inject {value} or {env}), (:Model {baseURL, apiKey: {env}}), (:Model {agent, model}) and (:Cassettes {dir})", orEmpty(strings.Join(s.Labels, ":")))
		}
	}
	return b, diags
}

// value reads a value: {value: LITERAL} or {env: "VARIABLE"}, with an
// optional prefix.
func value(s *parser.Subject, span diag.Span, errf func(diag.Span, string, ...any)) (Value, bool) {
	v := Value{Span: span}
	lit, env := s.Prop("value"), s.Prop("env")
	switch {
	case lit != nil && env != nil, lit == nil && env == nil:
		errf(span, "%s: give {value: ...} or {env: \"VARIABLE\"}, one of them", nameOr(s.Identity, "value"))
		return v, false
	case lit != nil:
		if lit.Value.Kind() == grammar.ScalarValue {
			v.Literal = lit.Value.Tok.Text()
		} else {
			v.Literal = parser.ValueJSON(lit.Value)
		}
	default:
		v.Env = env.Value.Tok.Text()
		if env.Value.Kind() != grammar.ScalarValue || !envName.MatchString(v.Env) {
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
			if e.Value.Kind() != grammar.ScalarValue || !envName.MatchString(v.Env) {
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
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// keyLike matches the literals that look like a key or a token: the
// prefixes of the common providers' keys, or a long run of letters and
// digits.
var keyLike = regexp.MustCompile(`^(?:(?:Bearer|Basic|token)\s+)?(?:(?:sk-|sk_live_|rk_live_|ghp_|gho_|ghs_|github_pat_|glpat-|xox[abposr]-|AKIA|AIza|hf_)[A-Za-z0-9_\-]{12,}|[A-Za-z0-9_\-+/=]{32,})$`)

// LooksLikeKey reports whether a literal looks like a key or a token.
func LooksLikeKey(s string) bool {
	if !keyLike.MatchString(s) || strings.Contains(s, "://") || strings.HasPrefix(s, "/") {
		return false
	}
	return strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'z' }) >= 0
}

// literalSecrets returns a warning for each string of the properties of s
// and of its elements that looks like a key; a {value: KEY} gets the fix
// {env: "NAME"}.
func literalSecrets(s *parser.Subject, elems []*parser.Pattern) diag.List {
	var out diag.List
	var walk func(s *parser.Subject)
	walk = func(s *parser.Subject) {
		for i := range s.Properties {
			pr := &s.Properties[i]
			if pr.Value == nil {
				continue
			}
			vals := []grammar.Value{*pr.Value}
			if pr.Value.Kind() == grammar.ArrayValue {
				vals = pr.Value.Items()
			}
			if pr.Key == "apiKey" {
				continue // never a literal: an error (see apiKey)
			}
			for _, v := range vals {
				if v.Kind() != grammar.ScalarValue || !LooksLikeKey(v.Tok.Text()) {
					continue
				}
				d := diag.Warningf(CodeLiteralSecret, v.Span(), "this looks like a key or a token written in the bindings file: anyone who reads the file or its history can use it")
				d.Detail = "keep it in an environment variable and refer to it: {env: \"NAME\"}"
				if pr.Key == "value" {
					name := envVarName(s.Identity)
					if name == "" {
						name = "API_TOKEN"
					}
					d.Fixes = []diag.Fix{{Title: "Read it from the environment variable " + name,
						Edits: []diag.Edit{{Span: diag.Span{Start: pr.KeySpan().Start, End: v.Span().End}, NewText: "env: \"" + name + "\""}}}}
				}
				out = append(out, d)
			}
		}
	}
	walk(s)
	for _, e := range elems {
		walk(&e.Subject)
	}
	return out
}

// LoadBindings reads and parses the bindings file at path; the error is
// for I/O, and for the problems of the file (its diagnostics, which the
// caller writes).
func LoadBindings(path string, limit int64) (*Bindings, *diag.File, diag.List, error) {
	text, err := inputfile.Read(path, limit)
	if err != nil {
		return nil, nil, nil, err
	}
	f := diag.NewFile(path, text)
	doc, parsed := Parse(f)
	b, diags := ParseBindings(f, doc)
	all := schema.Merge(parsed, diags)
	if all.HasErrors() {
		return b, f, all, errors.New("the bindings file has errors")
	}
	return b, f, all, nil
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// nameOr returns name, or else or.
func nameOr(name, or string) string {
	if name != "" {
		return name
	}
	return or
}

// orEmpty returns s, or "(no label)".
func orEmpty(s string) string {
	if s == "" {
		return "(no label)"
	}
	return s
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
	return strings.ToUpper(envName.FindString(strings.ReplaceAll(b.String(), "-", "_")))
}
