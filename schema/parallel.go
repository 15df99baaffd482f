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
// compiling its half with compile, and returns them; ok is false when there
// are too few to split, or when a half named a record for the older
// notation: the caller then compiles them in order itself.
func (c *compiler) halves(decls []decl, label string, compile func(*compiler, decl)) (subs [2]*compiler, ok bool) {
	var own []decl
	for _, d := range decls {
		if d.label == label {
			own = append(own, d)
		}
	}
	if len(own) < parallelDecls || runtime.GOMAXPROCS(0) < 2 {
		return subs, false
	}
	parts := [2][]decl{own[:len(own)/2], own[len(own)/2:]}
	var wg sync.WaitGroup
	for i := range subs {
		subs[i] = c.fork()
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := subs[i]
			for _, d := range parts[i] {
				s.top = d.top
				compile(s, d)
			}
		}()
	}
	wg.Wait()
	return subs, !subs[0].legacyNamed && !subs[1].legacyNamed
}

// join adds what the halves made after the first n tools: their tools, with
// their indexes moved, their agents and their diagnostics, in order, and the
// marks of use of the first n tools.
func (c *compiler) join(subs [2]*compiler, n int) {
	for _, s := range subs {
		base := len(c.prog.Tools)
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
		c.prog.Agents = append(c.prog.Agents, s.prog.Agents...)
		c.diags = append(c.diags, s.diags...)
	}
}

// compileTools compiles the top-level tools.
func (c *compiler) compileTools(decls []decl) {
	if subs, ok := c.halves(decls, ToolLabel, func(s *compiler, d decl) { s.tool(d, true) }); ok {
		c.join(subs, len(c.prog.Tools))
		return
	}
	for _, d := range decls {
		if d.label == ToolLabel {
			c.top = d.top
			c.tool(d, true)
		}
	}
}

// compileAgents compiles the agents (and the tools written inside them).
func (c *compiler) compileAgents(decls []decl) {
	if subs, ok := c.halves(decls, AgentLabel, (*compiler).agent); ok {
		c.join(subs, len(c.prog.Tools))
		return
	}
	for _, d := range decls {
		if d.label == AgentLabel {
			c.top = d.top
			c.agent(d)
		}
	}
}
