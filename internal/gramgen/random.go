package gramgen

import (
	"math/rand/v2"
	"strings"
)

// Random returns a random gram document: a random walk over the notation's
// grammar (an optional header record, then top-level subject patterns and
// paths, some annotated, with records, every value kind and comments), drawing
// words that are easy to get wrong: true, false and null as identifiers and
// keys, numbers as identities, empty strings and names. Most documents are
// valid; some break gram-level rules (duplicate definitions, undefined
// references), which is not a syntax error.
func Random(r *rand.Rand) string {
	g := randomDoc{r: r}
	var b strings.Builder
	if r.IntN(5) == 0 {
		g.record(&b)
		b.WriteString(g.space())
	}
	for i, n := 0, 1+r.IntN(4); i < n; i++ {
		if i > 0 {
			b.WriteString(g.space())
		}
		g.top(&b)
	}
	b.WriteByte('\n')
	return b.String()
}

// Mutate returns s with one or two random byte edits (a byte dropped,
// doubled or swapped with another), which usually breaks its syntax.
func Mutate(r *rand.Rand, s string) string {
	b := []byte(s)
	for k, n := 0, 1+r.IntN(2); k < n && len(b) > 0; k++ {
		i := r.IntN(len(b))
		switch r.IntN(3) {
		case 0:
			b = append(b[:i], b[i+1:]...)
		case 1:
			b = append(b[:i+1], b[i:]...)
		default:
			j := r.IntN(len(b))
			b[i], b[j] = b[j], b[i]
		}
	}
	return string(b)
}

type randomDoc struct{ r *rand.Rand }

func (g randomDoc) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g randomDoc) chance(n int) bool { return g.r.IntN(n) == 0 }

func (g randomDoc) space() string { return g.pick("\n", " ", "\n\n", "\n  ") }

var randomSymbols = []string{"a", "b", "_x", "n1", "a.b", "a-b", "a@b", "Person", "KNOWS", "true", "false", "null", "Tool"}

func (g randomDoc) symbol() string { return randomSymbols[g.r.IntN(len(randomSymbols))] }

func (g randomDoc) ident() string {
	switch g.r.IntN(6) {
	case 0:
		return g.pick("`q id`", "``", "`true`")
	case 1:
		return g.pick("7", "-3", "0", "42")
	}
	return g.symbol()
}

func (g randomDoc) labels(b *strings.Builder) {
	for i, n := 0, 1+g.r.IntN(2); i < n; i++ {
		b.WriteString(g.pick(":", "::"))
		if g.chance(5) {
			b.WriteString(g.pick("`L x`", "``"))
		} else {
			b.WriteString(g.symbol())
		}
	}
}

func (g randomDoc) number() string {
	return g.pick("1", "-2", "0", "3.25", "-0.5", "0x1F", "017", "12kg", "30s", "00", "-7")
}

func (g randomDoc) scalar() string {
	switch g.r.IntN(7) {
	case 0:
		return g.number()
	case 1:
		return g.pick(`"dq"`, "'sq'", "`bt`", `"esc \" \n"`, `""`, "''", "``", "```\nfenced\ntext\n```", "```\n```",
			"```md\n# h\n```", "```true\nt\n```", "url`x`", "x``", "md `x`", "md // c\n`x`", "``` md // c\nx\n```")
	case 2:
		return g.pick("true", "false")
	case 3:
		return g.pick(g.number()+".."+g.number(), g.number()+"...", "..."+g.number())
	}
	return g.symbol()
}

func (g randomDoc) value(b *strings.Builder, inMap bool) {
	switch {
	case g.chance(6):
		b.WriteByte('[')
		for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(g.scalar())
		}
		b.WriteByte(']')
	case !inMap && g.chance(6):
		b.WriteByte('{')
		for i, n := 0, g.r.IntN(3); i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(g.key() + ": " + g.scalar())
		}
		b.WriteByte('}')
	default:
		b.WriteString(g.scalar())
	}
}

func (g randomDoc) key() string {
	if g.chance(4) {
		return g.pick(`"quoted key"`, "`bt key`", `""`)
	}
	return g.symbol()
}

func (g randomDoc) record(b *strings.Builder) {
	b.WriteByte('{')
	for i, n := 0, g.r.IntN(4); i < n; i++ {
		if i > 0 {
			b.WriteString(g.pick(", ", ",\n  "))
		}
		b.WriteString(g.key() + g.pick(": ", ":: ", ":"))
		g.value(b, false)
	}
	if g.chance(8) {
		b.WriteString(" // in a record\n")
	}
	b.WriteByte('}')
}

// subject writes an identifier, labels and a record, each optional, at least
// one present.
func (g randomDoc) subject(b *strings.Builder) {
	parts := 1 + g.r.IntN(7) // a bit set: 1 identifier, 2 labels, 4 record
	sep := ""
	if parts&1 != 0 {
		b.WriteString(g.ident())
		sep = " "
	}
	if parts&2 != 0 {
		if sep != "" && g.chance(2) {
			sep = ""
		}
		b.WriteString(sep)
		g.labels(b)
		sep = " "
	}
	if parts&4 != 0 {
		b.WriteString(sep)
		g.record(b)
	}
}

func (g randomDoc) node(b *strings.Builder) {
	b.WriteByte('(')
	if !g.chance(5) {
		g.subject(b)
	}
	b.WriteByte(')')
}

var randomArrows = [][2]string{
	{"-", "-"}, {"-", "->"}, {"<-", "-"}, {"<-", "->"}, {"=", "="}, {"=", "=>"},
	{"<=", "="}, {"<=", "=>"}, {"~", "~"}, {"~", "~>"}, {"<~", "~"}, {"<~", "~>"},
}

func (g randomDoc) path(b *strings.Builder) {
	g.node(b)
	for i, n := 0, g.r.IntN(3); i < n; i++ {
		a := randomArrows[g.r.IntN(len(randomArrows))]
		b.WriteString(a[0])
		if g.chance(2) {
			b.WriteByte('[')
			if !g.chance(4) {
				g.subject(b)
			}
			b.WriteByte(']')
		}
		b.WriteString(a[1])
		g.node(b)
	}
}

func (g randomDoc) subjectPattern(b *strings.Builder, depth int) {
	b.WriteByte('[')
	if !g.chance(5) {
		g.subject(b)
	}
	if !g.chance(3) {
		b.WriteString(" | ")
		for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
			if i > 0 {
				b.WriteString(g.pick(", ", ",\n  "))
			}
			switch k := g.r.IntN(4); {
			case k == 0 && depth < 3:
				g.subjectPattern(b, depth+1)
			case k == 1:
				b.WriteString(g.ident())
			default:
				g.path(b)
			}
		}
	}
	b.WriteByte(']')
}

func (g randomDoc) top(b *strings.Builder) {
	if g.chance(5) {
		if g.chance(3) {
			b.WriteString("@@")
			if g.chance(3) {
				g.labels(b)
			} else {
				b.WriteString(g.ident())
				if g.chance(2) {
					g.labels(b)
				}
			}
			b.WriteString(g.space())
		}
		for i, n := 0, 1+g.r.IntN(2); i < n; i++ {
			b.WriteString("@" + g.symbol() + "(")
			g.value(b, false)
			b.WriteString(")" + g.space())
		}
	}
	if g.chance(2) {
		g.subjectPattern(b, 0)
	} else {
		g.path(b)
	}
	if g.chance(7) {
		b.WriteString(" // c " + g.symbol())
	}
}
