package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/gramlang/gram/runtime/fakeopenai"
)

// TestAuthKeys: with keys, a request without one or with a wrong one is
// refused with 401 and never reaches the agent; the probes need none.
func TestAuthKeys(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{fakeopenai.Text("hi")}, withKeys)
	for _, c := range []struct{ name, header, code string }{
		{"no key", "", "missing_api_key"},
		{"wrong key", "Bearer sk-wrong", "invalid_api_key"},
		{"not bearer", "Basic YWxpY2U6cHc=", "invalid_authorization"},
	} {
		for _, path := range []string{"/v1/chat/completions", "/v1/models", "/v1/agents/hello/run", "/metrics", "/openapi.json"} {
			h.key = ""
			method := http.MethodGet
			if strings.HasSuffix(path, "completions") || strings.HasSuffix(path, "run") {
				method = http.MethodPost
			}
			var hdr []string
			if c.header != "" {
				hdr = []string{"Authorization", c.header}
			}
			resp, b := h.do(method, path, `{"model":"hello","messages":[{"role":"user","content":"hi"}]}`, hdr...)
			e := wantError(t, resp, b, http.StatusUnauthorized, c.code)
			if e.Error.Type != "authentication_error" || resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s: %s %q", c.name, path, b, resp.Header.Get("WWW-Authenticate"))
			}
		}
	}
	if n := len(h.model.Requests()); n != 0 {
		t.Errorf("%d unauthenticated requests reached the model", n)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if resp, b := h.do(http.MethodGet, path, ""); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
	}
	h.key = testKey
	if resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi")); resp.StatusCode != 200 {
		t.Errorf("with the key: %d %s", resp.StatusCode, b)
	}
	if !strings.Contains(h.logs.String(), "identity=alice") {
		t.Errorf("the log does not name the identity:\n%s", h.logs.String())
	}
}

// TestCanaryKey: a key, right or wrong, never shows in an answer, the log,
// the metrics or the traces.
func TestCanaryKey(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{callOrder(`{"orderId": 3}`), fakeopenai.Text("ok"), fakeopenai.Text("streamed")}, func(c *Config) {
		c.Auth.Keys = []KeyEntry{{Hash: hashOf(canaryKey), Identity: "canary-holder", Claims: map[string]any{"userId": "u-1"}}}
	})
	var seen strings.Builder
	h.key = canaryKey + "x" // wrong
	for _, path := range []string{"/v1/chat/completions", "/v1/agents/orders/run", "/v1/models"} {
		_, b := h.do(http.MethodPost, path, `{"model":"orders","messages":[{"role":"user","content":"hi"}]}`)
		seen.Write(b)
	}
	h.key = canaryKey // right
	_, b := h.post("/v1/agents/orders/run", map[string]any{"message_history": []any{map[string]any{"role": "user", "content": "order 3?"}}})
	seen.Write(b)
	_, b = h.post("/v1/chat/completions", chatBody("orders", true, "hi"))
	seen.Write(b)
	_, b = h.do(http.MethodPost, "/v1/chat/completions", `{"model": "orders", "messages": [`) // malformed
	seen.Write(b)
	seen.WriteString(h.metricsText())
	_, b = h.do(http.MethodGet, "/openapi.json", "")
	seen.Write(b)
	spans, err := json.Marshal(h.spans.GetSpans().Snapshots())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.spans.GetSpans()) < 5 {
		t.Fatalf("only %d spans", len(h.spans.GetSpans()))
	}
	for what, text := range map[string]string{"answers and metrics": seen.String(), "log": h.logs.String(), "traces": string(spans)} {
		if strings.Contains(text, "sk-canary") || strings.Contains(text, canaryKey[10:]) {
			t.Errorf("the key is in the %s", what)
		}
	}
	if !strings.Contains(h.logs.String(), `reason="unknown key"`) {
		t.Errorf("the refusal is not logged:\n%s", h.logs.String())
	}
}

// TestAuthJWT: JWTs signed with the configured key are accepted, their
// claims filling the injected parameters (through --claim's mapping);
// expired, unsigned, badly signed and foreign-audience tokens are refused.
func TestAuthJWT(t *testing.T) {
	secret := []byte("a-secret-of-at-least-32-bytes-for-hs256!")
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(pub)
	pubKey, err := ParsePublicKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, func(c *Config) {
		c.Auth.JWT = &JWTConfig{Secret: secret, PublicKey: pubKey, Issuer: "https://issuer.example", Audience: "gram"}
		c.Auth.Claims = map[string]string{"userId": "sub"}
	})
	sign := func(m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(m, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := func() jwt.MapClaims {
		return jwt.MapClaims{"sub": "u-bob", "iss": "https://issuer.example", "aud": "gram", "exp": time.Now().Add(time.Hour).Unix()}
	}
	for i, tok := range []string{sign(jwt.SigningMethodHS256, secret, good()), sign(jwt.SigningMethodEdDSA, priv, good())} {
		h.key = tok
		h.model.Push(callOrder(`{"orderId": 4}`), fakeopenai.Text("ok"))
		if resp, b := h.post("/v1/chat/completions", chatBody("orders", false, "order 4?")); resp.StatusCode != 200 {
			t.Fatalf("token %d: %d %s", i, resp.StatusCode, b)
		}
		if args := <-h.orders; args["userId"] != "u-bob" {
			t.Errorf("token %d: userId %v, want the sub claim", i, args["userId"])
		}
	}
	expired := good()
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	noExp := good()
	delete(noExp, "exp")
	otherAud := good()
	otherAud["aud"] = "someone-else"
	numericSub, nullSub, emptySub, blankSub := good(), good(), good(), good()
	numericSub["sub"], nullSub["sub"], emptySub["sub"], blankSub["sub"] = 12345, nil, "", " "
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	for _, c := range []struct{ name, token, says string }{
		{"expired", sign(jwt.SigningMethodHS256, secret, expired), "expired"},
		{"no exp", sign(jwt.SigningMethodHS256, secret, noExp), "no expiry"},
		{"audience", sign(jwt.SigningMethodHS256, secret, otherAud), "audience"},
		{"signature", sign(jwt.SigningMethodEdDSA, otherPriv, good()), "signature"},
		{"wrong secret", sign(jwt.SigningMethodHS256, []byte("another-secret-of-32-bytes-or-more!!"), good()), "signature"},
		{"none", sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good()), "signature"},
		// RFC 7519: sub is a string; a number is not taken for one.
		{"numeric sub", sign(jwt.SigningMethodHS256, secret, numericSub), "its subject (sub) is a number, not a string as RFC 7519 requires"},
		{"null sub", sign(jwt.SigningMethodHS256, secret, nullSub), "its subject (sub) is null, not a string as RFC 7519 requires"},
		{"empty sub", sign(jwt.SigningMethodHS256, secret, emptySub), "its subject (sub) is empty"},
		{"blank sub", sign(jwt.SigningMethodHS256, secret, blankSub), "its subject (sub) is empty"},
	} {
		h.key = c.token
		resp, b := h.post("/v1/chat/completions", chatBody("orders", false, "hi"))
		e := wantError(t, resp, b, http.StatusUnauthorized, "invalid_token")
		if !strings.Contains(e.Error.Message, c.says) || strings.Contains(string(b), c.token) {
			t.Errorf("%s: %s", c.name, e.Error.Message)
		}
	}
	select {
	case args := <-h.orders:
		t.Errorf("a refused token ran the tool with %v", args)
	default:
	}
}

// TestIdentityWithoutClaim: an identity without the claim an injected
// parameter needs is refused with 403, naming the parameter.
func TestIdentityWithoutClaim(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) {
		c.Auth.Keys = []KeyEntry{{Hash: hashOf(testKey), Identity: "bot", Claims: map[string]any{"sub": "bot"}}}
	})
	h.key = testKey
	resp, b := h.post("/v1/chat/completions", chatBody("orders", false, "order 1?"))
	e := wantError(t, resp, b, http.StatusForbidden, "missing_identity_claims")
	if !strings.Contains(e.Error.Message, "userId (String, for the tool lookupOrder): no value") {
		t.Errorf("%s", e.Error.Message)
	}
	// The agent without injected parameters is fine.
	h.model.Push(fakeopenai.Text("hi"))
	if resp, b := h.post("/v1/chat/completions", chatBody("hello", false, "hi")); resp.StatusCode != 200 {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
}

// TestStaticInjected: without credentials, the static values fill the
// injected parameters; an identity's claim overrides them.
func TestStaticInjected(t *testing.T) {
	h := newHarness(t, []fakeopenai.Step{callOrder(`{"orderId": 5}`), fakeopenai.Text("ok")}, func(c *Config) {
		c.Injected = map[string]any{"userId": "u-static"}
	})
	if resp, b := h.post("/v1/chat/completions", chatBody("orders", false, "order 5?")); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if args := <-h.orders; args["userId"] != "u-static" {
		t.Errorf("userId %v", args["userId"])
	}
	h2 := newHarness(t, []fakeopenai.Step{callOrder(`{"orderId": 5}`), fakeopenai.Text("ok")}, withKeys, func(c *Config) {
		c.Injected = map[string]any{"userId": "u-static"}
	})
	if resp, b := h2.post("/v1/chat/completions", chatBody("orders", false, "order 5?")); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if args := <-h2.orders; args["userId"] != "u-alice" {
		t.Errorf("userId %v", args["userId"])
	}
}
