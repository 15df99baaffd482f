// Identities: who calls. A request carries a bearer credential, an API key
// of the keys document or (when configured) a JWT; either stands for an
// identity whose claims fill the agents' injected parameters. The request
// body and the model never do: a value they send for an injected parameter
// is ignored. Credentials are compared by their hash and never written
// anywhere: not in logs, errors, traces or metrics.

package serve

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Identity is who made a request.
type Identity struct {
	// Subject names the identity: the key entry's identity, or the JWT's
	// "sub" claim.
	Subject string
	// Claims are the identity's claims (JSON values, numbers as
	// json.Number).
	Claims map[string]any
	// Method says how the request was authenticated: "key" or "jwt".
	Method string
}

// JWTConfig says how bearer JWTs are verified.
type JWTConfig struct {
	// Secret verifies tokens signed with HMAC (HS256, HS384, HS512).
	Secret []byte
	// PublicKey verifies tokens signed with RSA (RS*, PS*), ECDSA (ES*) or
	// Ed25519 (EdDSA); see [ParsePublicKey].
	PublicKey crypto.PublicKey
	// Issuer and Audience, when set, must be the token's "iss" and one of
	// its "aud".
	Issuer, Audience string
	// Leeway is the clock skew allowed on "exp", "nbf" and "iat".
	Leeway time.Duration
}

// AuthConfig configures authentication.
type AuthConfig struct {
	// Keys are the API keys accepted (see [ParseKeys]).
	Keys []KeyEntry
	// JWT, when not nil, accepts JWTs as bearer tokens too.
	JWT *JWTConfig
	// Claims maps an injected parameter to the claim that fills it; a
	// parameter not named here takes the claim of its own name.
	Claims map[string]string
}

// Enabled reports whether the configuration asks for credentials.
func (c AuthConfig) Enabled() bool { return len(c.Keys) > 0 || c.JWT != nil }

// authenticator checks requests' credentials.
type authenticator struct {
	keys   map[[sha256.Size]byte]*Identity
	jwt    *jwt.Parser
	keyFn  jwt.Keyfunc
	claims map[string]string
}

// newAuthenticator returns the authenticator of cfg, or nil when cfg asks
// for no credentials.
func newAuthenticator(cfg AuthConfig) (*authenticator, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	a := &authenticator{keys: map[[sha256.Size]byte]*Identity{}, claims: cfg.Claims}
	for _, e := range cfg.Keys {
		a.keys[e.Hash] = &Identity{Subject: e.Identity, Claims: e.Claims, Method: "key"}
	}
	if j := cfg.JWT; j != nil {
		var methods []string
		if len(j.Secret) > 0 {
			methods = append(methods, "HS256", "HS384", "HS512")
		}
		switch j.PublicKey.(type) {
		case nil:
		case *rsa.PublicKey:
			methods = append(methods, "RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
		case *ecdsa.PublicKey:
			methods = append(methods, "ES256", "ES384", "ES512")
		case ed25519.PublicKey:
			methods = append(methods, "EdDSA")
		default:
			return nil, fmt.Errorf("the JWT public key is a %T; want an RSA, ECDSA or Ed25519 key", j.PublicKey)
		}
		if len(methods) == 0 {
			return nil, errors.New("JWTs need a secret or a public key to be verified with")
		}
		opts := []jwt.ParserOption{jwt.WithValidMethods(methods), jwt.WithExpirationRequired(), jwt.WithJSONNumber(),
			jwt.WithLeeway(j.Leeway), jwt.WithIssuedAt()}
		if j.Issuer != "" {
			opts = append(opts, jwt.WithIssuer(j.Issuer))
		}
		if j.Audience != "" {
			opts = append(opts, jwt.WithAudience(j.Audience))
		}
		a.jwt = jwt.NewParser(opts...)
		a.keyFn = func(t *jwt.Token) (any, error) {
			if _, ok := t.Method.(*jwt.SigningMethodHMAC); ok {
				if len(j.Secret) == 0 {
					return nil, errors.New("no secret for HMAC tokens")
				}
				return j.Secret, nil
			}
			if j.PublicKey == nil {
				return nil, errors.New("no public key")
			}
			return j.PublicKey, nil
		}
	}
	return a, nil
}

// unauthorized returns the 401 error with its message.
func unauthorized(code, msg string) *apiError {
	return &apiError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: code, Kind: kindAuth, Message: msg,
		Header: http.Header{"Www-Authenticate": {`Bearer realm="gramc serve"`}}}
}

// authenticate returns the identity of the request's bearer credential,
// and for a refused one the 401 error and, for the log, why (never the
// credential).
func (a *authenticator) authenticate(r *http.Request) (*Identity, *apiError, string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, unauthorized("missing_api_key", "You didn't provide an API key. Send it in the Authorization header: \"Authorization: Bearer KEY\"."), "no credential"
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, unauthorized("invalid_authorization", "The Authorization header must be \"Bearer KEY\"."), "not a bearer credential"
	}
	if id, ok := a.keys[sha256.Sum256([]byte(token))]; ok {
		return id, nil, ""
	}
	if a.jwt != nil && strings.Count(token, ".") == 2 {
		id, why := a.verifyJWT(token)
		if id != nil {
			return id, nil, ""
		}
		return nil, unauthorized("invalid_token", "The bearer token was refused: "+why+"."), "JWT refused: " + why
	}
	return nil, unauthorized("invalid_api_key", "Incorrect API key provided."), "unknown key"
}

// verifyJWT verifies a token and returns its identity, or why it was
// refused (in the library's categories, never quoting the token).
func (a *authenticator) verifyJWT(token string) (*Identity, string) {
	claims := jwt.MapClaims{}
	_, err := a.jwt.ParseWithClaims(token, claims, a.keyFn)
	if err != nil {
		for _, c := range []struct {
			err error
			why string
		}{
			{jwt.ErrTokenExpired, "it has expired"},
			{jwt.ErrTokenRequiredClaimMissing, "it has no expiry (exp)"},
			{jwt.ErrTokenNotValidYet, "it is not valid yet"},
			{jwt.ErrTokenUsedBeforeIssued, "it was issued in the future"},
			{jwt.ErrTokenInvalidIssuer, "its issuer is not the one expected"},
			{jwt.ErrTokenInvalidAudience, "its audience is not the one expected"},
			{jwt.ErrTokenSignatureInvalid, "its signature does not verify"},
			{jwt.ErrTokenUnverifiable, "its signing method is not accepted"},
			{jwt.ErrTokenMalformed, "it is malformed"},
		} {
			if errors.Is(err, c.err) {
				return nil, c.why
			}
		}
		return nil, "it does not verify"
	}
	id := &Identity{Claims: map[string]any(claims), Method: "jwt"}
	if sub, has := claims["sub"]; has {
		s, ok := sub.(string)
		if !ok {
			return nil, fmt.Sprintf("its subject (sub) is %s, not a string as RFC 7519 requires; the token's issuer must write it in quotes, e.g. \"sub\": \"12345\"", subjectKind(sub))
		}
		if strings.TrimSpace(s) == "" {
			// An empty subject would stand for no one, yet fill the
			// parameters taken from sub with "".
			return nil, "its subject (sub) is empty; the token's issuer must name the subject, or leave sub out"
		}
		id.Subject = s
	}
	return id, ""
}

// subjectKind names the kind of a JSON value that is not a string: a
// number, null, ...
func subjectKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "not a string"
}

// identityKey is the context key of the request's identity.
type identityKey struct{}

// withIdentity returns ctx carrying id.
func withIdentity(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity of the request whose context is ctx,
// or nil when the server asks for no credentials.
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// ParsePublicKey reads a PEM public key for verifying JWTs: RSA, ECDSA or
// Ed25519, as a PUBLIC KEY (PKIX) or RSA PUBLIC KEY block.
func ParsePublicKey(pemData []byte) (crypto.PublicKey, error) {
	if k, err := jwt.ParseRSAPublicKeyFromPEM(pemData); err == nil {
		return k, nil
	}
	if k, err := jwt.ParseECPublicKeyFromPEM(pemData); err == nil {
		return k, nil
	}
	if k, err := jwt.ParseEdPublicKeyFromPEM(pemData); err == nil {
		return k, nil
	}
	return nil, errors.New("not a PEM public key (RSA, ECDSA or Ed25519, in a PUBLIC KEY block)")
}

// claimText returns a claim as text for a String parameter: a number or
// a boolean as its JSON text, as --inject reads user_id=42 for a String
// parameter.
func claimText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	}
	return "", false
}
