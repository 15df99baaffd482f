// Package unidiff writes line diffs in unified format, for `gramc fmt -d`:
// [Write]. Lines are compared with Myers' O((N+M)D) algorithm in its
// linear-space form: find the middle snake of the shortest edit script,
// then solve the two halves on either side of it.
package unidiff

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
)

// diffOp is one line of an edit script: kept, deleted from a or inserted from b.
type diffOp struct {
	kind byte // ' ', '-' or '+'
	a, b int  // the line's index in a (for ' ' and '-') and in b (for ' ' and '+')
}

// splitLines splits s into lines, each with its line ending; the last line may
// have none.
func splitLines(s []byte) []string {
	var lines []string
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, string(s))
			break
		}
		lines = append(lines, string(s[:i+1]))
		s = s[i+1:]
	}
	return lines
}

// differ computes an edit script between two line lists.
type differ struct {
	a, b   []string
	vf, vb []int
	ops    []diffOp
}

// diffLines returns the edit script that turns a into b with the fewest
// deleted and inserted lines.
func diffLines(a, b []string) []diffOp {
	n := len(a) + len(b) + 2
	d := &differ{a: a, b: b, vf: make([]int, 2*n+1), vb: make([]int, 2*n+1)}
	d.diff(0, len(a), 0, len(b))
	deletionsFirst(d.ops)
	return d.ops
}

// deletionsFirst reorders each run of changed lines so that its deleted
// lines come before its inserted ones, in their order, as unified diffs
// show a replacement (the edit script is the same).
func deletionsFirst(ops []diffOp) {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		slices.SortStableFunc(ops[i:j], func(x, y diffOp) int {
			return cmp.Compare(y.kind, x.kind) // '-' (45) before '+' (43)
		})
		i = j
	}
}

// diff appends the edit script of a[alo:ahi] against b[blo:bhi].
func (d *differ) diff(alo, ahi, blo, bhi int) {
	for alo < ahi && blo < bhi && d.a[alo] == d.b[blo] {
		d.ops = append(d.ops, diffOp{' ', alo, blo})
		alo++
		blo++
	}
	var tail []diffOp
	for alo < ahi && blo < bhi && d.a[ahi-1] == d.b[bhi-1] {
		ahi--
		bhi--
		tail = append(tail, diffOp{' ', ahi, bhi})
	}
	switch {
	case alo == ahi:
		for ; blo < bhi; blo++ {
			d.ops = append(d.ops, diffOp{'+', alo, blo})
		}
	case blo == bhi:
		for ; alo < ahi; alo++ {
			d.ops = append(d.ops, diffOp{'-', alo, blo})
		}
	default:
		x, y, u, v := d.middleSnake(alo, ahi, blo, bhi)
		if (x == alo && y == blo && u == ahi && v == bhi) || (u == alo && v == blo) || (x == ahi && y == bhi) {
			// No progress (cannot happen for a real middle snake): replace.
			for i := alo; i < ahi; i++ {
				d.ops = append(d.ops, diffOp{'-', i, blo})
			}
			for j := blo; j < bhi; j++ {
				d.ops = append(d.ops, diffOp{'+', ahi, j})
			}
		} else {
			d.diff(alo, x, blo, y)
			for ; x < u; x, y = x+1, y+1 {
				d.ops = append(d.ops, diffOp{' ', x, y})
			}
			d.diff(u, ahi, v, bhi)
		}
	}
	for i := len(tail) - 1; i >= 0; i-- {
		d.ops = append(d.ops, tail[i])
	}
}

// middleSnake returns the middle snake (x, y)-(u, v) of a shortest edit script
// of a[alo:ahi] against b[blo:bhi], both non-empty.
func (d *differ) middleSnake(alo, ahi, blo, bhi int) (x, y, u, v int) {
	a, b := d.a[alo:ahi], d.b[blo:bhi]
	n, m := len(a), len(b)
	delta := n - m
	odd := delta&1 != 0
	off := len(d.vf) / 2
	vf, vb := d.vf, d.vb
	vf[off+1], vb[off+1] = 0, 0
	for k := 0; k <= (n+m+1)/2; k++ {
		// Forward: vf[off+k] is the furthest x on diagonal k = x - y.
		for diag := -k; diag <= k; diag += 2 {
			var px int
			if diag == -k || (diag != k && vf[off+diag-1] < vf[off+diag+1]) {
				px = vf[off+diag+1]
			} else {
				px = vf[off+diag-1] + 1
			}
			py := px - diag
			sx, sy := px, py
			for px < n && py < m && a[px] == b[py] {
				px++
				py++
			}
			vf[off+diag] = px
			if rd := delta - diag; odd && rd >= -(k-1) && rd <= k-1 && px+vb[off+rd] >= n {
				return alo + sx, blo + sy, alo + px, blo + py
			}
		}
		// Backward, on the reversed sequences: vb[off+k] is the furthest x'
		// on diagonal k = x' - y', where x' = n - x and y' = m - y.
		for diag := -k; diag <= k; diag += 2 {
			var px int
			if diag == -k || (diag != k && vb[off+diag-1] < vb[off+diag+1]) {
				px = vb[off+diag+1]
			} else {
				px = vb[off+diag-1] + 1
			}
			py := px - diag
			sx, sy := px, py
			for px < n && py < m && a[n-1-px] == b[m-1-py] {
				px++
				py++
			}
			vb[off+diag] = px
			if fd := delta - diag; !odd && fd >= -k && fd <= k && vf[off+fd]+px >= n {
				return alo + n - px, blo + m - py, alo + n - sx, blo + m - sy
			}
		}
	}
	return alo, blo, ahi, bhi
}

// Write writes the differences between a and b as a unified diff
// with three lines of context, under the names aName and bName. It writes
// nothing when they are equal.
func Write(w io.Writer, aName, bName string, a, b []byte) error {
	if bytes.Equal(a, b) {
		return nil
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	const context = 3
	var out bytes.Buffer
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before the change to context lines
		// after the last change that is at most 2*context lines further.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(end+context, len(ops))
		var na, nb int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				na++
			}
			if op.kind != '-' {
				nb++
			}
		}
		first := ops[start]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(first.a, na), hunkRange(first.b, nb))
		for _, op := range ops[start:end] {
			line := ""
			switch op.kind {
			case '+':
				line = bl[op.b]
			default:
				line = al[op.a]
			}
			out.WriteByte(op.kind)
			out.WriteString(line)
			if len(line) == 0 || line[len(line)-1] != '\n' {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	_, err := w.Write(out.Bytes())
	return err
}

// hunkRange formats the range of a hunk header: the 1-based first line and the
// number of lines (omitted when 1); an empty range names the line before it.
func hunkRange(first, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", first)
	case 1:
		return fmt.Sprintf("%d", first+1)
	}
	return fmt.Sprintf("%d,%d", first+1, n)
}
