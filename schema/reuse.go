// Compiling a version of a document from the program of the version before.
//
// A version made by parser.Reparse keeps, by pointer, the lowered pattern
// of every unit the edit left as it was and whose references resolve as
// before; its spans are positions, which stay put while the text around
// them moves (see diag.Positions). A declaration whose pattern is the same
// pointer compiles to what it compiled to before, as long as what it reads
// of the other declarations is the same too: their names and labels, the
// records (the types of parameters) and, for an agent, the tools it lists
// (a tool lowered again makes the agents that list it lowered again).
// So [Recompile] compiles again the declarations whose patterns changed
// and takes everything else from the previous program, and the file-wide
// checks are answered from what the previous compile found, changed where
// the declarations compiled again changed it; it compiles in full when a
// record changed, a declaration was added, removed, renamed or relabelled,
// when the file has tests, or uses the older notation's record parameters.
// A file that composes agents, one whose agents list agents or that has a
// Handoff relationship, keeps nothing for the next compile, and a package
// with one such file is compiled in full (see setComposes): an agent's
// AsTool is read by the agents of any file that list it, and a handoff by
// the agents at both its ends, so they are never taken from before; a
// declaration compiled again that lists an agent, or a changed top-level
// pattern that is a handoff, makes the compile one in full too.
// Either way the result is what [Compile] gives.
//
// What a compile finds is kept with its program (compileMemo) in lists the
// versions share (see vec), so that what an edit costs does not grow with
// the number of declarations: the program's lists of tools and agents are
// shared by chunk too (see lists.go), the document's lowered patterns are
// compared chunk by chunk (see parser.Document.ChangedLowered), and nothing
// is gone through whole.

package schema

import (
	"slices"
	"sync"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/parser"
)

// compileMemo is what a compile found, kept with its program.
type compileMemo struct {
	// doc is the document compiled, whose lowered patterns the next
	// version's are compared with, and declAt the index of the
	// declaration of each lowered pattern, or -1.
	doc    *parser.Document
	declAt []int32
	// decls are the declarations in order; steps are the compiles of the
	// tools, then of the agents, in order, and stepOf the step of each
	// declaration (-1 for none).
	decls  vec[decl]
	steps  []shape
	stepOf []int32
	// recDiags are the diagnostics of the records (their fields and
	// cycles); stepDiags those of the steps that made any, in order.
	recDiags  diag.List
	stepDiags []stepDiags
	// pats are the tools' patterns by the tools' places; names indexes
	// them by name, made when first needed.
	pats  vec[*parser.Pattern]
	names *toolsByName
	// uses counts, by tool, how many agents list it (see moveUses).
	uses vec[int32]
	// dups are the tools whose names an earlier tool has, unused the
	// top-level tools no agent lists, in order (see fileChecks).
	dups   []dupTool
	unused []int32
	// budgeted are the agents that set maxToolTokens, in order, whose
	// tools [CheckToolTokens] counts.
	budgeted []int32
	// records are the records by name; types the index of their names for
	// suggestions, once made.
	records map[string]*Record
	types   *typeNames
	// In a package: dupDiags are the diagnostics of the file's names that
	// another file declares too, unresolved those of its references that
	// name nothing in the file (see pkgUnresolved); ext marks the tools
	// agents of other files list, and pkgMarks holds, by agent step, the
	// tools of other files it lists, in order.
	dupDiags, unresolved diag.List
	ext                  map[int32]bool
	pkgMarks             map[int32][]string
	// pkgReads holds, by step, the records of other files it reads.
	pkgReads map[int32][]string
	// tests tells that the file declares tests, which see the package:
	// they are compiled again with every compile of it.
	tests bool
}

// shape is a step without its diagnostics: the declaration it compiled,
// and the tools prog.Tools()[t0:t1] and agents prog.Agents()[a0:a1] it made.
type shape struct {
	decl, t0, t1, a0, a1 int32
}

// stepDiags are the diagnostics of step step.
type stepDiags struct {
	step  int32
	diags diag.List
}

// dupTool is a tool whose name the earlier tool first has.
type dupTool struct {
	tool, first int32
}

// toolsByName indexes the tools of a program by name.
type toolsByName struct {
	once   sync.Once
	byName map[string][]int32
}

// typeNames is the index of the type names list (see compiler.typeNames)
// for suggestions, made when a file's records numbered records, and
// shared by the compiles of the same records (see resolveType).
type typeNames struct {
	index   *suggest.NameIndex
	list    []string
	records int
}

// Recompile compiles doc, a version of the document prev was compiled
// from (see parser.Reparse). It gives what Compile(doc) gives, taking prev's
// elements and diagnostics for the declarations that are as they were (see
// the top of this file); prev must be the program of a [Compile] or a
// Recompile.
func Recompile(prev *Program, doc *parser.Document) (*Program, diag.List) {
	if a := startAgain(prev, doc, nil); a != nil && a.compile("") && !a.c.composes {
		a.end(a.c.prog.NumAgents() > 0, false)
		return a.c.finish()
	}
	return Compile(doc)
}

// fileAgain is a file being compiled again from its previous program: the
// steps of the declarations to compile again, those whose patterns
// changed or which read one that did, of which done were (in order); the
// diagnostics of those, and the tools whose uses changed.
type fileAgain struct {
	c        *compiler
	prev     *Program
	changed  []int32
	done     int
	news     []stepDiags
	affected []int32
	// whole, for a file of a package compiled in full, is its compile
	// (see startWhole).
	whole *pkgCompile
}

// startAgain starts compiling doc again from prev, as a file of the
// package of scope (nil: alone), with the declarations whose patterns
// changed to compile again; it returns nil when prev's results cannot be
// taken.
func startAgain(prev *Program, doc *parser.Document, scope *pkgScope) *fileAgain {
	if prev == nil || prev.memo == nil || doc.File == nil || doc.NumLowered() != prev.memo.doc.NumLowered() {
		return nil
	}
	pm := prev.memo
	c := makeCompiler(doc, nil, declCounts{})
	c.pkg, c.again = scope, pm.next(doc)
	changed, ok := c.changedSteps(pm)
	if !ok {
		return nil
	}
	c.records, c.prog.Records = pm.records, prev.Records
	c.prog.tools, c.prog.agents = prev.tools.next(), prev.agents.next()
	c.types = pm.types
	return &fileAgain{c: c, prev: prev, changed: changed}
}

// add adds the step si, whose declaration's pattern is as it was, to
// those compiled again: what it reads of another file changed. It reports
// whether si was not among them.
func (a *fileAgain) add(si int32) bool {
	if slices.Contains(a.changed, si) {
		return false
	}
	a.changed = append(a.changed, si)
	return true
}

// compile compiles again the declarations not compiled yet, in the order
// of their steps, those of label or every one (""); it reports false when
// prev's results cannot be taken.
func (a *fileAgain) compile(label string) bool {
	if a.whole != nil {
		return true // compiled with the other files compiled in full (see endWhole)
	}
	c, m := a.c, a.c.again
	slices.Sort(a.changed[a.done:])
	for ; a.done < len(a.changed); a.done++ {
		si := a.changed[a.done]
		d := m.decls.at(int(m.steps[si].decl))
		if label != "" && d.label != label {
			break
		}
		d0 := len(c.diags)
		if !c.stepAgain(a.prev, si, d, &a.affected) {
			return false
		}
		if d0 < len(c.diags) {
			a.news = append(a.news, stepDiags{si, slices.Clip(c.diags[d0:])})
		}
	}
	return !c.legacyNamed
}

// end makes the program compiled again and its diagnostics, the file's
// tools checked with hasAgents (whether the package has agents); in a
// package, the references that name nothing in the file are looked up
// again with lookup, else taken. The compiler's finish returns them.
func (a *fileAgain) end(hasAgents, lookup bool) {
	if a.whole != nil {
		return
	}
	c, m, pm := a.c, a.c.again, a.prev.memo
	c.prog.tools, c.prog.agents = c.prog.tools.orPrev(a.prev.tools), c.prog.agents.orPrev(a.prev.agents)
	m.stepDiags = mergeStepDiags(pm.stepDiags, a.news, a.changed)
	m.unused = c.unusedAfter(pm.unused, a.affected, m)
	m.budgeted = c.budgetedAfter(pm.budgeted, a.changed, m)
	c.diags = m.recDiags
	for _, sd := range m.stepDiags {
		c.diags = append(c.diags, sd.diags...)
	}
	if c.pkg != nil {
		c.diags = append(c.diags, m.dupDiags...)
		if lookup {
			d0 := len(c.diags)
			c.pkgUnresolved()
			m.unresolved = slices.Clip(c.diags[d0:])
		} else {
			c.diags = append(c.diags, m.unresolved...)
		}
	}
	c.reportTools(m.dups, m.unused, hasAgents)
	for p, i := range c.tools {
		m.pats.set(i, p)
	}
	m.types = c.types
	c.prog.memo = m
}

// hasTests reports whether the file compiled again declares tests.
func (a *fileAgain) hasTests() bool {
	if w := a.whole; w != nil {
		return hasTests(a.decls())
	}
	return a.c.again.tests
}

// decls returns the declarations of the file compiled again.
func (a *fileAgain) decls() []decl {
	if w := a.whole; w != nil {
		return w.ds[slices.Index(w.cs, a.c)]
	}
	m := a.c.again
	return m.decls.appendTo(make([]decl, 0, m.decls.len()))
}

// next returns the memo of the next version of the program, for the
// document doc: it shares pm's lists, to be changed where a declaration
// is compiled again.
func (pm *compileMemo) next(doc *parser.Document) *compileMemo {
	m := *pm
	m.doc, m.decls, m.pats, m.uses = doc, pm.decls.edit(), pm.pats.edit(), pm.uses.edit()
	return &m
}

// changedSteps returns the steps of the declarations of c's document
// whose patterns are not those of the memo's, setting those declarations
// in c.again; ok is false when the declarations are not the memo's with
// at most the patterns of tools and agents changed: of the same names and
// labels, at the same places, and with the same declarations inside (see
// innerDecls).
func (c *compiler) changedSteps(pm *compileMemo) ([]int32, bool) {
	var out []int32
	for i, top := range c.doc.ChangedLowered(pm.doc) {
		p := Innermost(top)
		d, found := c.declOf(p)
		k := int(pm.declAt[i])
		if len(c.diags) > 0 || found != (k >= 0) {
			return nil, false
		}
		if !found {
			if isHandoff(p) {
				return nil, false // a handoff: compiled in full (see compose)
			}
			continue
		}
		d.tp = top
		if !sameDecl(d, pm.decls.at(k)) || pm.stepOf[k] < 0 {
			return nil, false
		}
		c.again.decls.set(k, d)
		out = append(out, pm.stepOf[k])
	}
	return out, true
}

// sameDecl reports whether d is the declaration o with at most the pattern
// of a tool or an agent changed: of the same name and labels, with the
// same declarations inside.
func sameDecl(d, o decl) bool {
	if d.p == o.p {
		return true
	}
	return d.label == o.label && (d.label == ToolLabel || d.label == AgentLabel) &&
		d.p.Subject.Identity == o.p.Subject.Identity && slices.Equal(d.p.Subject.Labels, o.p.Subject.Labels) &&
		slices.Equal(innerDecls(d.p, nil), innerDecls(o.p, nil))
}

// innerDecls appends to out the identities defined inside p with a label
// of the agent language, with their labels, in order: the inline tools,
// whose names the file-wide checks compare, and whatever else another
// declaration's compile could take for a declaration. The parameters and
// fields (a type is a label) are left out: what they are is read by their
// own declaration's compile alone, and another declaration that refers to
// one is lowered again with it.
func innerDecls(p *parser.Pattern, out []string) []string {
	for _, e := range p.Elements {
		if !e.IsReference() && e.Subject.Identity != "" && declLabelsOf(e).n > 0 {
			out = append(out, e.Subject.Identity)
			out = append(out, e.Subject.Labels...)
			out = append(out, "")
		}
		out = innerDecls(e, out)
	}
	return out
}

// mergeStepDiags returns the diagnostics of the steps: prev's, with those
// of the steps compiled again (again, in order) replaced by news, in the
// order of the steps.
func mergeStepDiags(prev, news []stepDiags, again []int32) []stepDiags {
	out := make([]stepDiags, 0, len(prev)+len(news))
	for _, sd := range prev {
		for len(news) > 0 && news[0].step < sd.step {
			out, news = append(out, news[0]), news[1:]
		}
		if _, found := slices.BinarySearch(again, sd.step); !found {
			out = append(out, sd)
		}
	}
	return append(out, news...)
}
