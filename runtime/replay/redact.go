// Redaction: secrets never leave the process. One [Redactor] masks every
// secret the process holds (the model's API key, credential headers, MCP
// bearer tokens) wherever text leaves: errors, logs, traces, recordings,
// what the model's answers carry into tool input and output, MCP replies.
//
// The credentials of every URL (scheme://user:password@host) are masked
// too, the secrets given or not.
//
// A secret is recognised in the forms a server or a program may echo it in:
// plain; JSON-escaped, any character as \u00XX (also with the backslash
// itself escaped, as in JSON inside JSON), " as \" and / as \/; URL-encoded (%XX, in
// either case); and base64 (standard and URL alphabets, padded or not, at
// any alignment inside a longer encoded text such as a Basic credential).

package replay

import (
	"bytes"
	"encoding/base64"
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

// Redactor masks secrets in text: the secrets it is given, the tokens that
// look like API keys, and the credentials (user and password) of every URL.
// The zero Redactor masks key-like tokens and URL credentials only. A Redactor is immutable and safe for concurrent use.
//
// Matching takes time linear in the text: the text is decoded once (JSON
// escapes of ASCII characters, \/ and %XX undone, with the offset of each
// decoded byte in the original kept), each secret and base64 fragment is
// searched for in the decoded text, and the original spans are masked.
type Redactor struct {
	needles []string    // the secrets and their base64 fragments, longest first
	trie    *needleTrie // the needles' automaton, for streamed text
}

// minSecret is the length below which a string is not taken as a secret:
// masking it would mask ordinary text.
const minSecret = 4

// minEncoded is the shortest base64 fragment of a secret that is masked.
const minEncoded = 8

// NewRedactor returns a redactor for the given secrets; empty and very
// short ones are ignored.
func NewRedactor(secrets ...string) Redactor {
	var needles []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			needles = append(needles, s)
		}
	}
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		add(s)
		for _, enc := range base64Fragments(s) {
			add(enc)
		}
	}
	// Longest first, so a secret containing another is masked whole.
	slices.SortStableFunc(needles, func(a, b string) int { return len(b) - len(a) })
	return Redactor{needles: needles, trie: newNeedleTrie(needles)}
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
	b := r.Bytes([]byte(s))
	return string(b)
}

// Bytes returns b with every secret masked (b itself when it holds none).
func (r Redactor) Bytes(b []byte) []byte { return mask(b, r.spans(b, 0)) }

// mask returns b with the spans replaced by [Redacted] (b itself when
// there are none).
func mask(b []byte, spans [][2]int) []byte {
	if len(spans) == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	last := 0
	for _, sp := range mergeSpans(spans) {
		out = append(out, b[last:sp[0]]...)
		out = append(out, Redacted...)
		last = sp[1]
	}
	return append(out, b[last:]...)
}

// mergeSpans sorts spans and joins those that overlap, in place.
func mergeSpans(spans [][2]int) [][2]int {
	slices.SortFunc(spans, func(x, y [2]int) int { return x[0] - y[0] })
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp[0] < out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}

// find returns the spans of b holding a secret, in any of its forms, or
// the credentials of a URL.
func (r Redactor) find(b []byte) [][2]int {
	if len(r.needles) == 0 && !mayHoldUserinfo(b) {
		return nil
	}
	dec, offs := decodeEscapes(b)
	orig := func(i int) int {
		if offs == nil {
			return i
		}
		return int(offs[i])
	}
	var spans [][2]int
	for _, n := range r.needles {
		for from := 0; ; {
			i := bytes.Index(dec[from:], []byte(n))
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(n)
			spans = append(spans, [2]int{orig(start), orig(end)})
			from = end
		}
	}
	for _, m := range urlUserinfo.FindAllSubmatchIndex(dec, -1) {
		spans = append(spans, [2]int{orig(m[2]), orig(m[3])})
	}
	return spans
}

// urlUserinfo matches the credentials of a URL (the user and password of
// scheme://user:password@host), whatever the scheme.
var urlUserinfo = regexp.MustCompile(`://([^\s/?#@"'<>\\]+)@`)

// mayHoldUserinfo reports whether b may hold a URL's credentials, plain
// or escaped: whether it has an @ in some form.
func mayHoldUserinfo(b []byte) bool {
	return bytes.IndexByte(b, '@') >= 0 || bytes.Contains(b, []byte("%40")) || bytes.Contains(b, []byte("u0040"))
}

// decodeEscapes undoes the escapes a secret may be hidden by: JSON's
// \u00XX for ASCII characters, \" and \/ (behind any number of backslashes, as
// in JSON inside JSON), and URL encoding's %XX. It returns the decoded text
// and, when it differs from b, the offset in b of each decoded byte (and of
// the end).
func decodeEscapes(b []byte) ([]byte, []int32) {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '%') < 0 {
		return b, nil
	}
	dec := make([]byte, 0, len(b))
	offs := make([]int32, 0, len(b)+1)
	for i := 0; i < len(b); {
		c, n := b[i], 1
		switch b[i] {
		case '\\':
			j := i
			for j < len(b) && b[j] == '\\' {
				j++
			}
			switch {
			case j+5 <= len(b) && b[j] == 'u' && b[j+1] == '0' && b[j+2] == '0' && isHexDigit(b[j+3]) && isHexDigit(b[j+4]) && unhex(b[j+3]) < 8:
				c, n = unhex(b[j+3])<<4|unhex(b[j+4]), j+5-i
			case j < len(b) && (b[j] == '/' || b[j] == '"'):
				c, n = b[j], j+1-i
			default:
				// Backslashes that escape nothing here: kept, in one step.
				for k := i; k < j; k++ {
					dec = append(dec, '\\')
					offs = append(offs, int32(k))
				}
				i = j
				continue
			}
		case '%':
			if i+2 < len(b) && isHexDigit(b[i+1]) && isHexDigit(b[i+2]) {
				c, n = unhex(b[i+1])<<4|unhex(b[i+2]), 3
			}
		}
		dec = append(dec, c)
		offs = append(offs, int32(i))
		i += n
	}
	offs = append(offs, int32(len(b)))
	return dec, offs
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// Writer returns a writer that masks the secrets in each write before
// passing it to w. Each write must hold whole secrets, as the writes of
// lines, log records and protocol messages do.
func (r Redactor) Writer(w io.Writer) io.Writer { return redactWriter{w: w, r: r} }

type redactWriter struct {
	w io.Writer
	r Redactor
}

// Unwrap returns the writer written to, so that callers can tell whether
// it is a terminal.
func (rw redactWriter) Unwrap() io.Writer { return rw.w }

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
	if IsEventStream(resp) {
		return t.streamResponse(resp)
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
