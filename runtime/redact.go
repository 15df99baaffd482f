// Redaction: API keys never leave the process in logs, errors, traces or
// recordings.

package runtime

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// keyLike matches tokens that look like API keys ("sk-...", "sk-proj-...",
// including the masked forms some APIs echo in error messages).
var keyLike = regexp.MustCompile(`\bsk-[A-Za-z0-9_*.\-]{6,}`)

// redactor masks known secrets and key-like tokens in text.
type redactor struct{ secrets []string }

// newRedactor returns a redactor for the given secrets; empty and very short
// ones are ignored.
func newRedactor(secrets ...string) redactor {
	var r redactor
	for _, s := range secrets {
		if len(s) >= 4 {
			r.secrets = append(r.secrets, s)
		}
	}
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// String returns s with every secret masked.
func (r redactor) String(s string) string {
	for _, k := range r.secrets {
		s = strings.ReplaceAll(s, k, Redacted)
	}
	return keyLike.ReplaceAllString(s, Redacted)
}

// Bytes returns b with every secret masked.
func (r redactor) Bytes(b []byte) []byte {
	s := string(b)
	t := r.String(s)
	if t == s {
		return b
	}
	return []byte(t)
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
func redactHeaders(h http.Header, r redactor) http.Header {
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
