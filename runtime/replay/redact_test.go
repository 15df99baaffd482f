package replay

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRedactorForms: each secret is masked in every form it may be echoed
// in, inside longer text, and ordinary text is left alone.
func TestRedactorForms(t *testing.T) {
	const key = "sk-canary-7d1f0c9e5b3a4821"
	const header = "hdr/Tok+en=42abc"
	const bearer = "mcp-bearer-93hf82"
	r := NewRedactor(key, header, bearer)
	jsonEsc := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			if c == '-' || c == '/' || c == '+' || c == '=' {
				b.WriteString(`\u00` + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
			} else {
				b.WriteRune(c)
			}
		}
		return b.String()
	}
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	for _, secret := range []string{key, header, bearer} {
		forms := map[string]string{
			"plain":            secret,
			"json \\u00XX":     jsonEsc(secret),
			"json lower hex":   regexp.MustCompile(`\\u00[0-9A-F]{2}`).ReplaceAllStringFunc(jsonEsc(secret), strings.ToLower),
			"json \\/":         strings.ReplaceAll(secret, "/", `\/`),
			"json in json":     strings.ReplaceAll(jsonEsc(secret), `\u`, `\\u`),
			"json.Marshal":     quoted(secret),
			"url query":        url.QueryEscape(secret),
			"url path":         url.PathEscape(secret),
			"url all":          allPercent(secret),
			"base64":           base64.StdEncoding.EncodeToString([]byte(secret)),
			"base64 url":       base64.URLEncoding.EncodeToString([]byte(secret)),
			"base64 raw":       base64.RawStdEncoding.EncodeToString([]byte(secret)),
			"basic credential": base64.StdEncoding.EncodeToString([]byte("user:" + secret)),
			"basic, offset 1":  base64.StdEncoding.EncodeToString([]byte("u:" + secret + "!")),
			"basic, offset 2":  base64.StdEncoding.EncodeToString([]byte("us:" + secret + "!!")),
			"base64 of json":   base64.StdEncoding.EncodeToString([]byte(`{"k":"` + secret + `"}`)),
		}
		for name, form := range forms {
			text := `before "` + form + `" after`
			got := r.String(text)
			if strings.Contains(got, form) || !strings.HasPrefix(got, `before "`) || !strings.HasSuffix(got, `" after`) {
				t.Errorf("%s in %s form %q: redacted to %q", secret, name, form, got)
			}
			if string(r.Bytes([]byte(text))) != got {
				t.Errorf("%s in %s form: Bytes and String differ", secret, name)
			}
		}
	}
	for _, s := range []string{"hello world", `{"a":"b\u002dc"}`, "aGVsbG8gd29ybGQ=", "ab%2Dcd"} {
		if got := r.String(s); got != s {
			t.Errorf("ordinary text %q changed to %q", s, got)
		}
	}
	// JSON stays JSON.
	in := `{"content":"key ` + jsonEsc(key) + ` and ` + base64.StdEncoding.EncodeToString([]byte(key)) + `"}`
	if !json.Valid([]byte(r.String(in))) {
		t.Errorf("not JSON after masking: %s", r.String(in))
	}
	// A key the process does not hold, JSON-escaped.
	if got := NewRedactor().String(`sk\u002dproj-abcdef123456`); strings.Contains(got, "abcdef") {
		t.Errorf("key-like token kept: %q", got)
	}
}

func allPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[s[i]>>4])+string("0123456789abcdef"[s[i]&15])))
	}
	return b.String()
}

// BenchmarkRedact masks three secrets in a megabyte of JSON-like text
// without any (the common case: traces and outputs), with escapes and with
// secrets, to show the time is linear in the text: compare MB/s across the
// sizes.
func BenchmarkRedact(b *testing.B) {
	r := NewRedactor("sk-canary-5f4e3d2c1b0a9988", "hdr-canary-77aa66bb55cc", "another-secret-value-123456")
	line := `{"role":"user","content":"ordinary text, a path \/usr\/bin and 50%25 off, key sk\u002dcanary\u002d5f4e3d2c1b0a9988"},`
	for _, n := range []int{1 << 16, 1 << 18, 1 << 20, 1 << 22} {
		text := []byte(strings.Repeat(line, n/len(line)+1)[:n])
		b.Run(strconv.Itoa(n>>10)+"KiB", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for range b.N {
				r.Bytes(text)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	r := NewRedactor("secret-value-1", "ab")
	got := r.String("key=secret-value-1 token sk-proj-ABCdef123456 ab")
	if strings.Contains(got, "secret-value-1") || strings.Contains(got, "ABCdef") || !strings.HasSuffix(got, " ab") {
		t.Errorf("redacted %q", got)
	}
	h := redactHeaders(http.Header{"Authorization": {"Bearer x"}, "X-Api-Key": {"y"}, "Content-Type": {"application/json"}}, r)
	if h.Get("Authorization") != Redacted || h.Get("X-Api-Key") != Redacted || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
}

// TestRedactorQuoteInSecret: a secret holding a double quote is masked
// whole where JSON escapes the quote (once, or twice as in JSON inside
// JSON), not only up to it.
func TestRedactorQuoteInSecret(t *testing.T) {
	const key = `sk-canary"XYZ123secretpart`
	r := NewRedactor(key)
	once, _ := json.Marshal(key)
	twice, _ := json.Marshal(`{"key":` + string(once) + `}`)
	for name, text := range map[string]string{
		"plain": "key " + key + " end", "json": `{"key":` + string(once) + `}`, "json in json": string(twice),
	} {
		if got := r.String(text); strings.Contains(got, "XYZ123") || strings.Contains(got, "secretpart") || !strings.Contains(got, Redacted) {
			t.Errorf("%s: %q redacted to %q", name, text, got)
		}
	}
}

// TestRedactorURLCredentials: the user and password of every URL are
// masked, also JSON- or URL-encoded; URLs without them are left alone.
func TestRedactorURLCredentials(t *testing.T) {
	var r Redactor
	for text, want := range map[string]string{
		"DATABASE_URL=postgres://app:PASSWORD@host/db":       "DATABASE_URL=postgres://" + Redacted + "@host/db",
		`{"url":"redis:\/\/:s3cret@cache:6379"}`:             `{"url":"redis:\/\/` + Redacted + `@cache:6379"}`,
		"next=https%3A%2F%2Fuser%3Apw%40example.com%2F":      "next=https%3A%2F%2F" + Redacted + "%40example.com%2F",
		"see https://example.com/a@b and mail me at a@b.org": "see https://example.com/a@b and mail me at a@b.org",
	} {
		if got := r.String(text); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}
