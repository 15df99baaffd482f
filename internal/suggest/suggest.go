// Package suggest finds did-you-mean suggestions: the known name closest to
// a misspelt one, for the parser's undefined references, the compiler's
// unknown keys, types and names, and the runtime's unknown flags.
//
// # Entry points
//
// [Closest] for a short list of candidates; [NewNameIndex] and
// [NameIndex.Closest] for a large set asked about many times.
//
// # The rule
//
// A suggestion is the candidate with the smallest edit distance (insertions,
// deletions and substitutions of bytes, ASCII letters compared without case) to
// the misspelt name, if that distance is small for the name's length: at most a
// third of it, and at least 1. Of candidates equally close, the first in the
// candidates' order wins.
//
// [Closest] compares the name with every candidate, which suits short lists
// (property keys, built-in types). [NameIndex] answers the same question for
// large sets (every identity of a file, every record type) in time that hardly
// grows with the set: the names are kept in a trie of their lower-cased bytes,
// and a query walks it with one row of the edit-distance table per trie node,
// leaving a branch as soon as no entry of the row, plus what the lengths of the
// branch's names still add, is within the distance still allowed.
package suggest

import "sort"

// maxDistance is the largest edit distance a suggestion for s may have.
func maxDistance(s string) int { return max(1, len(s)/3) }

// Closest returns the candidate with the smallest edit distance to s, if that
// distance is small for the length of s (at most a third of it, at least 1),
// else "". Of equally close candidates the first wins. For many candidates, or
// many questions about one set, use a [NameIndex].
func Closest(s string, candidates []string) string {
	best, bestD := "", maxDistance(s)+1
	for _, c := range candidates {
		if d := len(c) - len(s); d >= bestD || -d >= bestD {
			continue // the lengths alone differ too much
		}
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// NameIndex is a set of names that answers [Closest] questions quickly. The
// zero value is empty; build one with [NewNameIndex]. It is safe for concurrent
// use once built.
type NameIndex struct {
	nodes []trieNode
}

// trieNode is a node of the trie: its outgoing edges sorted by byte, the name
// (of the smallest rank) that ends here, if any, and the shortest and longest
// name in its subtree.
type trieNode struct {
	edges          []trieEdge
	name           string
	rank           int // -1 when no name ends here
	minLen, maxLen int
}

type trieEdge struct {
	b    byte
	node int32
}

// NewNameIndex returns an index of names. Their order is the tie-break order
// of [NameIndex.Closest]: of equally close names, the earlier wins.
func NewNameIndex(names []string) *NameIndex {
	x := &NameIndex{nodes: []trieNode{{rank: -1, minLen: 1 << 30}}}
	for rank, name := range names {
		n := 0
		x.span(n, len(name))
		for i := 0; i < len(name); i++ {
			n = x.child(n, lower(name[i]))
			x.span(n, len(name))
		}
		if x.nodes[n].rank < 0 {
			x.nodes[n].name, x.nodes[n].rank = name, rank
		}
	}
	return x
}

// span widens node n's range of name lengths to include l.
func (x *NameIndex) span(n, l int) {
	x.nodes[n].minLen = min(x.nodes[n].minLen, l)
	x.nodes[n].maxLen = max(x.nodes[n].maxLen, l)
}

// child returns node n's child for byte b, creating it.
func (x *NameIndex) child(n int, b byte) int {
	edges := x.nodes[n].edges
	i := sort.Search(len(edges), func(i int) bool { return edges[i].b >= b })
	if i < len(edges) && edges[i].b == b {
		return int(edges[i].node)
	}
	c := len(x.nodes)
	x.nodes = append(x.nodes, trieNode{rank: -1, minLen: 1 << 30})
	edges = append(edges, trieEdge{})
	copy(edges[i+1:], edges[i:])
	edges[i] = trieEdge{b: b, node: int32(c)}
	x.nodes[n].edges = edges
	return c
}

// Closest returns the indexed name with the smallest edit distance to s, under
// the rules of [Closest], or "".
func (x *NameIndex) Closest(s string) string {
	m := x.match(s)
	return m.name
}

// match is a query's best answer so far.
// Nearest is [NameIndex.Closest] that also gives the edit distance of the
// name it finds ("" and 0 when no name is close).
func (x *NameIndex) Nearest(s string) (name string, distance int) {
	m := x.match(s)
	return m.name, m.d
}

type match struct {
	name    string
	rank, d int
}

// better reports whether a name of rank r at distance d beats m.
func (m *match) better(d, r int) bool {
	return m.name == "" || d < m.d || d == m.d && r < m.rank
}

// match finds the best name for s; name is "" when none is close enough.
func (x *NameIndex) match(s string) match {
	var m match
	if x == nil || len(x.nodes) == 0 {
		return m
	}
	root := &x.nodes[0]
	// One row of the edit-distance table per depth of the walk, all cut
	// from one buffer: no name is longer than the root's maxLen.
	width := len(s) + 1
	buf := make([]int, (max(root.maxLen, 0)+1)*width)
	q := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		q[i] = lower(s[i])
	}
	row := buf[:width]
	for j := range row {
		row[j] = j
	}
	w := walker{x: x, q: q, limit: maxDistance(s), m: &m, rows: buf}
	if gap(len(q), root.minLen, root.maxLen) <= w.limit {
		w.visit(0, 0, row)
	}
	return m
}

type walker struct {
	x     *NameIndex
	q     []byte
	limit int // the largest distance still of interest
	m     *match
	// rows holds the row of each depth: the row of depth d is
	// rows[d*(len(q)+1):][:len(q)+1].
	rows []int
}

// visit checks node n, at depth (prefix length) depth, whose prefix has the
// edit-distance row prev against the query's prefixes, and descends into the
// children that can still lead to a name within the limit. The child on the
// query's own next byte goes first: a close name found early lowers the
// limit, which prunes the other children more. The order of the visits
// does not change the answer.
func (w *walker) visit(n, depth int, prev []int) {
	node := &w.x.nodes[n]
	if node.rank >= 0 {
		if d := prev[len(w.q)]; d <= w.limit && w.m.better(d, node.rank) {
			*w.m = match{name: node.name, rank: node.rank, d: d}
			w.limit = d
		}
	}
	if len(node.edges) == 0 {
		return
	}
	width := len(prev)
	row := w.rows[(depth+1)*width:][:width]
	first := -1
	if depth < len(w.q) {
		b := w.q[depth]
		i := sort.Search(len(node.edges), func(i int) bool { return node.edges[i].b >= b })
		if i < len(node.edges) && node.edges[i].b == b {
			first = i
			w.edge(node.edges[i], depth, prev, row)
		}
	}
	for i, e := range node.edges {
		if i != first {
			w.edge(e, depth, prev, row)
		}
	}
}

// edge computes the row of e's child from prev into row and visits the
// child if a name below it can still be within the limit.
func (w *walker) edge(e trieEdge, depth int, prev, row []int) {
	child := &w.x.nodes[e.node]
	// A name below the child has minRem to maxRem more bytes; from cell j
	// the query has len(q)-j left, so at least the difference is added.
	minRem, maxRem := child.minLen-depth-1, child.maxLen-depth-1
	row[0] = prev[0] + 1
	least := row[0] + gap(len(w.q), minRem, maxRem)
	for j := 1; j < len(row); j++ {
		cost := 1
		if w.q[j-1] == e.b {
			cost = 0
		}
		row[j] = min(prev[j]+1, row[j-1]+1, prev[j-1]+cost)
		least = min(least, row[j]+gap(len(w.q)-j, minRem, maxRem))
	}
	if least <= w.limit {
		w.visit(int(e.node), depth+1, row)
	}
}

// gap is how far left is from the range [lo, hi].
func gap(left, lo, hi int) int {
	switch {
	case left < lo:
		return lo - left
	case left > hi:
		return left - hi
	}
	return 0
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if lower(a[i-1]) == lower(b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}
