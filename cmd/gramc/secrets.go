package main

// The secrets of a gramc process and their masking: every key the process
// holds is masked in everything it writes (standard output and error, logs,
// traces, recordings) and in what model servers answer.

import (
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/gramlang/gram/runtime/replay"
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

// processSecrets returns every secret the process holds: OPENAI_API_KEY and
// the other environment variables named like credentials, the --header
// values (and the token of a "Bearer TOKEN"), and the passwords and
// credential-like query parameters of the URLs given.
func processSecrets(environ []string, headers http.Header, urls ...string) []string {
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

// protect masks the secrets of the run in everything the command writes:
// call it before anything is printed. It returns the secrets.
func (o *runOptions) protect(e *env) []string {
	urls := []string{o.baseURL, os.Getenv("OPENAI_BASE_URL")}
	for _, s := range o.mcp {
		urls = append(urls, s.URL)
	}
	secrets := processSecrets(os.Environ(), o.headers, urls...)
	for _, s := range o.bound.Secrets {
		if s = strings.TrimSpace(s); len(s) >= 8 {
			secrets = append(secrets, s)
		}
	}
	r := replay.NewRedactor(secrets...)
	e.stdout = r.Writer(e.stdout)
	e.stderr = r.Writer(e.stderr)
	return secrets
}
