package tokens

// The pre-tokenizers of o200k_base and cl100k_base, written by hand: their
// regular expressions use a lookahead, \s+(?!\S), which Go's regexp lacks.
// Each alternative below is one of the expression's, tried in its order at
// each position, the first that matches giving the piece; each follows the
// backtracking a regular-expression engine would do for it.
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanner reads the runes of a text at byte offsets.
type scanner string

// at returns the rune at i and its width; at the end, -1 and 0.
func (s scanner) at(i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(string(s[i:]))
}

// run returns the end of the longest run of runes in class from i.
func (s scanner) run(i int, class func(rune) bool) int {
	for {
		r, w := s.at(i)
		if w == 0 || !class(r) {
			return i
		}
		i += w
	}
}

// one returns the end of one rune in class at i, or -1.
func (s scanner) one(i int, class func(rune) bool) int {
	if r, w := s.at(i); w > 0 && class(r) {
		return i + w
	}
	return -1
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }
func isNumber(r rune) bool { return unicode.IsNumber(r) }
func isSpace(r rune) bool  { return unicode.IsSpace(r) }
func isNewline(r rune) bool {
	return r == '\r' || r == '\n'
}

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool { return !isNewline(r) && !isLetter(r) && !isNumber(r) }

// isPunct is [^\s\p{L}\p{N}].
func isPunct(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

// isUpper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpper(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLower is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLower(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or returns -1.
func (s scanner) contraction(i int) int {
	if i >= len(s) || s[i] != '\'' {
		return -1
	}
	rest := string(s[i+1:])
	for _, c := range []string{"s", "t", "re", "ve", "m", "ll", "d"} {
		if len(rest) >= len(c) && strings.EqualFold(rest[:len(c)], c) {
			return i + 1 + len(c)
		}
	}
	return -1
}

// optContraction is the optional contraction after a word.
func (s scanner) optContraction(i int) int {
	if e := s.contraction(i); e >= 0 {
		return e
	}
	return i
}

// prefixes returns the starts to try after [^\r\n\p{L}\p{N}]? at i: with
// the rune taken first, then without.
func (s scanner) prefixes(i int) []int {
	if e := s.one(i, isPrefix); e >= 0 {
		return []int{e, i}
	}
	return []int{i}
}

// digits matches \p{N}{1,3}.
func (s scanner) digits(i int) int {
	e := i
	for k := 0; k < 3; k++ {
		n := s.one(e, isNumber)
		if n < 0 {
			break
		}
		e = n
	}
	if e == i {
		return -1
	}
	return e
}

// punct matches ` ?[^\s\p{L}\p{N}]+` followed by the runs of tail.
func (s scanner) punct(i int, tail func(rune) bool) int {
	q := i
	if q < len(s) && s[q] == ' ' {
		q++
	}
	e := s.run(q, isPunct)
	if e == q {
		return -1
	}
	return s.run(e, tail)
}

// spaces matches \s*[\r\n]+, \s+(?!\S) and \s+, in that order.
func (s scanner) spaces(i int) int {
	e := s.run(i, isSpace)
	if e == i {
		return -1
	}
	// \s*[\r\n]+: the whitespace up to its last line break.
	last := -1
	for k := i; k < e; {
		r, w := s.at(k)
		if isNewline(r) {
			last = k + w
		}
		k += w
	}
	if last >= 0 {
		return last
	}
	// \s+(?!\S): all of it at the end of the text, else all but its last
	// rune, if that leaves one.
	if e == len(s) {
		return e
	}
	_, w := utf8.DecodeLastRuneInString(string(s[i:e]))
	if e-w > i {
		return e - w
	}
	return e
}

// splitCl100k cuts s into the pieces of cl100k_base's pre-tokenizer.
func splitCl100k(text string, yield func(string)) {
	s := scanner(text)
	for i := 0; i < len(s); {
		e := s.nextCl100k(i)
		yield(text[i:e])
		i = e
	}
}

// nextCl100k returns the end of the piece that starts at i.
func (s scanner) nextCl100k(i int) int {
	if e := s.contraction(i); e >= 0 {
		return e
	}
	for _, q := range s.prefixes(i) {
		if e := s.run(q, isLetter); e > q {
			return e
		}
	}
	if e := s.digits(i); e >= 0 {
		return e
	}
	if e := s.punct(i, isNewline); e >= 0 {
		return e
	}
	if e := s.spaces(i); e >= 0 {
		return e
	}
	_, w := s.at(i)
	return i + w
}

// splitO200k cuts s into the pieces of o200k_base's pre-tokenizer.
func splitO200k(text string, yield func(string)) {
	s := scanner(text)
	for i := 0; i < len(s); {
		e := s.nextO200k(i)
		yield(text[i:e])
		i = e
	}
}

// nextO200k returns the end of the piece that starts at i.
func (s scanner) nextO200k(i int) int {
	if e := s.lowerWord(i); e >= 0 {
		return e
	}
	if e := s.upperWord(i); e >= 0 {
		return e
	}
	if e := s.digits(i); e >= 0 {
		return e
	}
	isTail := func(r rune) bool { return isNewline(r) || r == '/' }
	if e := s.punct(i, isTail); e >= 0 {
		return e
	}
	if e := s.spaces(i); e >= 0 {
		return e
	}
	_, w := s.at(i)
	return i + w
}

// lowerWord matches prefix? upper* lower+ contraction?: the upper run
// given back a rune at a time until a lower rune follows it.
func (s scanner) lowerWord(i int) int {
	for _, q := range s.prefixes(i) {
		var ends []int
		for k := q; ; {
			ends = append(ends, k)
			r, w := s.at(k)
			if w == 0 || !isUpper(r) {
				break
			}
			k += w
		}
		for j := len(ends) - 1; j >= 0; j-- {
			if e := s.run(ends[j], isLower); e > ends[j] {
				return s.optContraction(e)
			}
		}
	}
	return -1
}

// upperWord matches prefix? upper+ lower* contraction?.
func (s scanner) upperWord(i int) int {
	for _, q := range s.prefixes(i) {
		if e := s.run(q, isUpper); e > q {
			return s.optContraction(s.run(e, isLower))
		}
	}
	return -1
}
