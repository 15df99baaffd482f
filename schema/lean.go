// Compiling for the diagnostics alone: `gramc check` reads the diagnostics
// of its files and nothing of their programs. Such a compile makes the
// same checks as any other, in the same order, but what the program of a
// top-level tool holds for its callers (its parameters, their types,
// properties and values, its return type) is read by nothing once the
// tool is compiled: no later step of a file or a package without tests
// looks at a tool's signature, only at its name and places. So the
// compile hands the room of each tool's signature out again for the next
// tool's, and an agent without a signature element gets its
// [Agent.AsTool], without a parameter, only when another agent lists it;
// on a file of tens of thousands of tools this is most of what a compile
// allocates, at the end of the compile, which is when `gramc check` holds
// the most.

package schema

import (
	"slices"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// CompileDiagnostics returns the diagnostics [CompilePackage] returns for
// docs and tests, in the same order, without the programs: the compile
// holds less, as it makes the parts of the programs nothing of its own
// reads only for as long as it reads them (see lean.go). A package with
// tests, whose calls are checked against the tools' signatures, or with
// an agent's maxToolTokens, whose check counts them, is compiled as
// CompilePackage compiles it; the diagnostics include the
// tool-token-budget ones ([CheckToolTokens]), which the other compiles
// leave to their caller.
func CompileDiagnostics(docs, tests []*parser.Document) []diag.List {
	pc := compilePackage(docs, tests, true, false, true)
	for i, prog := range pc.Programs {
		pc.Diags[i] = WithToolBudgets(prog, pc.Diags[i])
	}
	return pc.Diags
}

// hasTests reports whether decls declare a test.
func hasTests(decls []decl) bool {
	return slices.ContainsFunc(decls, func(d decl) bool { return d.label == TestLabel })
}

// hasToolBudget reports whether an agent of decls declares
// maxToolTokens, whose check counts its tools' signatures after the
// compile ([CheckToolTokens]): such a file or package is compiled in full.
func hasToolBudget(decls []decl) bool {
	for _, d := range decls {
		if d.label != AgentLabel || d.s == nil || d.s.Record == nil {
			continue
		}
		for i := range d.s.Record.Entries {
			if d.s.Record.Entries[i].KeyName() == "maxToolTokens" {
				return true
			}
		}
	}
	return false
}

// setLean makes the compile of the package one of the diagnostics alone
// when lean is set and no file declares a test.
func (pc *pkgCompile) setLean(lean bool) {
	for _, ds := range pc.ds {
		if hasTests(ds) || hasToolBudget(ds) {
			lean = false
		}
	}
	for _, c := range pc.cs {
		c.lean = lean
	}
}

// forgetSignatures lets go of the signatures of the tools the step st
// made, and hands their room, made since the scratch slabs were was, out
// again.
func (c *compiler) forgetSignatures(st step, was scratch) {
	for i := st.t0; i < st.t1; i++ {
		t := c.prog.ToolAt(int(i))
		t.Params, t.Returns = nil, nil
	}
	c.slabs.rewindScratch(was)
}

// leanAsTool makes the AsTool of a, which has no signature element, for
// a compile of the diagnostics alone: what is read of it, its name,
// description and places, without the parameter.
func (c *compiler) leanAsTool(a *Agent) {
	if a.Name == "" {
		return
	}
	t := c.slabs.tools.new()
	t.Name, t.Agent, t.Description, t.Span, t.NameSpan = a.Name, a.Name, a.Description, a.Span, a.NameSpan
	a.AsTool = t
}
