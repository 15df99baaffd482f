// Compiling the tools and the agents of a large file on two cores.
//
// The tools of a file are compiled after its records, and its agents after
// its tools; one tool does not depend on another, nor one agent on
// another. So each of the two phases splits its declarations in two halves,
// compiled by two compilers that share what the earlier phases made (read
// only) and keep what they make apart (their allocations, diagnostics and
// memos); the halves are then put together in order, which gives exactly
// what compiling them one after the other gives. The record parameters of
// the older notation are named in order across the file (see
// legacyRecordName): when a half names one, the phase is compiled again, in
// order, by the compiler itself.

package schema

import (
	"runtime"
	"slices"
	"sync"

	"github.com/gramlang/gram/parser"
)

// parallelDecls is the number of declarations of a kind from which they are
// compiled on two cores (a variable for tests).
var parallelDecls = 256

// fork returns a compiler for half of a phase: it shares c's document,
// records, tools and environment, and starts with a copy of c's marks of
// use; it adds tools of its own.
func (c *compiler) fork() *compiler {
	return &compiler{
		doc:         c.doc,
		prog:        &Program{File: c.prog.File, Records: slices.Clip(c.prog.Records), Tools: slices.Clip(c.prog.Tools)},
		env:         c.env,
		records:     c.records,
		tools:       map[*parser.Pattern]int{},
		shared:      c.tools,
		used:        slices.Clone(c.used),
		legacyNames: map[string]bool{},
	}
}

// toolIndex returns the index in prog.Tools of the tool compiled from p.
func (c *compiler) toolIndex(p *parser.Pattern) (int, bool) {
	if i, ok := c.tools[p]; ok || c.shared == nil {
		return i, ok
	}
	i, ok := c.shared[p]
	return i, ok
}

// halves compiles the declarations with the label on two compilers, each
// compiling its half with compile, and returns them with what each step
// made (see [step], in the numbering of each half); ok is false when there
// are too few to split, or when a half named a record for the older
// notation: the caller then compiles them in order itself.
func (c *compiler) halves(decls []decl, label string, compile func(*compiler, decl)) (subs [2]*compiler, steps [2][]step, ok bool) {
	var own []int
	for i, d := range decls {
		if d.label == label {
			own = append(own, i)
		}
	}
	if len(own) < parallelDecls || runtime.GOMAXPROCS(0) < 2 {
		return subs, steps, false
	}
	parts := [2][]int{own[:len(own)/2], own[len(own)/2:]}
	var wg sync.WaitGroup
	for i := range subs {
		subs[i] = c.fork()
		steps[i] = make([]step, 0, len(parts[i]))
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := subs[i]
			for _, k := range parts[i] {
				steps[i] = append(steps[i], s.step(k, decls[k], compile))
			}
		}()
	}
	wg.Wait()
	return subs, steps, !subs[0].legacyNamed && !subs[1].legacyNamed
}

// step is what compiling one tool or agent declaration made: the
// declaration (its index among the document's), its diagnostics
// diags[d0:d1], and the tools prog.Tools[t0:t1] (the tool, or an agent's
// inline tools) and agents prog.Agents[a0:a1].
type step struct {
	decl, d0, d1, t0, t1, a0, a1 int
}

// step compiles the declaration d, the k-th of the document, with compile
// and returns what it made.
func (c *compiler) step(k int, d decl, compile func(*compiler, decl)) step {
	st := step{decl: k, d0: len(c.diags), t0: len(c.prog.Tools), a0: len(c.prog.Agents)}
	c.top = d.top
	compile(c, d)
	st.d1, st.t1, st.a1 = len(c.diags), len(c.prog.Tools), len(c.prog.Agents)
	return st
}

// join adds what the halves made after the first n tools: their tools, with
// their indexes moved, their agents and their diagnostics, in order, and the
// marks of use of the first n tools; it adds their steps to out, numbered as
// in c.
func (c *compiler) join(subs [2]*compiler, steps [2][]step, n int, out *[]step) {
	// What the halves made is appended to slices grown once to hold it all.
	tools, agents := 0, 0
	for _, s := range subs {
		tools, agents = tools+len(s.prog.Tools)-n, agents+len(s.prog.Agents)
	}
	c.prog.Tools = slices.Grow(c.prog.Tools, tools)
	c.used = slices.Grow(c.used, tools)
	c.prog.Agents = slices.Grow(c.prog.Agents, agents)
	*out = slices.Grow(*out, len(steps[0])+len(steps[1]))
	for h, s := range subs {
		base, d0, a0 := len(c.prog.Tools), len(c.diags), len(c.prog.Agents)
		for p, i := range s.tools {
			if i >= n {
				c.tools[p] = base + i - n
			}
		}
		for i, u := range s.used[:n] {
			c.used[i] = c.used[i] || u
		}
		c.prog.Tools = append(c.prog.Tools, s.prog.Tools[n:]...)
		c.used = append(c.used, s.used[n:]...)
		for _, a := range s.prog.Agents {
			for j, i := range a.toolIdx {
				if i >= n {
					a.toolIdx[j] = base + i - n
				}
			}
		}
		c.prog.Agents = append(c.prog.Agents, s.prog.Agents...)
		c.diags = append(c.diags, s.diags...)
		for _, st := range steps[h] {
			st.d0, st.d1 = d0+st.d0, d0+st.d1
			st.t0, st.t1 = base+st.t0-n, base+st.t1-n
			st.a0, st.a1 = a0+st.a0, a0+st.a1
			*out = append(*out, st)
		}
	}
}

// compileTools compiles the top-level tools, adding what each step made to
// steps.
func (c *compiler) compileTools(decls []decl, steps *[]step) {
	tool := func(s *compiler, d decl) { s.tool(d, true) }
	if subs, st, ok := c.halves(decls, ToolLabel, tool); ok {
		c.join(subs, st, len(c.prog.Tools), steps)
		return
	}
	for k, d := range decls {
		if d.label == ToolLabel {
			*steps = append(*steps, c.step(k, d, tool))
		}
	}
}

// compileAgents compiles the agents (and the tools written inside them),
// adding what each step made to steps.
func (c *compiler) compileAgents(decls []decl, steps *[]step) {
	if subs, st, ok := c.halves(decls, AgentLabel, (*compiler).agent); ok {
		c.join(subs, st, len(c.prog.Tools), steps)
		return
	}
	for k, d := range decls {
		if d.label == AgentLabel {
			*steps = append(*steps, c.step(k, d, (*compiler).agent))
		}
	}
}
