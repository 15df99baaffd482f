// Package tokens counts the tokens text and tool definitions take in a
// model's prompt, offline.
//
// OpenAI's models are counted exactly with their byte-pair encodings,
// o200k_base (gpt-4o, gpt-4.1, the o-series, gpt-5) and cl100k_base (the
// older models), embedded in the binary (data/, made by
// internal/tokensgen from the npm package js-tiktoken, MIT licence). Other
// providers publish no tokenizer that can be run offline: their counts are
// estimates (see [ForModel]).
//
// # Entry points
//
//   - [O200kBase], [Cl100kBase]: the encodings; [Encoding.Count] the
//     tokens of a text.
//   - [ForModel]: the counter of a provider's model, exact or an estimate.
//   - [RenderFunctions], [Counter.Functions], [Counter.Function]: tool
//     definitions (the JSON of OpenAI function definitions) rendered as
//     OpenAI renders them into the prompt, and their tokens.
package tokens

import (
	"bytes"
	"compress/flate"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

// Encoding is a byte-pair encoding: a rank for each token, and the
// pre-tokenizer that cuts a text into the pieces merged separately.
type Encoding struct {
	// Name is the encoding's name, as tiktoken gives it: "o200k_base".
	Name string

	split func(s string, yield func(piece string))
	once  sync.Once
	ranks map[string]int
	err   error
}

var (
	o200k  = &Encoding{Name: "o200k_base", split: splitO200k}
	cl100k = &Encoding{Name: "cl100k_base", split: splitCl100k}
)

// O200kBase returns the encoding of gpt-4o, gpt-4.1, the o-series and
// gpt-5.
func O200kBase() *Encoding { return o200k }

// Cl100kBase returns the encoding of gpt-4, gpt-3.5-turbo and OpenAI's
// embedding models.
func Cl100kBase() *Encoding { return cl100k }

// load reads the embedded rank table once.
func (e *Encoding) load() {
	e.once.Do(func() {
		e.ranks, e.err = readRanks(e.Name)
	})
}

// readRanks decodes data/NAME.bpe: DEFLATE of, for each rank from 0, a
// uvarint length and the token's bytes (length 0: no token).
func readRanks(name string) (map[string]int, error) {
	z, err := data.ReadFile("data/" + name + ".bpe")
	if err != nil {
		return nil, fmt.Errorf("tokens: encoding %s is not embedded: %v (run internal/tokensgen)", name, err)
	}
	raw, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
	if err != nil {
		return nil, fmt.Errorf("tokens: data/%s.bpe is damaged: %v (run internal/tokensgen again)", name, err)
	}
	ranks := make(map[string]int, 200_000)
	for r := 0; len(raw) > 0; r++ {
		n, w := binary.Uvarint(raw)
		if w <= 0 || uint64(len(raw)-w) < n {
			return nil, fmt.Errorf("tokens: data/%s.bpe is damaged at rank %d (run internal/tokensgen again)", name, r)
		}
		if n > 0 {
			ranks[string(raw[w:w+int(n)])] = r
		}
		raw = raw[w+int(n):]
	}
	return ranks, nil
}

// Count returns the number of tokens of s, special tokens read as text.
// Where the tables are not embedded ([Embedded] false) it returns the
// number of the pre-tokenizer's pieces, each at least one token: a lower
// bound. It panics if the embedded table is damaged, a fault of the build.
func (e *Encoding) Count(s string) int {
	if !Embedded() {
		n := 0
		e.split(s, func(string) { n++ })
		return n
	}
	e.load()
	if e.err != nil {
		panic(e.err)
	}
	n := 0
	e.split(s, func(piece string) { n += e.pieceTokens(piece) })
	return n
}

// Encode returns the tokens of s by rank.
func (e *Encoding) Encode(s string) []int {
	e.load()
	if e.err != nil {
		panic(e.err)
	}
	var out []int
	e.split(s, func(piece string) {
		for _, p := range e.merge(piece) {
			out = append(out, e.ranks[p])
		}
	})
	return out
}

// pieceTokens returns the number of tokens of one piece of the
// pre-tokenizer.
func (e *Encoding) pieceTokens(piece string) int {
	if _, ok := e.ranks[piece]; ok {
		return 1
	}
	return len(e.merge(piece))
}

// merge cuts piece into its tokens: starting from single bytes, it joins
// the adjacent pair whose join has the lowest rank, leftmost first, until
// no join is a token.
func (e *Encoding) merge(piece string) []string {
	if _, ok := e.ranks[piece]; ok {
		return []string{piece}
	}
	if len(piece) > largePiece {
		return e.mergeLarge(piece)
	}
	return e.mergeSmall(piece)
}

// mergeSmall is merge looking at every pair for each join.
func (e *Encoding) mergeSmall(piece string) []string {
	// bounds[i] is where part i starts; the last entry is len(piece).
	bounds := make([]int, len(piece)+1)
	for i := range bounds {
		bounds[i] = i
	}
	const none = int(^uint(0) >> 1)
	pairRank := func(i int) int {
		if i+2 >= len(bounds) {
			return none
		}
		if r, ok := e.ranks[piece[bounds[i]:bounds[i+2]]]; ok {
			return r
		}
		return none
	}
	rank := make([]int, len(bounds)-1)
	for i := range rank {
		rank[i] = pairRank(i)
	}
	for len(bounds) > 2 {
		best, at := none, -1
		for i := 0; i < len(rank)-1; i++ {
			if rank[i] < best {
				best, at = rank[i], i
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		rank = append(rank[:at+1], rank[at+2:]...)
		rank[at] = pairRank(at)
		if at > 0 {
			rank[at-1] = pairRank(at - 1)
		}
	}
	parts := make([]string, len(bounds)-1)
	for i := range parts {
		parts[i] = piece[bounds[i]:bounds[i+1]]
	}
	return parts
}

// largePiece is the length above which a piece is merged by mergeLarge:
// merge looks at every pair for each join, which takes time in the
// square of the piece's length (a long run of one letter or of spaces).
const largePiece = 256

// mergeLarge is merge in time n log n: the candidate joins in a heap,
// lowest rank and then leftmost first, each checked when taken against the
// parts as they are then.
func (e *Encoding) mergeLarge(piece string) []string {
	n := len(piece)
	// Part i starts at byte i while alive; next[i] is where the part after
	// it starts, n for the last.
	next := make([]int, n)
	prev := make([]int, n)
	alive := make([]bool, n)
	for i := range n {
		next[i], prev[i], alive[i] = i+1, i-1, true
	}
	pairRank := func(i int) (int, bool) {
		if j := next[i]; j < n {
			r, ok := e.ranks[piece[i:next[j]]]
			return r, ok
		}
		return 0, false
	}
	h := &joinHeap{}
	for i := range n - 1 {
		if r, ok := pairRank(i); ok {
			h.items = append(h.items, join{r, i})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		c := heap.Pop(h).(join)
		if !alive[c.at] {
			continue
		}
		if r, ok := pairRank(c.at); !ok || r != c.rank {
			continue
		}
		j := next[c.at]
		alive[j] = false
		next[c.at] = next[j]
		if next[j] < n {
			prev[next[j]] = c.at
		}
		if r, ok := pairRank(c.at); ok {
			heap.Push(h, join{r, c.at})
		}
		if p := prev[c.at]; p >= 0 {
			if r, ok := pairRank(p); ok {
				heap.Push(h, join{r, p})
			}
		}
	}
	var parts []string
	for i := 0; i < n; i = next[i] {
		parts = append(parts, piece[i:next[i]])
	}
	return parts
}

// join is a candidate join of the part at byte at with the next, the
// rank of the token it makes.
type join struct{ rank, at int }

// joinHeap orders joins by rank, then position.
type joinHeap struct{ items []join }

func (h *joinHeap) Len() int { return len(h.items) }
func (h *joinHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return a.rank < b.rank || a.rank == b.rank && a.at < b.at
}
func (h *joinHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *joinHeap) Push(x any)    { h.items = append(h.items, x.(join)) }
func (h *joinHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
