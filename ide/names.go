// The names a text defines, for completion: sorted tables built once per
// analysis, or taken from the version before when its names are the same.
// A text with more than [MaxCompletions] names of a kind gets at most that
// many, those that start with the word being typed, in a list marked
// incomplete (the editor asks again as the word changes); a text with fewer
// gets them all. So a completion costs the same in a text of a hundred
// names as in one of a hundred thousand.

package ide

import (
	"slices"
	"sort"
	"strings"

	"github.com/gramlang/gram/schema"
)

// MaxCompletions is the most names of a kind a completion offers.
const MaxCompletions = 100

// nameTables are the names a file defines, each table sorted by its names
// without case: the top-level identities, the top-level tools and the
// records (by their places in the program's lists). A later version of the
// document whose names are the same, in the same places, takes them as they
// are (see fits).
type nameTables struct {
	idents  []namedEntry[struct{}]
	tools   []namedEntry[int]
	records []namedEntry[int]
	// What the tables were made of: the identity of each top-level
	// pattern, and the names of the program's tools (and which are
	// top-level) and records, in order.
	ids, toolNames, recordNames []string
	toolTop                     []bool
}

// namedEntry is a name, its key (the name in lower case) and what it names;
// seq is its place in source order.
type namedEntry[T any] struct {
	key, name string
	v         T
	seq       int
}

// ownNames returns the analysis's name tables, making them on first use,
// or taking an earlier version's when they fit.
func (a *Analysis) ownNames() *nameTables {
	a.namesOnce.Do(func() {
		if p := a.known.Load(); p != nil && p.fits(a) {
			a.names = p
		} else {
			a.names = buildNames(a)
		}
		a.known.Store(a.names)
	})
	return a.names
}

// fits reports whether the tables are those of a: the same names in the
// same places.
func (nt *nameTables) fits(a *Analysis) bool {
	p := a.Prog
	if len(nt.ids) != len(a.Doc.Lowered()) || len(nt.toolNames) != len(p.Tools) || len(nt.recordNames) != len(p.Records) {
		return false
	}
	for i, q := range a.Doc.Lowered() {
		if q.Subject.Identity != nt.ids[i] {
			return false
		}
	}
	for i, t := range p.Tools {
		if t.Name != nt.toolNames[i] || t.TopLevel != nt.toolTop[i] {
			return false
		}
	}
	for i, r := range p.Records {
		if r.Name != nt.recordNames[i] {
			return false
		}
	}
	return true
}

// buildNames makes the name tables of an analysis. Their names are copies:
// tables taken over by later versions keep no text of this one.
func buildNames(a *Analysis) *nameTables {
	n := len(a.Doc.Lowered())
	nt := &nameTables{ids: make([]string, n)}
	seen := make(map[string]bool, n)
	for i, p := range a.Doc.Lowered() {
		id := strings.Clone(p.Subject.Identity)
		nt.ids[i] = id
		if id != "" && !seen[id] {
			seen[id] = true
			nt.idents = append(nt.idents, namedEntry[struct{}]{key: strings.ToLower(id), name: id, seq: len(nt.idents)})
		}
	}
	seen = map[string]bool{}
	for i, t := range a.Prog.Tools {
		name := strings.Clone(t.Name)
		nt.toolNames, nt.toolTop = append(nt.toolNames, name), append(nt.toolTop, t.TopLevel)
		if t.TopLevel && name != "" && !seen[name] {
			seen[name] = true
			nt.tools = append(nt.tools, namedEntry[int]{key: strings.ToLower(name), name: name, v: i, seq: len(nt.tools)})
		}
	}
	for i, r := range a.Prog.Records {
		name := strings.Clone(r.Name)
		nt.recordNames = append(nt.recordNames, name)
		if name != "" {
			nt.records = append(nt.records, namedEntry[int]{key: strings.ToLower(name), name: name, v: i, seq: len(nt.records)})
		}
	}
	sortEntries(nt.idents)
	sortEntries(nt.tools)
	sortEntries(nt.records)
	return nt
}

// sortEntries sorts a table by key, then name, keeping the source order of
// equal names (by seq: a stable sort of a large table costs n log² n).
func sortEntries[T any](es []namedEntry[T]) {
	slices.SortFunc(es, func(x, y namedEntry[T]) int {
		if c := strings.Compare(x.key, y.key); c != 0 {
			return c
		}
		if c := strings.Compare(x.name, y.name); c != 0 {
			return c
		}
		return x.seq - y.seq
	})
}

// pick returns the entries to offer for the word being typed: all of them
// when there are at most MaxCompletions (the editor filters them itself,
// fuzzily), else at most MaxCompletions of those whose names start with the
// word, and true: the list is then incomplete, and the editor asks again as
// the word changes.
func pick[T any](es []namedEntry[T], word string) ([]namedEntry[T], bool) {
	if len(es) <= MaxCompletions {
		return es, false
	}
	es = withPrefix(es, word)
	return es[:min(len(es), MaxCompletions)], true
}

// withPrefix returns the entries whose names start with prefix, ignoring
// case.
func withPrefix[T any](es []namedEntry[T], prefix string) []namedEntry[T] {
	p := strings.ToLower(prefix)
	i := sort.Search(len(es), func(i int) bool { return es[i].key >= p })
	j := i + sort.Search(len(es)-i, func(k int) bool { return !strings.HasPrefix(es[i+k].key, p) })
	return es[i:j]
}

// tool returns the top-level tool of p, the program the tables are of,
// with the given name, or nil.
func (nt *nameTables) tool(p *schema.Program, name string) *schema.Tool {
	key := strings.ToLower(name)
	es := nt.tools
	for i := sort.Search(len(es), func(i int) bool { return es[i].key >= key }); i < len(es) && es[i].key == key; i++ {
		if es[i].name == name {
			return p.Tools[es[i].v]
		}
	}
	return nil
}
