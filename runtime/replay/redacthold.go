// What a streamed text must hold back: the tail that could still become a
// secret in any form a Redactor masks. A holdScanner reads the text once,
// byte by byte, as it arrives: it undoes the escapes as decodeEscapes does
// (an escape not finished yet is held whole), follows the needles in the
// decoded text with an Aho–Corasick automaton, and follows the key-like
// tokens and URL credentials with small state machines. Each byte costs
// constant time (amortized), so holding back is linear in the text
// however it is cut.

package replay

import "sort"

// holdScanner follows a text that arrives in pieces; offsets are in the
// whole text. See [holdScanner.hold].
type holdScanner struct {
	trie *needleTrie
	pos  int // the bytes read

	esc     escState // the escape under way, if any
	escAt   int      // where it starts
	escLead int      // where its lead (the % or the backslashes) ends
	escTail []byte   // what follows the lead: u, 0, 0 and hex digits

	node   int32 // the automaton's state
	starts []int // ring: where the last decoded bytes start
	ndec   int   // the decoded bytes

	key    keyTracker
	user   userTracker
	guards [][2]int // spans to pass on whole: disjoint, in order
}

// escState is how far an escape under way has come.
type escState uint8

const (
	escNone escState = iota
	escPct           // %, then a hex digit (in escTail)
	escRun           // backslashes, then u, 0, 0 and a hex digit (in escTail)
)

// newHoldScanner returns a scanner of a text for r's secrets.
func (r Redactor) newHoldScanner() *holdScanner {
	s := &holdScanner{trie: r.trie}
	if s.trie != nil && s.trie.longest > 0 {
		s.starts = make([]int, s.trie.longest)
	}
	return s
}

// write reads a piece of the text.
func (s *holdScanner) write(p string) {
	for i := 0; i < len(p); i++ {
		s.step(p[i])
	}
}

// step reads one byte of the text.
func (s *holdScanner) step(c byte) {
	i := s.pos
	s.pos++
	s.key.step(c, i, s)
	if s.esc != escNone && s.escape(c, i) {
		return
	}
	switch c {
	case '%':
		s.esc, s.escAt, s.escLead, s.escTail = escPct, i, i+1, s.escTail[:0]
	case '\\':
		s.esc, s.escAt, s.escLead, s.escTail = escRun, i, i+1, s.escTail[:0]
	default:
		s.decoded(c, i, i+1)
	}
}

// escape reads byte c, at offset i, of the escape under way: it reports
// whether c was taken. An escape that cannot be finished is plain text,
// passed on as decodeEscapes keeps it, and c is not taken.
func (s *holdScanner) escape(c byte, i int) bool {
	t := s.escTail
	switch {
	case s.esc == escPct && len(t) == 0 && isHexDigit(c):
		s.escTail = append(t, c)
		return true
	case s.esc == escPct && len(t) == 1 && isHexDigit(c):
		s.esc = escNone
		s.decoded(unhex(t[0])<<4|unhex(c), s.escAt, i+1)
		return true
	case s.esc == escRun && len(t) == 0 && c == '\\':
		s.escLead++
		return true
	case s.esc == escRun && len(t) == 0 && (c == '/' || c == '"'):
		s.esc = escNone
		s.decoded(c, s.escAt, i+1)
		return true
	case s.esc == escRun && (len(t) == 0 && c == 'u' || (len(t) == 1 || len(t) == 2) && c == '0' ||
		len(t) == 3 && isHexDigit(c) && unhex(c) < 8):
		s.escTail = append(t, c)
		return true
	case s.esc == escRun && len(t) == 4 && isHexDigit(c):
		s.esc = escNone
		s.decoded(unhex(t[3])<<4|unhex(c), s.escAt, i+1)
		return true
	}
	s.unwind()
	return false
}

// unwind passes on the bytes of an escape that cannot be finished as the
// plain text they are.
func (s *holdScanner) unwind() {
	lead := byte('%')
	if s.esc == escRun {
		lead = '\\'
	}
	s.esc = escNone
	for k := s.escAt; k < s.escLead; k++ {
		s.decoded(lead, k, k+1)
	}
	for k, c := range s.escTail {
		s.decoded(c, s.escLead+k, s.escLead+k+1)
	}
}

// decoded reads a byte of the decoded text, which the text holds from
// start to end.
func (s *holdScanner) decoded(c byte, start, end int) {
	s.user.step(c, start, end, s)
	if s.trie == nil {
		return
	}
	s.node = s.trie.next(s.node, c)
	s.starts[s.ndec%len(s.starts)] = start
	s.ndec++
	if m := s.trie.nodes[s.node].match; m > 0 {
		s.guard(s.startBack(int(m)), end)
	}
}

// startBack returns where the decoded byte n bytes from the end starts.
func (s *holdScanner) startBack(n int) int {
	return s.starts[(s.ndec-n)%len(s.starts)]
}

// guard keeps a span that is masked whole: the text is never cut inside it.
func (s *holdScanner) guard(start, end int) {
	for len(s.guards) > 0 {
		last := s.guards[len(s.guards)-1]
		if last[1] <= start {
			break
		}
		start = min(start, last[0])
		s.guards = s.guards[:len(s.guards)-1]
	}
	s.guards = append(s.guards, [2]int{start, end})
}

// hold returns the offset from which the text read must be held back
// (pos when none needs to be): what follows may make of its tail a secret,
// in any form, a key-like token or a URL's credentials.
func (s *holdScanner) hold() int {
	h := s.pos
	if s.esc != escNone {
		h = s.escAt
	}
	if s.trie != nil {
		if d := s.trie.nodes[s.node].hold; d > 0 {
			h = min(h, s.startBack(int(d)))
		}
	}
	if s.key.state != keyNone {
		h = min(h, s.key.start)
	}
	if s.user.state != userNone {
		h = min(h, s.user.start)
	}
	return h
}

// whole returns cut, or the start of the span to be masked whole that cut
// falls inside.
func (s *holdScanner) whole(cut int) int {
	i := sort.Search(len(s.guards), func(i int) bool { return s.guards[i][1] > cut })
	if i < len(s.guards) && s.guards[i][0] < cut {
		return s.guards[i][0]
	}
	return cut
}

// release forgets the spans that end before cut, the text before it
// passed on.
func (s *holdScanner) release(cut int) {
	i := sort.Search(len(s.guards), func(i int) bool { return s.guards[i][1] > cut })
	s.guards = s.guards[i:]
}

// keyTracker follows, in the raw text, the key-like token (see keyLike)
// that its tail begins or is.
type keyTracker struct {
	state keyState
	start int  // where the token starts
	run   int  // its characters after the dash
	prev  byte // the byte before, for the word boundary
}

// keyState is how far a key-like token has come.
type keyState uint8

const (
	keyNone   keyState = iota
	keyS               // s
	keySK              // sk
	keyBack            // sk\ (any number of backslashes)
	keyU               // sk\u
	keyU0              // sk\u0
	keyU00             // sk\u00
	keyU002            // sk\u002
	keyPct             // sk%
	keyPct2            // sk%2
	keyDashed          // sk- or an escaped dash, then token characters
)

// next returns the state byte c leads to from k, which is neither
// keyNone nor keyDashed.
func (k keyState) next(c byte) keyState {
	switch {
	case k == keyS && c == 'k':
		return keySK
	case k == keySK && c == '-':
		return keyDashed
	case k == keySK && c == '%':
		return keyPct
	case (k == keySK || k == keyBack) && c == '\\':
		return keyBack
	case k == keyBack && c == 'u':
		return keyU
	case k == keyU && c == '0':
		return keyU0
	case k == keyU0 && c == '0':
		return keyU00
	case k == keyU00 && c == '2':
		return keyU002
	case k == keyPct && c == '2':
		return keyPct2
	case (k == keyU002 || k == keyPct2) && (c == 'd' || c == 'D'):
		return keyDashed
	}
	return keyNone
}

// step reads byte c, at offset i, of the raw text; a key-like token
// complete is kept whole by s.
func (k *keyTracker) step(c byte, i int, s *holdScanner) {
	prev := k.prev
	k.prev = c
	switch k.state {
	case keyNone:
	case keyDashed:
		if isTokenByte(c) {
			k.run++
			return
		}
		if k.run >= 6 {
			s.guard(k.start, i)
		}
		k.state = keyNone
	default:
		if k.state = k.state.next(c); k.state != keyNone {
			return
		}
	}
	if c == 's' && !isWordByte(prev) {
		k.state, k.start, k.run = keyS, i, 0
	}
}

// isWordByte reports whether c is a word character of regular
// expressions (\w).
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// isTokenByte reports whether c may be part of a key-like token after its
// dash.
func isTokenByte(c byte) bool { return isWordByte(c) || c == '*' || c == '.' || c == '-' }

// userTracker follows, in the decoded text, the credentials of a URL (see
// urlUserinfo) that its tail may begin: from the colon of "://".
type userTracker struct {
	state     userState
	start     int  // where the colon starts
	prev      byte // the decoded byte before
	prevStart int  // where it starts
}

// userState is how far a URL's credentials have come.
type userState uint8

const (
	userNone  userState = iota
	userColon           // :
	userSlash           // :/
	userRun             // ://, then the characters of credentials
)

// step reads a decoded byte c, which the text holds from start to end; a
// URL's credentials complete are kept whole by s.
func (u *userTracker) step(c byte, start, end int, s *holdScanner) {
	prev, prevStart := u.prev, u.prevStart
	u.prev, u.prevStart = c, start
	switch {
	case u.state == userColon && c == '/':
		u.state = userSlash
		return
	case u.state == userSlash && c == '/':
		u.state = userRun
		return
	case u.state == userRun && isUserinfoByte(c):
		return
	case u.state == userRun && c == '@' && prev != '/':
		s.guard(u.start, end)
	case u.state == userRun && c == '/' && prev == ':':
		// "x://a://b": the colon inside is the start of another.
		u.state, u.start = userSlash, prevStart
		return
	}
	u.state = userNone
	if c == ':' {
		u.state, u.start = userColon, start
	}
}

// isUserinfoByte reports whether c may be part of a URL's credentials (see
// urlUserinfo).
func isUserinfoByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', '/', '?', '#', '@', '"', '\'', '<', '>', '\\':
		return false
	}
	return true
}

// needleTrie is an Aho–Corasick automaton over a Redactor's needles.
type needleTrie struct {
	nodes   []trieNode
	longest int // the longest needle's length
}

// trieNode is a state of a needleTrie: the prefix of a needle read last.
type trieNode struct {
	edges []trieEdge
	fail  int32 // the state of the longest proper suffix that is one
	depth int32 // the prefix's length
	hold  int32 // the longest suffix that a needle goes on from
	match int32 // the longest needle that is a suffix, 0 if none
}

// trieEdge leads from a state to the next with a byte.
type trieEdge struct {
	c  byte
	to int32
}

// newNeedleTrie returns the automaton of the needles, nil when there are
// none.
func newNeedleTrie(needles []string) *needleTrie {
	if len(needles) == 0 {
		return nil
	}
	t := &needleTrie{nodes: []trieNode{{}}}
	for _, n := range needles {
		t.longest = max(t.longest, len(n))
		at := int32(0)
		for i := 0; i < len(n); i++ {
			to := t.child(at, n[i])
			if to < 0 {
				to = int32(len(t.nodes))
				t.nodes = append(t.nodes, trieNode{depth: t.nodes[at].depth + 1})
				t.nodes[at].edges = append(t.nodes[at].edges, trieEdge{n[i], to})
			}
			at = to
		}
		t.nodes[at].match = t.nodes[at].depth
	}
	t.link()
	return t
}

// link sets the fail links, hold and match of every state, breadth first.
func (t *needleTrie) link() {
	queue := []int32{0}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		n := &t.nodes[at]
		if at != 0 {
			f := &t.nodes[n.fail]
			if n.match == 0 {
				n.match = f.match
			}
			n.hold = f.hold
			if len(n.edges) > 0 {
				n.hold = n.depth
			}
		}
		for _, e := range n.edges {
			if at != 0 {
				t.nodes[e.to].fail = t.next(n.fail, e.c)
			}
			queue = append(queue, e.to)
		}
	}
}

// child returns the state at leads to with c, -1 if none.
func (t *needleTrie) child(at int32, c byte) int32 {
	for _, e := range t.nodes[at].edges {
		if e.c == c {
			return e.to
		}
	}
	return -1
}

// next returns the state after reading c in state at.
func (t *needleTrie) next(at int32, c byte) int32 {
	for {
		if to := t.child(at, c); to >= 0 {
			return to
		}
		if at == 0 {
			return 0
		}
		at = t.nodes[at].fail
	}
}
