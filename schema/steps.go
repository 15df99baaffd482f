// Compiling the tools and the agents of a file, declaration by declaration,
// each compile a step whose results a later compile of the document can take
// as they are (see reuse.go).

package schema

import "github.com/gramlang/gram/parser"

// step is what compiling one tool or agent declaration made: the
// declaration (its index among the document's), its diagnostics
// diags[d0:d1], the tools prog.Tools()[t0:t1] (the tool, or an agent's
// inline tools) and agents prog.Agents()[a0:a1], and the uses of tools of
// other files pkgMarks[p0:p1] (see pkgTool) and the records of other
// files it read pkgReads[q0:q1].
// The indexes are 32-bit, as a memo's are (see shape): a compile holds a
// step per tool and agent until it ends.
type step struct {
	decl, d0, d1, t0, t1, a0, a1, p0, p1, q0, q1 int32
}

// step compiles the declaration d, the k-th of the document, a tool or an
// agent, and returns what it made.
func (c *compiler) step(k int, d decl) step {
	st := step{decl: int32(k), d0: int32(len(c.diags)), t0: int32(c.prog.NumTools()), a0: int32(c.prog.NumAgents()),
		p0: int32(len(c.pkgMarks)), q0: int32(len(c.pkgReads))}
	c.top = d.tp.Span()
	if d.label == ToolLabel {
		c.tool(d, true)
	} else {
		c.agent(d)
	}
	st.d1, st.t1, st.a1 = int32(len(c.diags)), int32(c.prog.NumTools()), int32(c.prog.NumAgents())
	st.p1, st.q1 = int32(len(c.pkgMarks)), int32(len(c.pkgReads))
	return st
}

// toolIndex returns the index in prog.Tools() of the tool compiled from p:
// one compiled here, or one a Recompile took as it was (see
// toolIndexAgain).
func (c *compiler) toolIndex(p *parser.Pattern) (int, bool) {
	if i, ok := c.tools[p]; ok {
		return i, true
	}
	if c.again != nil {
		return c.toolIndexAgain(p)
	}
	return 0, false
}

// compileSteps compiles the declarations of label, the top-level tools or
// the agents (and the tools written inside them), adding what each step
// made to c.steps, unless that is nil (nothing reads them).
func (c *compiler) compileSteps(decls []decl, label string) {
	lean := c.lean && label == ToolLabel
	var was scratch // the scratch slabs before a tool's step, in a lean compile
	for k, d := range decls {
		if d.label != label {
			continue
		}
		if lean {
			was = c.slabs.scratch
		}
		st := c.step(k, d)
		if c.steps != nil {
			c.steps = append(c.steps, st)
		}
		if lean {
			c.forgetSignatures(st, was)
		}
	}
}
