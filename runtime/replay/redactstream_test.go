package replay_test

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gramlang/gram/internal/gramtest"
	"github.com/gramlang/gram/runtime/fakeopenai"
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

// TestStreamMaskerEncodedForms: a secret holding a double quote and a
// slash, written in each form the redactor masks (JSON-escaped with any
// case of hex, URL-encoded, ...), is masked whole however the text is cut,
// one byte a piece included.
func TestStreamMaskerEncodedForms(t *testing.T) {
	const secret = `sk-te"st/0123456789abcdef`
	r := replay.NewRedactor(secret)
	for _, f := range gramtest.SecretForms(secret) {
		text := "Your key: " + f.Text + ", keep it."
		want := "Your key: " + replay.Redacted + ", keep it."
		if got := r.String(text); got != want {
			t.Fatalf("%s: the redactor itself masks %q as %q", f.Name, text, got)
		}
		n := len(f.Text)
		checkPieces(t, r, text, want, 9, f.Text[n/2-3:n/2+3], f.Text[n-6:])
	}
}

// TestStreamMaskerPartialEscapes: an escape begun at the end of the text
// (a backslash, \u00, %, %2) is held back until what follows tells
// whether it makes a secret; then it is passed on at once.
func TestStreamMaskerPartialEscapes(t *testing.T) {
	r := replay.NewRedactor("sk-test-0123456789abcdef")
	for _, c := range []struct{ begun, more string }{
		{`\`, `n`}, {`\u`, `x`}, {`\u00`, `zz`}, {`\\u007`, `!`}, {`%`, ` `}, {`%2`, ` off`}, {`%7`, `%`},
	} {
		var got strings.Builder
		m := r.NewStreamMasker(func(s string) { got.WriteString(s) })
		m.Write("a " + c.begun)
		if got.String() != "a " {
			t.Errorf("%q: %q was passed on", c.begun, got.String())
		}
		m.Write(c.more)
		if !strings.HasPrefix(got.String(), "a "+c.begun) {
			t.Errorf("%q then %q: %q was passed on, the escape still held", c.begun, c.more, got.String())
		}
	}
}

// TestStreamMaskerRandomCuts: texts made of secrets in their forms, parts
// of them, escapes, key-like tokens and URLs, cut at random, are passed on
// as Redactor.String masks them whole.
func TestStreamMaskerRandomCuts(t *testing.T) {
	r := replay.NewRedactor(`sk-te"st-0123456789abcdef`, "abcabcab", "hunter2-pw", "sk-proj-aaaaaaaaZ", "pa/ss:wo")
	parts := []string{`sk-te"st-0123456789abcdef`, `\u0073\u006b\u002D`, `%73%6b%2d`, `\"`, `\\`, `\u00`, `%2`, `%`,
		`\`, "abc", "ab", "sk-", "sk", "s", " ", "://", ":", "@", "/", "x", "é", "hunter2-pw", "hunter2%2dpw", "u0", "0",
		"-", "sk-proj-", "aaaa", "pa", "ss", "%2F", `\/`, "wo", "://u:", "p@h", "%40", "%3A", "x://a://b:c@d", `\\\\u0073`}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		text := b.String()
		var got strings.Builder
		m := r.NewStreamMasker(func(s string) { got.WriteString(s) })
		for rest := text; rest != ""; {
			n := min(1+rng.IntN(4), len(rest))
			m.Write(rest[:n])
			rest = rest[n:]
		}
		m.Flush()
		if want := r.String(text); got.String() != want {
			t.Fatalf("%q: passed on %q, want %q", text, got.String(), want)
		}
	}
}

// TestRedactingTransportEncodedKey: a server streaming an answer that
// echoes a secret in one of its forms, one byte a chunk, gets through the
// redacting transport events whose text, joined, is the answer masked:
// no event carries a piece of the secret.
func TestRedactingTransportEncodedKey(t *testing.T) {
	const secret = `sk-te"st/0123456789abcdef`
	client := &http.Client{Transport: replay.NewRedactor(secret).Transport(nil)}
	for _, f := range gramtest.SecretForms(secret) {
		srv := fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
			r := fakeopenai.Text("Your key: " + f.Text + ", keep it.")(req)
			r.Streaming.Piece = 1
			return r
		})
		resp, err := client.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := joinedContent(t, body), "Your key: "+replay.Redacted+", keep it."; got != want {
			t.Errorf("%s: the events read %q, want %q", f.Name, got, want)
		}
	}
}

// TestRedactingTransportOverlappingSecrets: two secrets that overlap in a
// streamed answer are masked as one, as Redactor.String masks them, in the
// events that carry them.
func TestRedactingTransportOverlappingSecrets(t *testing.T) {
	r := replay.NewRedactor("abcdefgh", "efghijkl")
	const answer = "see abcdefghijkl here"
	srv := fakeopenai.New(t, func(req *fakeopenai.Request) fakeopenai.Response {
		resp := fakeopenai.Text(answer)(req)
		resp.Streaming.Piece = 3
		return resp
	})
	client := &http.Client{Transport: r.Transport(nil)}
	resp, err := client.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := joinedContent(t, body), r.String(answer); got != want || want != "see "+replay.Redacted+" here" {
		t.Errorf("the events read %q, want %q", got, want)
	}
}

// joinedContent joins the text of the chunks of an event stream.
func joinedContent(t *testing.T, body []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("an event is not JSON: %v: %s", err, data)
		}
		for _, c := range chunk.Choices {
			b.WriteString(c.Delta.Content)
		}
	}
	return b.String()
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

// BenchmarkStreamMasker masks texts of n, 2n, 4n and 8n one-byte pieces:
// prose holding the secrets in several forms (plain, JSON-escaped,
// URL-encoded), and a key-like token as long as the text, which is held
// back whole until its end. The time per piece (ns/piece) stays the same
// across the sizes: holding back is linear in the text.
func BenchmarkStreamMasker(b *testing.B) {
	const secret = `sk-te"st-0123456789abcdef`
	r := replay.NewRedactor(secret, "hdr-canary-77aa66bb55cc")
	prose := `Here is the key \u0073\u006b\u002D\u0074\u0065\u0022 and %73%6b%2d ` + secret +
		` then sk%2dte%22st%2d0123456789abcdef, 50% off \\ \u00e9 https://example.com/a ok. `
	const n = 1 << 12
	for _, kind := range []string{"prose", "held"} {
		for _, size := range []int{n, 2 * n, 4 * n, 8 * n} {
			text := strings.Repeat(prose, size/len(prose)+1)[:size]
			if kind == "held" {
				text = "sk-" + strings.Repeat("a", size-3)
			}
			b.Run(kind+"/"+strconv.Itoa(size), func(b *testing.B) {
				for range b.N {
					m := r.NewStreamMasker(func(string) {})
					for i := 0; i < len(text); i++ {
						m.Write(text[i : i+1])
					}
					m.Flush()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/piece")
			})
		}
	}
}

// BenchmarkRedactingTransport reads through the redacting transport event
// streams of n, 2n, 4n and 8n chunks of one byte of text: prose holding the
// secrets in several forms, and a key-like token as long as the text, whose
// events are held back until its end. The time per chunk (ns/chunk) stays
// the same across the sizes.
func BenchmarkRedactingTransport(b *testing.B) {
	const secret = `sk-te"st-0123456789abcdef`
	r := replay.NewRedactor(secret)
	prose := `Here is the key \u0073\u006b\u002D\u0074\u0065\u0022 and %73%6b%2d ` + secret + ` then 50% off \\ ok. `
	const n = 1 << 10
	for _, kind := range []string{"prose", "held"} {
		for _, size := range []int{n, 2 * n, 4 * n, 8 * n} {
			text := strings.Repeat(prose, size/len(prose)+1)[:size]
			if kind == "held" {
				text = "sk-" + strings.Repeat("a", size-3)
			}
			var body strings.Builder
			for i := 0; i < len(text); i++ {
				content, _ := json.Marshal(text[i : i+1])
				body.WriteString(`data: {"choices":[{"index":0,"delta":{"content":` + string(content) + "}}]}\n\n")
			}
			body.WriteString("data: [DONE]\n\n")
			rt := r.Transport(roundTripper(func(*http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
					Body: io.NopCloser(strings.NewReader(body.String()))}, nil
			}))
			req, _ := http.NewRequest(http.MethodPost, "http://model.invalid/v1/chat/completions", nil)
			b.Run(kind+"/"+strconv.Itoa(size), func(b *testing.B) {
				for range b.N {
					resp, err := rt.RoundTrip(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/chunk")
			})
		}
	}
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

// RoundTrip implements http.RoundTripper.
func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
