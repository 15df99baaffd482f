package replay_test

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime/replay"
)

// TestStreamMasker: whatever the size of the pieces, the text passed on is
// the whole text masked as Redactor.String masks it, and no piece carries
// a secret's characters; text that cannot begin a secret is passed on at
// once.
func TestStreamMasker(t *testing.T) {
	const secret = "sk-test-0123456789abcdef"
	r := replay.NewRedactor(secret)
	text := "Your key is " + secret + ", again sk-proj-ZYXWVUTSRQPO and \"" + secret + "\" — done, thanks."
	want := r.String(text)
	if strings.Contains(want, "0123") || strings.Contains(want, "ZYXW") {
		t.Fatalf("the redactor itself misses a secret: %s", want)
	}
	checkPieces(t, r, text, want, 9, "0123", "cdef", "ZYXW")

	var got strings.Builder
	m := r.NewStreamMasker(func(s string) { got.WriteString(s) })
	m.Write("Hello there, ")
	m.Write("how are you?")
	if got.String() != "Hello there, how are you?" || !m.Delivered() {
		t.Errorf("text with nothing like a secret was held back: %q", got.String())
	}
	m.Write(" s")
	if got.String() != "Hello there, how are you? " {
		t.Errorf("a word starting with s, which may begin a key, was passed on: %q", got.String())
	}
}

// TestStreamMaskerURLCredentials: the credentials of a URL are masked
// whole however the text is cut, and a URL without them passes unchanged.
func TestStreamMaskerURLCredentials(t *testing.T) {
	var r replay.Redactor
	text := "Use postgres://app:hunter2-pw@db:5432/app, not https://example.com/x: ok"
	want := "Use postgres://" + replay.Redacted + "@db:5432/app, not https://example.com/x: ok"
	if got := r.String(text); got != want {
		t.Fatalf("String: got %q, want %q", got, want)
	}
	checkPieces(t, r, text, want, 12, "hunt", "app:")
}

// checkPieces masks text written in pieces of 1 to most bytes and checks
// that what is passed on is want, and that no piece passed on holds one
// of the parts of a secret.
func checkPieces(t *testing.T, r replay.Redactor, text, want string, most int, parts ...string) {
	t.Helper()
	for size := 1; size <= most; size++ {
		var pieces []string
		m := r.NewStreamMasker(func(s string) { pieces = append(pieces, s) })
		for rest := text; rest != ""; {
			n := min(size, len(rest))
			m.Write(rest[:n])
			rest = rest[n:]
		}
		m.Flush()
		if got := strings.Join(pieces, ""); got != want {
			t.Errorf("pieces of %d: got %q, want %q", size, got, want)
		}
		for _, p := range pieces {
			for _, part := range parts {
				if strings.Contains(p, part) {
					t.Errorf("pieces of %d: a piece holds part of a secret: %q", size, p)
				}
			}
		}
	}
}
