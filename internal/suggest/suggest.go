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
//
// Its trie holds no pointers: a node names its first child and next sibling
// by index, and the name that ends there by its rank in names, so that a
// large index costs the collector nothing to scan and one allocation to grow.
type NameIndex struct {
	nodes []trieNode
	names []string
	// same gives, by rank, the next rank of a name that ends at the same
	// node (the same name but for case), or -1.
	same []int32
}

// trieNode is a node of the trie: the byte of the edge into it, its first
// child and next sibling (children are listed by ascending byte; 0 for none:
// the root is no one's child), the rank of the name (the smallest) that ends
// here, or -1, and the shortest and longest name in its subtree.
type trieNode struct {
	first, next    int32
	rank           int32
	minLen, maxLen int32
	b              byte
}

// NewNameIndex returns an index of names. Their order is the tie-break order
// of [NameIndex.Closest]: of equally close names, the earlier wins.
func NewNameIndex(names []string) *NameIndex {
	x := &NameIndex{nodes: []trieNode{{rank: -1, minLen: 1 << 30}}, names: names, same: make([]int32, len(names))}
	for rank, name := range names {
		x.same[rank] = -1
		n := int32(0)
		x.span(n, len(name))
		for i := 0; i < len(name); i++ {
			n = x.child(n, lower(name[i]))
			x.span(n, len(name))
		}
		if r := x.nodes[n].rank; r < 0 {
			x.nodes[n].rank = int32(rank)
		} else {
			for x.same[r] >= 0 {
				r = x.same[r]
			}
			x.same[r] = int32(rank)
		}
	}
	return x
}

// span widens node n's range of name lengths to include l.
func (x *NameIndex) span(n int32, l int) {
	x.nodes[n].minLen = min(x.nodes[n].minLen, int32(l))
	x.nodes[n].maxLen = max(x.nodes[n].maxLen, int32(l))
}

// child returns node n's child for byte b, creating it.
func (x *NameIndex) child(n int32, b byte) int32 {
	prev, c := int32(-1), x.nodes[n].first
	for c != 0 && x.nodes[c].b < b {
		prev, c = c, x.nodes[c].next
	}
	if c != 0 && x.nodes[c].b == b {
		return c
	}
	k := int32(len(x.nodes))
	x.nodes = append(x.nodes, trieNode{next: c, rank: -1, minLen: 1 << 30, b: b})
	if prev < 0 {
		x.nodes[n].first = k
	} else {
		x.nodes[prev].next = k
	}
	return k
}

// Closest returns the indexed name with the smallest edit distance to s, under
// the rules of [Closest], or "".
func (x *NameIndex) Closest(s string) string {
	m := x.match(s, nil)
	return m.name
}

// match is a query's best answer so far.
// Nearest is [NameIndex.Closest] that also gives the edit distance of the
// name it finds ("" and 0 when no name is close).
func (x *NameIndex) Nearest(s string) (name string, distance int) {
	m := x.match(s, nil)
	return m.name, m.d
}

// NearestExcept is [NameIndex.Nearest] over the indexed names but those
// for whose rank (their place in the names the index was made of) skip
// reports true: an index of a set of names answers for the set with a few
// taken out, as it would if it were made again without them.
func (x *NameIndex) NearestExcept(s string, skip func(rank int) bool) (name string, distance int) {
	m := x.match(s, skip)
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

// match finds the best name for s, of those skip (if set) does not skip;
// name is "" when none is close enough.
func (x *NameIndex) match(s string, skip func(int) bool) match {
	var m match
	if x == nil || len(x.nodes) == 0 {
		return m
	}
	root := &x.nodes[0]
	// One row of the edit-distance table per depth of the walk, all cut
	// from one buffer. The walk goes no deeper than the longest name, nor
	// than maxDistance(s)+1 bytes past s: a prefix that long is further
	// from every prefix of s than the limit allows, and is left.
	width := len(s) + 1
	depth := min(max(int(root.maxLen), 0), len(s)+maxDistance(s)+1)
	buf := make([]int, (depth+1)*width)
	q := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		q[i] = lower(s[i])
	}
	row := buf[:width]
	for j := range row {
		row[j] = j
	}
	w := walker{x: x, q: q, limit: maxDistance(s), m: &m, rows: buf, skip: skip}
	if gap(len(q), int(root.minLen), int(root.maxLen)) <= w.limit {
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
	// skip, when set, tells the ranks of the names not to answer.
	skip func(int) bool
}

// visit checks node n, at depth (prefix length) depth, whose prefix has the
// edit-distance row prev against the query's prefixes, and descends into the
// children that can still lead to a name within the limit. The child on the
// query's own next byte goes first: a close name found early lowers the
// limit, which prunes the other children more. The order of the visits
// does not change the answer.
func (w *walker) visit(n int32, depth int, prev []int) {
	node := &w.x.nodes[n]
	r := node.rank
	for w.skip != nil && r >= 0 && w.skip(int(r)) {
		r = w.x.same[r]
	}
	if r >= 0 {
		if d := prev[len(w.q)]; d <= w.limit && w.m.better(d, int(r)) {
			*w.m = match{name: w.x.names[r], rank: int(r), d: d}
			w.limit = d
		}
	}
	if node.first == 0 {
		return
	}
	width := len(prev)
	row := w.rows[(depth+1)*width:][:width]
	first := int32(0)
	if depth < len(w.q) {
		b := w.q[depth]
		for c := node.first; c != 0 && w.x.nodes[c].b <= b; c = w.x.nodes[c].next {
			if w.x.nodes[c].b == b {
				first = c
				w.edge(c, depth, prev, row)
			}
		}
	}
	for c := node.first; c != 0; c = w.x.nodes[c].next {
		if c != first {
			w.edge(c, depth, prev, row)
		}
	}
}

// edge computes the row of child c from prev into row and visits the
// child if a name below it can still be within the limit.
func (w *walker) edge(c int32, depth int, prev, row []int) {
	child := &w.x.nodes[c]
	b := child.b
	// A name below the child has minRem to maxRem more bytes; from cell j
	// the query has len(q)-j left, so at least the difference is added.
	minRem, maxRem := int(child.minLen)-depth-1, int(child.maxLen)-depth-1
	row[0] = prev[0] + 1
	least := row[0] + gap(len(w.q), minRem, maxRem)
	for j := 1; j < len(row); j++ {
		cost := 1
		if w.q[j-1] == b {
			cost = 0
		}
		row[j] = min(prev[j]+1, row[j-1]+1, prev[j-1]+cost)
		least = min(least, row[j]+gap(len(w.q)-j, minRem, maxRem))
	}
	if least <= w.limit {
		w.visit(c, depth+1, row)
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
