// The secrets a process holds, found in its environment, its headers and
// its URLs, for a Redactor to mask in everything it writes (standard
// output and error, logs, traces, recordings) and in what model servers
// answer.

package replay

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// secretWords mark the names (of environment variables, of URL query
// parameters) that hold credentials: a name holds one when one of its words
// (separated by _ or -) is one of these.
var secretWords = []string{"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS", "AUTH", "PAT", "SIG", "SIGNATURE"}

// secretName reports whether a name looks like a credential's.
func secretName(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if slices.Contains(secretWords, w) {
			return true
		}
	}
	return false
}

// ProcessSecrets returns every secret a process holds: OPENAI_API_KEY and
// the other environment variables named like credentials, the --header
// values given (and the token of a "Bearer TOKEN"), and the passwords and
// credential-like query parameters of the URLs given.
func ProcessSecrets(environ []string, headers http.Header, urls ...string) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); len(s) >= 8 {
			out = append(out, s)
		}
	}
	for _, kv := range environ {
		if name, value, _ := strings.Cut(kv, "="); secretName(name) {
			add(value)
		}
	}
	for _, vs := range headers {
		for _, v := range vs {
			add(v)
			if scheme, token, ok := strings.Cut(v, " "); ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "Basic")) {
				add(token)
			}
		}
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for k, vs := range u.Query() {
			if secretName(k) || strings.EqualFold(k, "apikey") || strings.EqualFold(k, "access_token") {
				for _, v := range vs {
					add(v)
				}
			}
		}
	}
	return out
}
