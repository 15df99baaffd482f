// A program's lists of tools and agents.
//
// The programs of the versions of a document share their lists by chunk
// (see vec): a Recompile that compiles one tool again copies the chunk
// table and the one chunk that holds the tool. A flat list is made only
// when a caller asks for all of it at once (Program.Tools,
// Program.Agents), and kept; NumTools, ToolAt and AllTools (and the same
// for agents) answer from the chunks, and are what the paths that run on
// every edit use.

package schema

import (
	"iter"
	"sync/atomic"

	"github.com/gramlang/gram/diag"
)

// list is one of a program's lists: the chunks its versions share, and
// the flat list made of them when first asked for. A version of a program
// whose list an edit left as it was has the list of the version before,
// by pointer, flat list included. A nil list is empty.
type list[T any] struct {
	v    vec[T]
	flat atomic.Pointer[[]T]
}

// len returns the number of values.
func (l *list[T]) len() int {
	if l == nil {
		return 0
	}
	return l.v.len()
}

// at returns value i.
func (l *list[T]) at(i int) T {
	if i < 0 || i >= l.len() {
		panic("schema: index out of range")
	}
	return l.v.at(i)
}

// seq yields the values with their indexes, chunk by chunk.
func (l *list[T]) seq() iter.Seq2[int, T] {
	if l == nil {
		return func(func(int, T) bool) {}
	}
	return l.v.all()
}

// all returns the values in one list, made on the first call, or nil when
// there are none.
func (l *list[T]) all() []T {
	if l.len() == 0 {
		return nil
	}
	if p := l.flat.Load(); p != nil && len(*p) == l.v.len() {
		return *p
	}
	xs := l.v.appendTo(make([]T, 0, l.v.len()))
	l.flat.Store(&xs)
	return xs
}

// next returns the list of the next version of the program, which shares
// every chunk with l until it changes them.
func (l *list[T]) next() *list[T] {
	return &list[T]{v: l.v.edit()}
}

// orPrev returns l, the next version of prev, or prev when l changed none
// of its values: the versions then share the list and its flat list.
func (l *list[T]) orPrev(prev *list[T]) *list[T] {
	if l.v.len() == prev.v.len() && !l.v.changed() {
		return prev
	}
	return l
}

// changed yields the values of l that are not prev's at the same index,
// with their indexes; l and prev must be as long. The chunks two versions
// share are passed over whole: after an edit it costs about the chunks
// the edit touched.
func changed[T comparable](l, prev *list[T]) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if l == prev || l.len() == 0 {
			return
		}
		n := l.len()
		for k := range l.v.numChunks() {
			a, b := l.v.chunk(k), prev.v.chunk(k)
			if len(a) == len(b) && &a[0] == &b[0] {
				continue
			}
			for j := 0; j < len(a) && k*vecChunk+j < n; j++ {
				if a[j] != b[j] && !yield(k*vecChunk+j, a[j]) {
					return
				}
			}
		}
	}
}

// NewProgram returns a program of the file file with the given agents,
// tools and records (lists it copies): one made other than by compiling,
// such as the union of the programs of a package's files.
func NewProgram(file *diag.File, agents []*Agent, tools []*Tool, records []*Record) *Program {
	return &Program{File: file, agents: &list[*Agent]{v: vecOf(agents)}, tools: &list[*Tool]{v: vecOf(tools)}, Records: records}
}

// Tools returns all tool definitions of the file in source order:
// top-level tools and tools written inline in an agent. A tool shared by
// several agents appears once. The list is made on the first call, nil
// when there are none; the caller must not change it.
func (p *Program) Tools() []*Tool { return p.tools.all() }

// NumTools returns len(p.Tools()) without making the list.
func (p *Program) NumTools() int { return p.tools.len() }

// ToolAt returns p.Tools()[i] without making the list.
func (p *Program) ToolAt(i int) *Tool { return p.tools.at(i) }

// AllTools yields the tools with their indexes, as p.Tools() holds them,
// without making the list.
func (p *Program) AllTools() iter.Seq2[int, *Tool] { return p.tools.seq() }

// ChangedTools yields the tools of p that are not those of prev, an
// earlier version's program with as many tools, at the same places, with
// their places: it costs about what the edits between them changed.
func (p *Program) ChangedTools(prev *Program) iter.Seq2[int, *Tool] {
	return changed(p.tools, prev.tools)
}

// Agents returns the file's agents in source order. The list is made on
// the first call, nil when there are none; the caller must not change it.
func (p *Program) Agents() []*Agent { return p.agents.all() }

// NumAgents returns len(p.Agents()) without making the list.
func (p *Program) NumAgents() int { return p.agents.len() }

// AgentAt returns p.Agents()[i] without making the list.
func (p *Program) AgentAt(i int) *Agent { return p.agents.at(i) }

// AllAgents yields the agents with their indexes, as p.Agents() holds
// them, without making the list.
func (p *Program) AllAgents() iter.Seq2[int, *Agent] { return p.agents.seq() }

// ChangedAgents yields the agents of p that are not those of prev, an
// earlier version's program with as many agents, at the same places, with
// their places: it costs about what the edits between them changed.
func (p *Program) ChangedAgents(prev *Program) iter.Seq2[int, *Agent] {
	return changed(p.agents, prev.agents)
}
