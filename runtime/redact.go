// Redaction: secrets never leave the process. One [Redactor] masks every
// secret the process holds (the model's API key, credential headers, MCP
// bearer tokens) wherever text leaves: errors, logs, traces, recordings,
// what the model's answers carry into tool input and output, MCP replies.
//
// A secret is recognised in the forms a server or a program may echo it in:
// plain; JSON-escaped, any character as \u00XX (also with the backslash
// itself escaped, as in JSON inside JSON) and / as \/; URL-encoded (%XX, in
// either case); and base64 (standard and URL alphabets, padded or not, at
// any alignment inside a longer encoded text such as a Basic credential).

package runtime

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// keyLike matches tokens that look like API keys ("sk-...", "sk-proj-...",
// including the masked forms some APIs echo in error messages, and the
// dash JSON- or URL-encoded), whether or not the process holds them.
var keyLike = regexp.MustCompile(`\bsk(?:-|\\+u002[dD]|%2[dD])[A-Za-z0-9_*.\-]{6,}`)

// Redactor masks secrets in text. The zero Redactor masks key-like tokens
// only. A Redactor is immutable and safe for concurrent use.
type Redactor struct {
	re *regexp.Regexp // every form of every secret, or nil
}

// minSecret is the length below which a string is not taken as a secret:
// masking it would mask ordinary text.
const minSecret = 4

// minEncoded is the shortest base64 fragment of a secret that is masked.
const minEncoded = 8

// NewRedactor returns a redactor for the given secrets; empty and very
// short ones are ignored.
func NewRedactor(secrets ...string) Redactor {
	var alts []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			alts = append(alts, s)
		}
	}
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		add(s)
		if len(s) >= minEncoded/2 {
			for _, enc := range base64Fragments(s) {
				add(enc)
			}
		}
	}
	if len(alts) == 0 {
		return Redactor{}
	}
	// Longest first, so a secret containing another is masked whole.
	slices.SortStableFunc(alts, func(a, b string) int { return len(b) - len(a) })
	pats := make([]string, len(alts))
	for i, a := range alts {
		pats[i] = encodedPattern(a)
	}
	return Redactor{re: regexp.MustCompile(strings.Join(pats, "|"))}
}

// encodedPattern returns a pattern matching s with any of its characters
// JSON-escaped (\u00XX, \/ for /, with any number of backslashes) or
// URL-encoded (%XX).
func encodedPattern(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		hex := fmt.Sprintf("%02x", c)
		var h strings.Builder
		for _, d := range hex {
			if d >= 'a' {
				fmt.Fprintf(&h, "[%c%c]", d, d-'a'+'A')
			} else {
				h.WriteRune(d)
			}
		}
		b.WriteString(`(?:`)
		b.WriteString(regexp.QuoteMeta(string(c)))
		if c == '/' {
			b.WriteString(`|\\+/`)
		}
		fmt.Fprintf(&b, `|\\+u00%s|%%%s)`, h.String(), h.String())
	}
	return b.String()
}

// base64Fragments returns the parts of the base64 encodings of s that do
// not depend on what surrounds s: for each of the three alignments of s in
// the encoded text and each alphabet, the characters made of s's bits only.
func base64Fragments(s string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := 0; k < 3; k++ {
			e := enc.EncodeToString(append(make([]byte, k), s...))
			e = strings.TrimRight(e, "=")
			// Leading characters that hold bits of the k padding bytes.
			skip := []int{0, 2, 3}[k]
			// A trailing character that holds bits of what follows s.
			end := len(e)
			if (k+len(s))%3 != 0 {
				end--
			}
			if end-skip >= minEncoded {
				out = append(out, e[skip:end])
			}
		}
	}
	return out
}

// String returns s with every secret masked.
func (r Redactor) String(s string) string {
	if r.re != nil {
		s = r.re.ReplaceAllLiteralString(s, Redacted)
	}
	return keyLike.ReplaceAllLiteralString(s, Redacted)
}

// Bytes returns b with every secret masked (b itself when it holds none).
func (r Redactor) Bytes(b []byte) []byte {
	out := b
	if r.re != nil {
		out = r.re.ReplaceAllLiteral(out, []byte(Redacted))
	}
	out = keyLike.ReplaceAllLiteral(out, []byte(Redacted))
	if bytes.Equal(out, b) {
		return b
	}
	return out
}

// Writer returns a writer that masks the secrets in each write before
// passing it to w. Each write must hold whole secrets, as the writes of
// lines, log records and protocol messages do.
func (r Redactor) Writer(w io.Writer) io.Writer { return redactWriter{w: w, r: r} }

type redactWriter struct {
	w io.Writer
	r Redactor
}

// Write implements io.Writer: it reports the length of p when the masked
// text was written.
func (rw redactWriter) Write(p []byte) (int, error) {
	if _, err := rw.w.Write(rw.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Transport returns an http.RoundTripper that sends requests through next
// (nil means http.DefaultTransport) and masks the secrets in the response
// bodies, so that nothing a server echoes (an Authorization header, the
// key inside a tool call's arguments) reaches the rest of the process.
func (r Redactor) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return redactTransport{next: next, r: r}
}

type redactTransport struct {
	next http.RoundTripper
	r    Redactor
}

// RoundTrip implements http.RoundTripper.
func (t redactTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	body = t.r.Bytes(body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, rerr
}

// sensitiveHeader reports whether a header carries credentials.
func sensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "api-key":
		return true
	}
	return strings.Contains(n, "key") || strings.Contains(n, "token") ||
		strings.Contains(n, "secret") || strings.Contains(n, "auth")
}

// redactHeaders returns a copy of h with credential headers replaced by
// [Redacted] and secrets masked in the others.
func redactHeaders(h http.Header, r Redactor) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if sensitiveHeader(k) {
			out[k] = []string{Redacted}
			continue
		}
		cp := make([]string, len(vs))
		for i, v := range vs {
			cp[i] = r.String(v)
		}
		out[k] = cp
	}
	return out
}
