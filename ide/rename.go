// References and rename: every occurrence of the identity under the
// cursor, its definition included, and the edits that give it a new name.
//
// A tool declared at the top level, an agent and a record are names of the
// package: another member file may refer to them (see [Analysis.Others]);
// so is a tool an agent declares, which the package's tests may name. The
// agent or tool a test names as a property value (see testvalues.go) is
// an occurrence of the declaration it names; so is an argument a test's
// Call of a tool of the package names (a key of its args or argsInclude,
// a matcher node) of the tool's parameter.
// When the identity under the cursor is one of them, references and rename
// look at every member file of the package, the text's and the others' as
// the text's compile made them. In each file, the occurrences are those of
// its own declaration of the name, if it has one, its references that
// resolve to no declaration of the file (those name the other file's), and
// the agent, tool and record names its tests write as property values.
// Each file's spans are positions of that file, made byte offsets of its
// own text.
//
// A rename rewrites every occurrence (the definition, the references, and
// for a record the types that name it). The labels and type names of the
// agent language are keywords, not identities. The new name must be a
// valid name for what it names (a tool name matches ^[a-zA-Z0-9_-]{1,64}$,
// and so does the name by which another agent's model calls an agent, its
// own as a tool, transfer_to_ and its own for a handoff; a record is not
// named like a built-in type), must not be a keyword, and must not be
// taken by another top-level identity, nor be the name of another tool of
// an agent that calls the agent renamed by it (as a tool of its own, or as
// the tool of a handoff to it).

package ide

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtext"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// Change is an edit of the text or of another member file of its package.
type Change struct {
	// File is the file the edit changes.
	File *diag.File
	// Edit's span is a span of byte offsets of File's text.
	diag.Edit
}

// RenameError says why a rename cannot be made.
type RenameError struct {
	// Place is set when nothing at the cursor can be renamed; else the
	// new name cannot be given.
	Place bool
	// Msg says why.
	Msg string
}

// Error returns the message.
func (e *RenameError) Error() string { return e.Msg }

// placeError is a [RenameError] of the place.
func placeError(format string, args ...any) error {
	return &RenameError{Place: true, Msg: fmt.Sprintf(format, args...)}
}

// nameError is a [RenameError] of the new name.
func nameError(format string, args ...any) error {
	return &RenameError{Msg: fmt.Sprintf(format, args...)}
}

// References returns every place where the identity under the cursor at
// the byte offset off is written, its definition only with decl: for a
// name of the package, in every member file (the text's first), else in
// the text, then in the bindings file b (nil when there is none) for a
// tool, an agent or an injected parameter it binds; none for a reference
// that resolves nowhere.
func (a *Analysis) References(off int, decl bool, b *project.Source) []Location {
	o, ok := a.occurrenceAt(a.File.Pos(off))
	if !ok {
		return nil
	}
	var out []Location
	files := a.occurrencesOf(o)
	for _, pf := range files {
		for _, r := range pf.occs {
			if !r.IsDef || decl {
				out = append(out, Location{File: pf.an.File, Span: pf.an.File.Resolve(r.Span)})
			}
		}
	}
	for _, span := range bindingsOf(b, files) {
		out = append(out, Location{File: b.File, Span: b.File.Resolve(span)})
	}
	return out
}

// PrepareRename returns the span of byte offsets of the identity a rename
// at the byte offset off renames, or a [*RenameError] saying why there is
// none.
func (a *Analysis) PrepareRename(off int) (diag.Span, error) {
	o, err := a.renameTarget(a.File.Pos(off))
	if err != nil {
		return diag.Span{}, err
	}
	return a.File.Resolve(o.Span), nil
}

// Rename returns the edits that rename the identity at the byte offset
// off to newName, in every file it is written in, the bindings file b
// among them (see References), or a [*RenameError].
func (a *Analysis) Rename(off int, newName string, b *project.Source) ([]Change, error) {
	o, err := a.renameTarget(a.File.Pos(off))
	if err != nil {
		return nil, err
	}
	files := a.occurrencesOf(o)
	var text string
	if a.isPackageName(o) {
		text, err = packageNewName(files, o.Name, newName)
	} else if an, def, ok := paramDecl(files); ok {
		text, err = an.checkNewName(def, newName)
	} else {
		text, err = a.checkNewName(o, newName)
	}
	if err == nil {
		err = checkCallers(files, o.Name, text)
	}
	var bound []diag.Span
	if err == nil {
		bound, err = renamedBindings(b, files, text)
	}
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, pf := range files {
		f := pf.an.File
		for _, r := range pf.occs {
			out = append(out, Change{File: f, Edit: diag.Edit{Span: f.Resolve(r.Span), NewText: renamed(string(f.Slice(r.Span)), text)}})
		}
	}
	for _, span := range bound {
		out = append(out, Change{File: b.File, Edit: diag.Edit{Span: b.File.Resolve(span), NewText: renamed(string(b.File.Slice(span)), text)}})
	}
	return out, nil
}

// pkgFile is one member file of the text's package with its analysis,
// and the occurrences in it of the name a request is about.
type pkgFile struct {
	an   *Analysis
	occs []*Occurrence
}

// occurrencesOf returns, file by file, every occurrence of the identity
// of the occurrence o of the text: of a name of the package or a
// parameter of the package's tool, in every member file (see
// occurrencesNamed), the text first, else in the text; none for a
// reference that resolves nowhere.
func (a *Analysis) occurrencesOf(o *Occurrence) []pkgFile {
	if a.isPackageName(o) {
		return a.eachFile("", o.Name)
	}
	if tool, ok := a.paramTool(o); ok {
		return a.eachFile(tool, o.Name)
	}
	if !o.Resolved() {
		return nil
	}
	return []pkgFile{{an: a, occs: a.Index().OccurrencesOf(o.Def)}}
}

// eachFile returns the occurrences of name (of the parameter of tool, when
// not "") in each member file of the package, the text first.
func (a *Analysis) eachFile(tool, name string) []pkgFile {
	// The others' analyses are made once, from what the text's compile
	// made of them.
	a.othersOnce.Do(func() {
		for _, f := range a.Others {
			// Others not nil: a record another file declares is left
			// unresolved in this one's index, as in the text's.
			a.otherFiles = append(a.otherFiles, NewAnalysis(f.File, f.Doc, f.Program, f.Diags, []*project.File{}, nil))
		}
	})
	files := []pkgFile{{an: a, occs: a.occurrencesNamed(tool, name)}}
	for _, an := range a.otherFiles {
		files = append(files, pkgFile{an: an, occs: an.occurrencesNamed(tool, name)})
	}
	return files
}

// paramTool returns the name of the tool of the package whose parameter
// the occurrence o names: o is the parameter's declaration or reference,
// or an argument a test's Call of the tool names.
func (a *Analysis) paramTool(o *Occurrence) (string, bool) {
	if a.Others == nil {
		return "", false
	}
	if !o.Resolved() {
		v, ok := a.testValueAt(o.Span.Start)
		if !ok || v.kind != KindParam || v.span != o.Span {
			return "", false
		}
		_, ok = a.lookup(pkgCalls, v.tool)
		return v.tool, ok
	}
	d := a.Index().NameDecl(o.Def)
	if d == nil || d.Kind != KindParam || !a.declaresName(d.Tool.NameSpan) {
		return "", false
	}
	return d.Tool.Name, true
}

// isPackageName reports whether the occurrence o names a name of the
// package: a top-level tool, an agent or a record of the text, or a name
// another member file declares; not when the text is not compiled with a
// package or o names something of its own file only.
func (a *Analysis) isPackageName(o *Occurrence) bool {
	if a.Others == nil || o.Name == "" {
		return false
	}
	if !o.Resolved() {
		_, ok := a.declared(o.Name)
		if !ok && o.Kind == KindTool {
			// A test's tool may be one an agent of another file declares.
			d, found := a.lookup(pkgCalls, o.Name)
			ok = found && d.file != nil
		}
		return ok
	}
	return a.declaresName(o.Def)
}

// paramDecl returns the declaration of a parameter among the occurrences
// of files, and the analysis of its file, when they are a parameter's.
func paramDecl(files []pkgFile) (*Analysis, *Occurrence, bool) {
	for _, pf := range files {
		for _, r := range pf.occs {
			if r.IsDef && r.Kind == KindParam {
				return pf.an, r, true
			}
		}
	}
	return nil, nil, false
}

// occurrenceAt returns the occurrence at the position pos: an identity of
// the index, the agent, tool or record a test names as a property value
// (resolved to the text's own declaration of it when there is one), or,
// in a package, an argument a test's Call names (of kind KindParam).
func (a *Analysis) occurrenceAt(pos int) (*Occurrence, bool) {
	v, ok := a.testValueAt(pos)
	switch {
	case !ok || v.kind == KindParam && a.Others == nil:
		return a.Index().At(pos)
	case v.kind != KindParam:
		if d, ok := a.lookup(valueTables[v.kind], v.name); ok && d.file == nil {
			if at, ok := d.location(a.File); ok {
				return a.Index().At(a.File.Pos(at.Span.Start))
			}
		}
	}
	return &Occurrence{Span: v.span, Name: v.name, Kind: v.kind}, true
}

// declaresName reports whether the identity defined at def is a name of
// the package: a top-level tool, an agent or a record, or a tool an agent
// declares (the first of its name), which the package's tests name; a test
// file's declarations are its own.
func (a *Analysis) declaresName(def diag.Span) bool {
	d := a.Index().NameDecl(def)
	return d != nil && !schema.IsTestFile(a.File.Path) && (d.Kind == KindAgent || d.Kind == KindRecord ||
		d.Kind == KindTool && (d.Tool.TopLevel || a.Prog.Tool(d.Tool.Name) == d.Tool))
}

// topDecl returns the span of the identity of the file's own declaration
// of the package's name (a tool at the top level, an agent, a record, or
// a tool an agent declares), or a zero span.
func (a *Analysis) topDecl(name string) diag.Span {
	if at, ok := a.topNames()[name]; ok && a.declaresName(at) {
		return at
	}
	if t := a.Prog.Tool(name); t != nil && !t.TopLevel && a.declaresName(t.NameSpan) {
		return t.NameSpan
	}
	return diag.Span{}
}

// occurrencesNamed returns the occurrences in the file, in source order,
// of the package's name: those of its own declaration of it, its
// references to another file's (references that resolve in no declaration
// of the file) and its tests' values naming it; with tool not "", of the
// parameter name of the package's tool: those of its declaration, when
// the file declares the tool, and the arguments its tests' Calls of the
// tool name.
func (a *Analysis) occurrencesNamed(tool, name string) []*Occurrence {
	ix := a.Index()
	out := a.testReferences(tool, name)
	switch {
	case tool == "":
		// The zero span of a name the file does not declare has none.
		out = append(append(out, ix.OccurrencesOf(a.topDecl(name))...), ix.Unresolved(name)...)
	case a.topDecl(tool).Len() > 0:
		if p := a.Prog.Tool(tool).Param(name); p != nil {
			out = append(out, ix.OccurrencesOf(p.NameSpan)...)
		}
	}
	// Spans are positions, which an edit leaves in place where it did not
	// touch: their order is that of the offsets they resolve to.
	slices.SortStableFunc(out, func(x, y *Occurrence) int {
		return a.File.Resolve(x.Span).Start - a.File.Resolve(y.Span).Start
	})
	return out
}

// renamed returns the new text of an occurrence: the new name, quoted when
// the occurrence is a string.
func renamed(written, name string) string {
	if strings.HasPrefix(written, `"`) {
		return strconv.Quote(name)
	}
	return name
}

// packageNewName checks the new name of the package's name in its member
// files and returns how to write it, or an error saying why it cannot be:
// the new name is not valid for what the name is (as a rename in the file
// that declares it would check it), or it is taken at the top level of a
// file of the package.
func packageNewName(files []pkgFile, name, newName string) (string, error) {
	i := slices.IndexFunc(files, func(pf pkgFile) bool { return pf.an.topDecl(name).Len() > 0 })
	if i < 0 {
		return "", placeError("%q is not declared in a file of the package, so it cannot be renamed", name)
	}
	declared := files[i].an
	text, err := declared.checkNewName(declared.Index().Exact(declared.topDecl(name)), newName)
	if err != nil || text == name {
		return text, err
	}
	for _, pf := range files {
		if at, taken := pf.an.topNames()[text]; taken {
			return "", nameError("%s is already defined in %s at line %d", text, pf.an.File.Path, pf.an.File.OffsetPosition(pf.an.File.Offset(at.Start)).Line)
		}
	}
	return text, nil
}

// isKeyword reports whether a user cannot give an identity the name by
// renaming: the labels of the agent language, the built-in types, and the
// literals.
func isKeyword(name string) bool {
	switch name {
	case schema.AgentLabel, schema.ToolLabel, schema.RecordLabel, "true", "false", "null":
		return true
	}
	return schema.BuiltinKind(name) != schema.InvalidType
}

// renameTarget returns the occurrence to rename at the position pos, or an
// error saying why there is none.
func (a *Analysis) renameTarget(pos int) (*Occurrence, error) {
	if o, ok := a.occurrenceAt(pos); ok {
		if _, param := a.paramTool(o); !o.Resolved() && !a.isPackageName(o) && !param {
			return nil, placeError("%q is not defined in this file, so it cannot be renamed", o.Name)
		}
		return o, nil
	}
	if it, ok := a.Locate(pos); ok && it.Kind == SynLabel {
		name := it.Tok.Text()
		if isKeyword(name) {
			return nil, placeError("%s is a keyword of the agent language, not a name that can be renamed", name)
		}
		return nil, placeError("the label %s is not an identity; only identities can be renamed", name)
	}
	return nil, placeError("there is no identity to rename here")
}

// checkNewName validates a new name for o and returns how to write it.
func (a *Analysis) checkNewName(o *Occurrence, name string) (string, error) {
	switch {
	case name == "":
		return "", nameError("the new name is empty")
	case isKeyword(name):
		return "", nameError("%s is a keyword of the agent language: choose another name", name)
	case o.Kind == KindTool && !schema.ValidToolName(name):
		return "", nameError("%q is not a valid tool name: use 1 to 64 letters, digits, '_' or '-'", name)
	case o.Kind == KindRecord && !gramtext.IsSymbol(name):
		return "", nameError("%q is not a valid type name: use letters, digits and '_', starting with a letter", name)
	case !gramtext.IsSymbol(name):
		return "", nameError("%q is not a valid name: use letters, digits, '_', '-' and '.', starting with a letter or '_'", name)
	}
	if name == o.Name {
		return name, nil
	}
	ix := a.Index()
	if o.Kind == KindTool && a.Prog.Tool(name) != nil {
		return "", nameError("a tool named %s already exists", name)
	}
	// Top-level identities share one scope; parameters share their tool's.
	if d := ix.DefPattern(o.Def); d != nil && slices.Contains(a.Doc.Lowered(), d) || o.Kind == KindRecord || o.Kind == KindTool || o.Kind == KindAgent {
		if at, taken := a.topNames()[name]; taken {
			return "", nameError("%s is already defined at line %d", name, a.File.OffsetPosition(a.File.Offset(at.Start)).Line)
		}
	}
	if d := ix.NameDecl(o.Def); d != nil && (d.Kind == KindParam && d.Tool.Param(name) != nil || d.Kind == KindField && d.Record.Field(name) != nil) {
		return "", nameError("%s %s already exists", d.Kind, name)
	}
	return name, nil
}

// checkCallers checks the new name text of the agent called name against
// the agents of the files it is renamed in that call it: one that lists
// it (its model calls it by that name) or hands off to it (by its
// handoff's tool name) must call it by a valid tool name, and must have no
// other tool of that name (a handoff's, or one of its own).
func checkCallers(files []pkgFile, name, text string) error {
	handoff := schema.Handoff{Agent: text}.ToolName()
	for _, pf := range files {
		for _, ag := range pf.an.Prog.AllAgents() {
			lists := slices.ContainsFunc(ag.Tools, func(t *schema.Tool) bool { return t.Agent == name })
			handsOff := slices.ContainsFunc(ag.Handoffs, func(h schema.Handoff) bool { return h.Agent == name })
			called := ""
			switch {
			case lists && !schema.ValidToolName(text):
				called = text
			case handsOff && !schema.ValidToolName(handoff):
				called = handoff
			}
			if called != "" {
				return nameError("%q is not a valid tool name, and agent %s would call agent %s by it: use 1 to 64 letters, digits, '_' or '-'", called, ag.Name, text)
			}
			if text == name {
				continue
			}
			if i := slices.IndexFunc(ag.Handoffs, func(h schema.Handoff) bool { return h.ToolName() == text }); lists && i >= 0 {
				return nameError("agent %s lists agent %s and hands off to %s by a tool named %s, so it would have two tools of that name: choose another name", ag.Name, name, ag.Handoffs[i].Agent, text)
			}
			if handsOff && ag.Tool(handoff) != nil {
				return nameError("agent %s hands off to agent %s by a tool named %s after the rename, and has a tool of that name: choose another name", ag.Name, name, handoff)
			}
		}
	}
	return nil
}

// topNames returns where each identity of a top-level pattern (or of the
// pattern an annotation wraps) is first named: rename checks a new name
// against them.
func (a *Analysis) topNames() map[string]diag.Span {
	idents := make(map[string]diag.Span, len(a.Doc.Lowered()))
	for _, p := range a.Doc.Lowered() {
		q := schema.Innermost(p)
		for _, id := range []string{q.Subject.Identity, p.Subject.Identity} {
			if _, ok := idents[id]; id != "" && !ok {
				idents[id] = q.IdentSpan()
			}
		}
	}
	return idents
}
