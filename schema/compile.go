// The compiler's driver: finding the Agent, Tool and Record declarations of a
// document, compiling them in dependency order (records, then top-level
// tools, then agents with their inline tools), and the file-wide checks
// (record cycles, duplicate and unused tools).

package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/grammar"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// The labels that give a pattern meaning in the agent language.
const (
	AgentLabel  = "Agent"
	ToolLabel   = "Tool"
	RecordLabel = "Record"
)

// The known properties of each kind of declaration, in the order they are
// suggested.
var (
	agentProps  = []string{"instruction", "model", "description", "maxIterations", "temperature", "maxTokens", "maxToolTokens", "timeout", "parallelToolCalls", "approval", "maxToolCalls", "maxTotalTokens", "maxCostUSD"}
	toolProps   = []string{"description", "approval"}
	recordProps = []string{"description"}
	returnProps = []string{"description", "items"}
)

// ValidToolName reports whether name follows the rule for tool names,
// ^[a-zA-Z0-9_-]{1,64}$.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := range len(name) {
		if !toolNameByte(name[i]) {
			return false
		}
	}
	return true
}

// toolNameByte reports whether ch may be in a tool name.
func toolNameByte(ch byte) bool {
	return ch == '_' || ch == '-' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
}

// toolNameRule says what a valid tool name is, for the help of a name that
// is not one.
const toolNameRule = "1 to 64 letters, digits, '_' or '-' (^[a-zA-Z0-9_-]{1,64}$), as model APIs require"

// renameFix returns the fix that renames name, written at span, to a valid
// tool name.
func renameFix(name string, span diag.Span) diag.Fix {
	fixed := replaceBytes(name[:min(len(name), 64)], toolNameByte)
	return replaceFix("Rename to "+fixed, span, fixed)
}

type compiler struct {
	doc   *parser.Document
	prog  *Program
	diags diag.List
	// records maps record names to records (the first of a name).
	records map[string]*Record
	// tools maps tool patterns to the index of their compiled tools in
	// prog.Tools(); used marks, by the same index, the tools an agent lists.
	tools map[*parser.Pattern]int
	used  []bool
	// env are the programs whose declarations tests may use besides the
	// file's own (see [CompileWith]).
	env []*Program
	// localAgents holds the file's agents; it is made when a test needs it.
	localAgents map[*Agent]bool
	// slabs allocate the elements of the program; the files of a package
	// share theirs (see CompilePackage).
	slabs *slabs
	// spans is room for where an agent lists its tools (see agentTools),
	// properties for the properties of a node's record (see subjectProps).
	spans      []diag.Span
	properties []parser.Property
	// nodes are the node patterns of the declaration being compiled, whose
	// properties its parameters may share; nodeAt is where the next is
	// looked for (see loweredProps).
	nodes  []*parser.Pattern
	nodeAt int
	// propAnswers and typeAnswers are the did-you-mean answers given so far
	// about unknown properties and types (see closestProp, resolveType).
	propAnswers map[propQuestion]string
	typeAnswers map[string]string
	// names indexes the programs tests look names up in; agentNameList
	// are the names of their agents (see programNames, agentNames), and
	// agentIndex indexes those for suggestions.
	names          []programNames
	agentNameList  []string
	agentNamesMade bool
	agentIndex     *suggest.NameIndex
	// valueSchemas are the schemas compiled to check the values tests
	// expect, by their JSON text (see valueSchema).
	valueSchemas map[string]compiledValueSchema
	// types indexes the type names for suggestions, made again when
	// records were added since (see resolveType).
	types *typeNames
	// top is the span of the top-level pattern being compiled (with its
	// annotations): the older notation's record parameters are rewritten
	// as record declarations before it.
	top diag.Span
	// legacyNames are the record names given to the older notation's
	// record parameters; tops the identities of the top-level patterns.
	legacyNames map[string]bool
	tops        map[string]bool
	// legacyNamed is set once a record of the older notation is named (see
	// legacyRecordName).
	legacyNamed bool
	// again, in a Recompile, is the memo of the program being made, from
	// the previous one (see reuse.go), nil for a compile in full; hint are
	// the tools the agent being compiled again listed before, where the
	// tools it lists are looked for first (see toolIndexAgain), and declAt
	// the index of the declaration of each lowered pattern of the
	// document, or -1.
	again  *compileMemo
	hint   []int
	declAt []int32
	// pkg is what the files of a package share when the file is compiled
	// as one of them (see [CompilePackage]), nil for a file alone.
	pkg *pkgScope
	// pkgDeps are the names of other files of the package the file uses
	// (see usePkg), pkgMarks the tools of other files its agents list, in
	// order, and ext, by index, its tools the agents of other files list
	// (see pkgTool).
	pkgDeps  map[string]bool
	pkgMarks []string
	ext      map[int32]bool
	// pkgReads are the records of other files it reads, in order (see
	// readPkg).
	pkgReads []string
	// steps are the compiles of the tools and agents of the file, kept for
	// the memo when not nil (see compileSteps, newMemo).
	steps []step
	// agentRefs are the references to agents among the elements of the
	// file's agents, in order, and agentRefPats their patterns (see
	// agentElement); composes tells that the file lists agents or declares
	// handoffs (see setComposes).
	agentRefs    []agentRef
	agentRefPats map[*parser.Pattern]bool
	composes     bool
	// lean is set for a compile of the diagnostics alone (see lean.go).
	lean bool
}

// decl is a top-level declaration.
type decl struct {
	p     *parser.Pattern
	s     *grammar.Subject // nil for an anonymous pattern
	label string
	// tp is the top-level pattern, p or the annotations around it (nil
	// for an inline tool).
	tp *parser.Pattern
}

// Compile compiles a parsed document. It returns the program, partial when
// there are errors, and the compiler's diagnostics, sorted, with the
// undefined-reference errors of the references that name nothing in the
// file (see [parser.Unresolved]) and the parser's deferred errors it does
// not restate in its own terms (see [parser.Document.Deferred]); the
// parser's other diagnostics are not included (see [Merge]). Patterns whose labels include
// none of Agent, Tool and Record are plain gram and are not looked at.
func Compile(doc *parser.Document) (*Program, diag.List) {
	return CompileWith(doc)
}

// CompileWith is [Compile] for a file whose tests may also test the agents,
// and use the tools and records, of other programs: a greeter_test.gram file
// is compiled with the program of greeter.gram beside it. Declarations of
// the file come first; the other programs are searched in order.
func CompileWith(doc *parser.Document, env ...*Program) (*Program, diag.List) {
	return compileWith(doc, env, true, false)
}

// compileWith is [CompileWith]; memo tells whether the program keeps what
// a Recompile takes from it, and lean that the diagnostics alone are
// wanted (see lean.go).
func compileWith(doc *parser.Document, env []*Program, memo, lean bool) (*Program, diag.List) {
	c, decls := newCompiler(doc, env)
	tests := hasTests(decls)
	c.lean = lean && len(env) == 0 && !tests && !hasToolBudget(decls)
	collected := len(c.diags)
	// Records first: parameter types refer to them.
	c.declareRecords(decls)
	c.recordsFields(decls, nil)
	c.checkCycles()
	recorded := len(c.diags)
	if memo {
		c.steps = make([]step, 0, stepCount(decls))
	}
	c.compileSteps(decls, ToolLabel)
	c.compileSteps(decls, AgentLabel)
	compose([]*compiler{c}, true)
	dups, unused := c.fileChecks(c.prog.NumAgents() > 0)
	// Tests last: they refer to agents, tools and records.
	for _, d := range decls {
		if d.label == TestLabel {
			c.test(d)
		}
	}
	if memo && len(env) == 0 && !tests && !c.legacyNamed && !c.composes {
		c.prog.memo = c.newMemo(decls, collected, recorded, dups, unused)
	}
	return c.finish()
}

// newCompiler returns a compiler for doc, with tables sized for its
// declarations, and the declarations (see [compiler.declOf], which reports
// conflicting labels).
func newCompiler(doc *parser.Document, env []*Program) (*compiler, []decl) {
	n := countDecls(doc)
	c := makeCompiler(doc, env, n)
	return c, c.findDecls(n.decls)
}

// makeCompiler returns a compiler for doc with tables sized for n.
func makeCompiler(doc *parser.Document, env []*Program, n declCounts) *compiler {
	c := &compiler{
		doc:         doc,
		prog:        &Program{File: doc.File, agents: new(list[*Agent]), tools: new(list[*Tool])},
		env:         env,
		legacyNames: map[string]bool{},
		slabs:       new(slabs),
	}
	c.records = make(map[string]*Record, n.records)
	c.tools = make(map[*parser.Pattern]int, n.tools)
	c.used = make([]bool, 0, n.tools)
	c.prog.Records = make([]*Record, 0, n.records)
	c.prog.tools.v.reserve(n.tools)
	c.prog.agents.v.reserve(n.agents)
	return c
}

// findDecls returns the declarations of the document, as declOf finds
// them, and sets c.declAt; n is how many there are expected to be (see
// countDecls), so that the list is made once rather than grown.
func (c *compiler) findDecls(n int) []decl {
	decls := make([]decl, 0, n)
	c.declAt = make([]int32, c.doc.NumLowered())
	for i, top := range c.doc.AllLowered() {
		c.declAt[i] = -1
		if d, ok := c.declOf(Innermost(top)); ok {
			d.tp = top
			c.declAt[i] = int32(len(decls))
			decls = append(decls, d)
		}
	}
	return decls
}

// stepCount returns how many steps compileSteps makes of
// decls: one for each tool and agent.
func stepCount(decls []decl) int {
	n := 0
	for _, d := range decls {
		if d.label == ToolLabel || d.label == AgentLabel {
			n++
		}
	}
	return n
}

// finish returns the program, without empty lists, and the diagnostics,
// sorted.
func (c *compiler) finish() (*Program, diag.List) {
	if len(c.prog.Records) == 0 {
		c.prog.Records = nil
	}
	c.recordShapeLints()
	diags := c.diags
	if c.pkg == nil && len(c.doc.Unresolved()) > 0 {
		// A file alone: its references to nothing are undefined (those of
		// a file of a package are looked up in the package, see
		// pkgUnresolved).
		diags = append(slices.Clip(diags), c.doc.Undefined()...)
	}
	if errs := deferred(c.doc, diags); len(errs) > 0 {
		diags = append(slices.Clip(diags), errs...)
	}
	if len(diags) == 0 {
		return c.prog, nil
	}
	return c.prog, diags.Sorted()
}

// declCounts are how many declarations of each kind a document has, at
// most: the sizes to make the compiler's tables.
type declCounts struct {
	decls, records, tools, agents int
}

// countDecls counts the declarations of a document by their labels, and
// the tools agents may write inline by the agents' elements that are not
// references (most are: the names of top-level tools).
func countDecls(doc *parser.Document) declCounts {
	var n declCounts
	for _, top := range doc.AllLowered() {
		p := Innermost(top)
		if p.Kind != parser.GroupKind && p.Kind != parser.NodeKind {
			continue
		}
		switch labels := declLabelsOf(p); {
		case labels.n == 0:
			continue
		case labels.names[0] == RecordLabel:
			n.records++
		case labels.names[0] == ToolLabel:
			n.tools++
		case labels.names[0] == AgentLabel:
			n.agents++
			for _, e := range p.Elements {
				if e.Kind != parser.ReferenceKind {
					n.tools++
				}
			}
		}
		n.decls++
	}
	return n
}

// Innermost returns the pattern inside the annotations of p, as the
// compiler reads a top-level pattern, or p when it is not annotated.
func Innermost(p *parser.Pattern) *parser.Pattern {
	for p.Kind == parser.AnnotatedKind && len(p.Elements) == 1 {
		p = p.Elements[0]
	}
	return p
}

// subjectOf returns the syntax of a group's or node's subject, or nil.
func subjectOf(p *parser.Pattern) *grammar.Subject {
	switch s := p.Syntax().(type) {
	case *grammar.SubjectPattern:
		return s.Subject
	case *grammar.NodePattern:
		return s.Subject
	}
	return nil
}

// declOf tells whether a pattern is a declaration of the agent language and
// which, reporting conflicting labels.
func (c *compiler) declOf(p *parser.Pattern) (decl, bool) {
	d, found := c.declOfQuiet(p)
	if found.n == 0 {
		c.miscased(p)
	}
	if found.n > 1 {
		c.explain(diag.Errorf(CodeConflictingLabels, d.s.LabelsSpan(), "a pattern cannot be both %s and %s", found.names[0], found.names[1]),
			"keep one of the labels "+strings.Join(found.names[:found.n], ", ")+"; it is read as "+found.names[0]+" for now")
	}
	return d, found.n > 0
}

// miscased reports the first label of p that is a label of the agent
// language but for case (agent for Agent, handoff on a relationship for
// Handoff): p is then plain gram, which it was hardly meant to be.
func (c *compiler) miscased(p *parser.Pattern) {
	s, known := subjectOf(p), declLabelNames[:]
	if path, ok := p.Syntax().(*grammar.Path); ok && p.Kind == parser.RelationshipKind && path.Arrow != nil {
		s, known = path.Arrow.Subject, []string{HandoffLabel}
	}
	if s == nil {
		return
	}
	for _, l := range s.Labels {
		for _, want := range known {
			if l.Name.Value != want && strings.EqualFold(l.Name.Value, want) {
				c.explain(diag.Warningf(CodeMiscasedLabel, l.Name.Span(), "label %s is not %s: the pattern is plain gram", l.Name.Value, want),
					fmt.Sprintf("did you mean %q? labels are case-sensitive", want), replaceFix("Write "+want, l.Name.Span(), want))
				return
			}
		}
	}
}

// declLabelNames are the labels that make a group or node a declaration.
var declLabelNames = [...]string{AgentLabel, ToolLabel, RecordLabel, TestLabel}

// declLabels are the labels of the agent language a pattern has, each
// once, in the order written (ToolSpecification read as Tool).
type declLabels struct {
	names [4]string
	n     int
}

// declLabelsOf returns the agent language labels of a group or node.
func declLabelsOf(p *parser.Pattern) declLabels {
	var found declLabels
	for _, l := range p.Subject.Labels {
		if l == LegacyToolLabel {
			l = ToolLabel
		}
		if (l == AgentLabel || l == ToolLabel || l == RecordLabel || l == TestLabel) && !slices.Contains(found.names[:found.n], l) {
			found.names[found.n] = l
			found.n++
		}
	}
	return found
}

// declOfQuiet is declOf without diagnostics; it also returns the agent
// language labels found.
func (c *compiler) declOfQuiet(p *parser.Pattern) (decl, declLabels) {
	if p.Kind != parser.GroupKind && p.Kind != parser.NodeKind {
		return decl{}, declLabels{}
	}
	found := declLabelsOf(p)
	if found.n == 0 {
		return decl{}, found
	}
	return decl{p: p, s: subjectOf(p), label: found.names[0]}, found
}

// unnamed reports a declaration (an agent, a test, a record) without a
// name; example shows one named, with what the name is for.
func (c *compiler) unnamed(d decl, what, example string) {
	c.explain(diag.Errorf(CodeMissingName, headSpan(d), "the %s has no name", what), "name it before its label: "+example)
}

// explain adds dg to the diagnostics with the detail, the remedy it says,
// and the fixes.
func (c *compiler) explain(dg diag.Diagnostic, detail string, fixes ...diag.Fix) {
	dg.Detail = detail
	if len(fixes) > 0 {
		dg.Fixes = fixes
	}
	c.diags.Add(dg)
}

// replaceFix returns the fix titled title that writes text over span.
func replaceFix(title string, span diag.Span, text string) diag.Fix {
	return diag.Fix{Title: title, Edits: []diag.Edit{{Span: span, NewText: text}}}
}

// headSpan is where a diagnostic about a declaration as a whole goes: its
// name, else its labels, else the pattern.
func headSpan(d decl) diag.Span {
	if d.p.IdentSpan().Len() > 0 {
		return d.p.IdentSpan()
	}
	if d.s != nil && len(d.s.Labels) > 0 {
		return d.s.LabelsSpan()
	}
	return d.p.Span()
}

// elements returns the syntax of a group's elements (none for a node).
func elements(p *parser.Pattern) []*grammar.Element {
	if sp, ok := p.Syntax().(*grammar.SubjectPattern); ok {
		return sp.Elements
	}
	return nil
}

// tool compiles a tool declaration and adds it to the program.
func (c *compiler) tool(d decl, top bool) {
	p := d.p
	t := c.slabs.tools.new()
	t.Name, t.Span, t.NameSpan, t.TopLevel, t.Props = p.Subject.Identity, p.Span(), p.IdentSpan(), top, c.props(&p.Subject)
	c.tools[p] = c.prog.NumTools()
	c.prog.tools.v.push(t)
	c.used = append(c.used, false)
	c.legacyToolLabel(d)
	if t.Name == "" {
		c.explain(diag.Errorf(CodeInvalidToolName, headSpan(d), "the tool has no name"),
			"name it before its label: [my_tool:Tool {...} | signature]; the model calls it by that name")
	} else if !ValidToolName(t.Name) {
		c.explain(diag.Errorf(CodeInvalidToolName, p.IdentSpan(), "invalid tool name %q", t.Name),
			"a tool name is "+toolNameRule, renameFix(t.Name, p.IdentSpan()))
	}
	var desc *parser.Property
	for i := range p.Subject.Properties {
		pr := &p.Subject.Properties[i]
		switch pr.Key {
		case "description":
			desc = pr
			if s, ok := c.nonBlank(pr, CodeMissingDescription, func() string { return fmt.Sprintf("the description of tool %s is empty", disp(t.Name)) },
				"say what the tool does: the model reads it to decide when to call the tool"); ok {
				t.Description = s
			}
		case "approval":
			t.Approval = c.approval(pr)
		default:
			c.unknownProp(pr, "a tool", toolProps, nil)
		}
	}
	c.toolDescriptionLint(t, desc)
	if desc == nil {
		c.explain(diag.Errorf(CodeMissingDescription, headSpan(d), "tool %s has no description", disp(t.Name)),
			"add one: {description: \"What the tool does\"}; the model reads it to decide when to call the tool")
	}
	els := elements(p)
	if len(els) == 0 {
		c.explain(diag.Errorf(CodeMissingSignature, headSpan(d), "tool %s has no signature", disp(t.Name)),
			"add it after a bar: ["+cmp.Or(t.Name, "name")+":Tool {...} | (param::String)==>(::String)]")
		return
	}
	if len(els) > 1 {
		c.explain(diag.Errorf(CodeInvalidSignature, diag.Span{Start: els[1].Span().Start, End: els[len(els)-1].Span().End}, "tool %s has more than one element", disp(t.Name)),
			"a tool has exactly one element, its signature: chain the parameters in one path, (a::String)==>(b::Integer)==>(::String)")
	}
	e := els[0]
	if e.Path == nil {
		c.explain(diag.Errorf(CodeInvalidSignature, e.Span(), "the signature of tool %s must be a path", disp(t.Name)),
			"write the parameters and the return type as a path of nodes: (param::String)==>(::String)")
		return
	}
	t.SignatureSpan = e.Path.Span()
	c.lowered(p, 3)
	c.signature(t, e.Path)
}

// text returns the source text of a span (of positions, see
// diag.Positions).
func (c *compiler) text(s diag.Span) string {
	return string(c.doc.File.Slice(s))
}

// disp returns a declaration's name for messages.
func disp(name string) string { return cmp.Or(name, "(unnamed)") }

// replaceBytes returns s with each byte that keep refuses replaced by '_'.
func replaceBytes(s string, keep func(byte) bool) string {
	b := []byte(s)
	for i, ch := range b {
		if !keep(ch) {
			b[i] = '_'
		}
	}
	return string(b)
}
