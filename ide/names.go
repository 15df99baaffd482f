// The names a text defines, for completion: sorted tables, one of each
// kind of name, each made when a completion first needs it and then,
// version after version, made to follow the document's edits.
//
// A table is of one list of a version: the top-level identities (of the
// document's lowered patterns), the top-level tools and every tool (of
// the program's tools), the records and the agents. It holds every name of
// its list, each with its place in the list, sorted by the name without
// case, then the name, then the place; a name written twice is there
// twice, and a kind whose names are offered once (identities, tools)
// offers the first (see nameTable.pick). So a table is what its list makes
// of it, however it was made.
//
// A version of a document shares with the one before, by pointer, every
// pattern and compiled declaration the edit did not reach (see
// docs/architecture.md, "Versions of a document"). An edit that changes
// no name (a description, a type) keeps every table as it was: a version
// whose list is as long as the one before's, and whose values the edit
// changed (found by chunk, see parser.Document.ChangedLowered and
// schema.Program.ChangedTools) have the names they had, takes the table
// of the version before when that one fits its list; the first completion
// after such an edit costs the values it changed, not the list. Otherwise
// a version's tables are the earlier version's with its lists compared to
// the new ones: from the front and from the back, by pointer, and by name
// where the pointers differ, to the run of places whose names changed. An
// edit that renames, adds or removes declarations takes the old run's
// names out, puts the new run's in and moves the places after it (a list
// mostly changed is tabled again): a pass over the pointers of one list,
// not the names of the document; the names are read where the compiler
// made every declaration anew (a file compiled in full: with tests, or
// renamed declarations).
//
// A text with more than [MaxCompletions] names of a kind gets at most that
// many, those that start with the word being typed, in a list marked
// incomplete (the editor asks again as the word changes); a text with fewer
// gets them all. So a completion costs the same in a text of a hundred
// names as in one of a hundred thousand.

package ide

import (
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// MaxCompletions is the most names of a kind a completion offers.
const MaxCompletions = 100

// nameTables are the names of one version of a text, by kind: the
// top-level identities (of the document's lowered patterns), the top-level
// tools, every tool (which a test may expect called), the records and the
// agents. Each kind's table is made when first asked for.
type nameTables struct {
	idents       *nameList[*parser.Pattern]
	tools, calls *nameList[*schema.Tool]
	records      *nameList[*schema.Record]
	agents       *nameList[*schema.Agent]
}

// nameList is a list of a version and the table of its names, made when
// first asked for (see table).
type nameList[T comparable] struct {
	// list gives the list, asked for when the table is made: a version's
	// list of patterns is put together from its chunks only then.
	list func() []T
	// name gives the name of an element ("" for none); once is set when
	// a name is offered once.
	name func(T) string
	once bool
	made sync.Once
	// src is the list's table once made; before, the newest table of the
	// list of an earlier version known, which the list's follows (nil:
	// none).
	src atomic.Pointer[tableOf[T]]
	// fits is set once src's table is the table of this list: made, or
	// taken from the version before, whose list had the same names at
	// the same places. Once set, src no longer changes.
	fits atomic.Bool
}

// tableOf is a table and the list it is of.
type tableOf[T any] struct {
	list  []T
	table *nameTable
}

// nameTable is the names of a list, sorted (see cmpPlaced).
type nameTable struct {
	es []placed
	// once is set when a name is offered once, at its first place; count
	// is how many names are offered.
	once  bool
	count int
}

// placed is a name, its key (the name in lower case) and its place in the
// list it is of.
type placed struct {
	key, name string
	at        int
}

// identName is what the table of identities takes of a lowered pattern:
// its identity ("" for none).
func identName(p *parser.Pattern) string { return p.Subject.Identity }

// toolName is what the table of top-level tools takes of a tool: its
// name, "" for an inline one.
func toolName(t *schema.Tool) string {
	if t.TopLevel {
		return t.Name
	}
	return ""
}

// callName is what the table of every tool takes of a tool: its name.
func callName(t *schema.Tool) string { return t.Name }

// recordName is what the table of records takes of a record: its name.
func recordName(r *schema.Record) string { return r.Name }

// agentName is what the table of agents takes of an agent: its name.
func agentName(ag *schema.Agent) string { return ag.Name }

// newNames returns the name tables of the lists of doc and prog, which
// follow those of the analysis of an earlier version of the document,
// prev, when it is not nil.
func newNames(doc *parser.Document, prog *schema.Program, prev *Analysis) *nameTables {
	var p nameTables
	// same tells whether a list of prev has the names of this version's
	// at the same places: it goes through the values an edit changed (see
	// parser.Document.ChangedLowered, schema.Program.ChangedTools), not
	// the list.
	var same struct{ idents, tools, calls, agents func() bool }
	if prev != nil {
		p = *prev.names
		pd, pp := prev.Doc, prev.Prog
		same.idents = func() bool {
			return doc.NumLowered() == pd.NumLowered() && sameNames(doc.ChangedLowered(pd), pd.LoweredAt, identName)
		}
		tools := func(name func(*schema.Tool) string) func() bool {
			return func() bool {
				return prog.NumTools() == pp.NumTools() && sameNames(prog.ChangedTools(pp), pp.ToolAt, name)
			}
		}
		same.tools, same.calls = tools(toolName), tools(callName)
		same.agents = func() bool {
			return prog.NumAgents() == pp.NumAgents() && sameNames(prog.ChangedAgents(pp), pp.AgentAt, agentName)
		}
	}
	return &nameTables{
		idents:  newNameList(doc.Lowered, identName, true, p.idents, same.idents),
		tools:   newNameList(prog.Tools, toolName, true, p.tools, same.tools),
		calls:   newNameList(prog.Tools, callName, true, p.calls, same.calls),
		records: newNameList(func() []*schema.Record { return prog.Records }, recordName, false, p.records, nil),
		agents:  newNameList(prog.Agents, agentName, false, p.agents, same.agents),
	}
}

// sameNames reports whether the values changed yields, with their places,
// have the names of the values at the same places of an earlier version
// of their list (old gives them).
func sameNames[T any](changed iter.Seq2[int, T], old func(int) T, name func(T) string) bool {
	for i, x := range changed {
		if name(x) != name(old(i)) {
			return false
		}
	}
	return true
}

// newNameList returns the list, whose table is to follow that of prev
// (nil: none), an earlier version's: its own if made, else the one it was
// to follow. When prev's table fits prev and same (nil: unknown) tells
// that prev's list has the names of this one at the same places, the
// table is this list's too.
func newNameList[T comparable](list func() []T, name func(T) string, once bool, prev *nameList[T], same func() bool) *nameList[T] {
	l := &nameList[T]{list: list, name: name, once: once}
	if prev != nil {
		// fits first: once it is set, prev's src is its table for good.
		fits := prev.fits.Load()
		l.src.Store(prev.src.Load())
		l.fits.Store(fits && same != nil && same())
	}
	return l
}

// table returns the table of the list, making it on first use: from the
// table it follows, else from nothing.
func (l *nameList[T]) table() *nameTable {
	l.made.Do(func() {
		if l.fits.Load() {
			return // the table of an earlier version's list of the same names
		}
		var t *nameTable
		list := l.list()
		if s := l.src.Load(); s != nil {
			t = followTable(s.table, s.list, list, l.name)
		} else {
			t = buildTable(list, l.name, l.once)
		}
		l.src.Store(&tableOf[T]{list: list, table: t})
		l.fits.Store(true)
	})
	return l.src.Load().table
}

// buildTable makes the table of the names of list (name gives them);
// once: a name is offered once.
func buildTable[T any](list []T, name func(T) string, once bool) *nameTable {
	t := &nameTable{once: once}
	for i, x := range list {
		if n := name(x); n != "" {
			t.es = append(t.es, newPlaced(n, i))
		}
	}
	slices.SortFunc(t.es, cmpPlaced)
	t.count = t.countNames()
	return t
}

// newPlaced returns the entry of name at the place at. The name is a copy:
// tables taken over by later versions keep no text of this one.
func newPlaced(name string, at int) placed {
	name = strings.Clone(name)
	return placed{key: strings.ToLower(name), name: name, at: at}
}

// cmpPlaced orders entries by key, then name, then place.
func cmpPlaced(x, y placed) int {
	if c := strings.Compare(x.key, y.key); c != 0 {
		return c
	}
	if c := strings.Compare(x.name, y.name); c != 0 {
		return c
	}
	return x.at - y.at
}

// countNames returns how many names the table offers: its entries, or
// its different names when each is offered once.
func (t *nameTable) countNames() int {
	if !t.once {
		return len(t.es)
	}
	n := 0
	for i := range t.es {
		if i == 0 || t.es[i].name != t.es[i-1].name {
			n++
		}
	}
	return n
}

// followTable returns the table of the list cur, a later version of the
// list old whose table t is. The lists are compared from both ends, by
// pointer, then by name where the pointers differ, to the run of places
// whose names changed: none, and t is the table of cur too.
func followTable[T comparable](t *nameTable, old, cur []T, name func(T) string) *nameTable {
	if len(old) == len(cur) && (len(old) == 0 || &old[0] == &cur[0]) {
		return t
	}
	n := min(len(old), len(cur))
	lo := 0
	for lo < n {
		// Most elements are shared: a tight loop over the pointers.
		for lo < n && old[lo] == cur[lo] {
			lo++
		}
		if lo == n || name(old[lo]) != name(cur[lo]) {
			break
		}
		lo++
	}
	oldEnd, curEnd := len(old), len(cur)
	for oldEnd > lo && curEnd > lo {
		for oldEnd > lo && curEnd > lo && old[oldEnd-1] == cur[curEnd-1] {
			oldEnd, curEnd = oldEnd-1, curEnd-1
		}
		if oldEnd == lo || curEnd == lo || name(old[oldEnd-1]) != name(cur[curEnd-1]) {
			break
		}
		oldEnd, curEnd = oldEnd-1, curEnd-1
	}
	if lo == oldEnd && lo == curEnd {
		return t
	}
	// Most of the list changed (another text): made again, which gives
	// the same table.
	if changed := oldEnd - lo + curEnd - lo; changed > len(cur)/4 {
		return buildTable(cur, name, t.once)
	}
	var come []placed
	for i := lo; i < curEnd; i++ {
		if nm := name(cur[i]); nm != "" {
			come = append(come, newPlaced(nm, i))
		}
	}
	return t.patch(lo, oldEnd, curEnd-oldEnd, come)
}

// patch returns the table t with the entries of the places lo to end-1
// taken out and come put in, and the places from end on moved by shift.
func (t *nameTable) patch(lo, end, shift int, come []placed) *nameTable {
	slices.SortFunc(come, cmpPlaced)
	out := &nameTable{once: t.once, es: make([]placed, 0, len(t.es)+len(come))}
	k := 0
	for _, e := range t.es {
		if lo <= e.at && e.at < end {
			continue
		}
		if e.at >= end {
			e.at += shift
		}
		for ; k < len(come) && cmpPlaced(come[k], e) < 0; k++ {
			out.es = append(out.es, come[k])
		}
		out.es = append(out.es, e)
	}
	out.es = append(out.es, come[k:]...)
	out.count = out.countNames()
	return out
}

// holds reports whether the table holds name.
func (t *nameTable) holds(name string) bool {
	_, ok := t.first(name)
	return ok
}

// pick returns the entries to offer for the word being typed: all of them
// when the table offers at most MaxCompletions names (the editor filters
// them itself, fuzzily), else at most MaxCompletions of those whose names
// start with the word, and true: the list is then incomplete, and the
// editor asks again as the word changes. A name offered once is offered
// at its first place.
func (t *nameTable) pick(word string) ([]placed, bool) {
	if t.count <= MaxCompletions {
		return t.offered(t.es, len(t.es)), false
	}
	return t.offered(t.withPrefix(word), MaxCompletions), true
}

// starting returns every name offered whose name starts with word,
// ignoring case.
func (t *nameTable) starting(word string) []placed {
	es := t.withPrefix(word)
	return t.offered(es, len(es))
}

// offered returns at most limit names of es, a run of the table: the
// entries, or the first of each name when a name is offered once.
func (t *nameTable) offered(es []placed, limit int) []placed {
	if !t.once {
		return es[:min(len(es), limit)]
	}
	var out []placed
	for i := 0; i < len(es) && len(out) < limit; i++ {
		if i > 0 && es[i].name == es[i-1].name {
			if out == nil {
				// The first repeated name: a list of the names.
				out = slices.Clone(es[:i])
			}
			continue
		}
		if out != nil {
			out = append(out, es[i])
		}
	}
	if out == nil {
		return es[:min(len(es), limit)]
	}
	return out
}

// withPrefix returns the run of entries whose names start with prefix,
// ignoring case.
func (t *nameTable) withPrefix(prefix string) []placed {
	p, es := strings.ToLower(prefix), t.es
	i := sort.Search(len(es), func(i int) bool { return es[i].key >= p })
	j := i + sort.Search(len(es)-i, func(k int) bool { return !strings.HasPrefix(es[i+k].key, p) })
	return es[i:j]
}

// first returns the place of the first entry of name, if the table holds
// one.
func (t *nameTable) first(name string) (int, bool) {
	key, es := strings.ToLower(name), t.es
	for i := sort.Search(len(es), func(i int) bool { return es[i].key >= key }); i < len(es) && es[i].key == key; i++ {
		if es[i].name == name {
			return es[i].at, true
		}
	}
	return 0, false
}
