// Setting a server up from what the command line gives (gramc serve): the
// credentials' configuration from files and environment variables, the
// claims that fill injected parameters, and the address to listen on.
// Errors name the flag whose value is wrong.

package serve

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/schema"
)

// AuthSources say where the credentials' configuration comes from: keys
// documents in a file (--keys) and in an environment variable
// (--keys-env), and the JWTs' HMAC secret in an environment variable
// (--jwt-secret-env) or public key in a file (--jwt-key), with the
// issuer and audience they must name.
type AuthSources struct {
	KeysFile, KeysEnv        string
	JWTSecretEnv, JWTKeyFile string
	JWTIssuer, JWTAudience   string
	// Read reads a file (a keys document, a JWT key).
	Read func(path string) ([]byte, error)
}

// KeysDocument is a keys document read: its text, its entries and its
// diagnostics (see [ParseKeys]).
type KeysDocument struct {
	File    *diag.File
	Entries []KeyEntry
	Diags   diag.List
}

// KeysError is a keys document that cannot be served with: it has errors,
// or no keys.
type KeysError struct {
	Path string
	// NoKeys says the document has no keys (else it has errors).
	NoKeys bool
}

// Error implements error.
func (e *KeysError) Error() string {
	if e.NoKeys {
		return e.Path + " has no keys; add one, or serve on loopback without --keys"
	}
	return e.Path + " has errors; fix them to serve with its keys"
}

// LoadAuth reads the credentials' configuration src gives. It returns the
// configuration and the keys documents read, the last of them the one a
// [*KeysError] is about; another error says which value given cannot be
// used.
func LoadAuth(src AuthSources) (AuthConfig, []KeysDocument, error) {
	var cfg AuthConfig
	var docs []KeysDocument
	read := func(f *diag.File) error {
		entries, diags := ParseKeys(f)
		docs = append(docs, KeysDocument{File: f, Entries: entries, Diags: diags})
		if diags.HasErrors() || len(entries) == 0 {
			return &KeysError{Path: f.Path, NoKeys: !diags.HasErrors()}
		}
		cfg.Keys = append(cfg.Keys, entries...)
		return nil
	}
	if src.KeysFile != "" {
		data, err := src.Read(src.KeysFile)
		if err != nil {
			return cfg, docs, fmt.Errorf("--keys: %v", err)
		}
		if err := read(diag.NewFile(src.KeysFile, data)); err != nil {
			return cfg, docs, err
		}
	}
	if src.KeysEnv != "" {
		v := os.Getenv(src.KeysEnv)
		if strings.TrimSpace(v) == "" {
			return cfg, docs, fmt.Errorf("--keys-env %s: the variable is not set or empty; set it to a keys document (see gramc serve --help)", src.KeysEnv)
		}
		if err := read(diag.NewFile("$"+src.KeysEnv, []byte(v))); err != nil {
			return cfg, docs, err
		}
	}
	if src.JWTSecretEnv == "" && src.JWTKeyFile == "" {
		if src.JWTIssuer != "" || src.JWTAudience != "" {
			return cfg, docs, fmt.Errorf("--jwt-issuer and --jwt-audience need --jwt-secret-env VAR or --jwt-key FILE to verify the tokens with")
		}
		return cfg, docs, nil
	}
	j, err := src.jwt()
	cfg.JWT = j
	return cfg, docs, err
}

// jwt returns the configuration of the JWTs accepted.
func (src AuthSources) jwt() (*JWTConfig, error) {
	j := &JWTConfig{Issuer: src.JWTIssuer, Audience: src.JWTAudience, Leeway: 30 * time.Second}
	if src.JWTSecretEnv != "" {
		secret := os.Getenv(src.JWTSecretEnv)
		switch {
		case secret == "":
			return nil, fmt.Errorf("--jwt-secret-env %s: the variable is not set or empty; set it to the HMAC secret the tokens are signed with", src.JWTSecretEnv)
		case len(secret) < 32:
			return nil, fmt.Errorf("--jwt-secret-env %s: the secret has %d bytes; an HMAC secret needs at least 32", src.JWTSecretEnv, len(secret))
		}
		j.Secret = []byte(secret)
	}
	if src.JWTKeyFile != "" {
		data, err := src.Read(src.JWTKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--jwt-key: %v", err)
		}
		if j.PublicKey, err = ParsePublicKey(data); err != nil {
			return nil, fmt.Errorf("--jwt-key %s: %v", src.JWTKeyFile, err)
		}
	}
	return j, nil
}

// InjectedNames returns the names of the injected parameters of the
// agents' tools, each once.
func InjectedNames(agents []*schema.Agent) []string {
	var out []string
	for _, p := range injectedParams(agents) {
		out = append(out, p.param.Name)
	}
	return out
}

// ParseClaims reads PARAM=CLAIM values (--claim), which fill the injected
// parameter PARAM of the agents' tools from the identity's claim CLAIM
// ([AuthConfig].Claims); each PARAM must be one.
func ParseClaims(list []string, agents []*schema.Agent) (map[string]string, error) {
	names := InjectedNames(agents)
	out := map[string]string{}
	for _, kv := range list {
		param, claim, ok := strings.Cut(kv, "=")
		param, claim = strings.TrimSpace(param), strings.TrimSpace(claim)
		if !ok || param == "" || claim == "" {
			return nil, fmt.Errorf("--claim %q: write PARAM=CLAIM, e.g. --claim user_id=sub", kv)
		}
		if !slices.Contains(names, param) {
			msg := fmt.Sprintf("--claim %s: no tool of the agents has an injected parameter %q", kv, param)
			if c := suggest.Closest(param, names); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			} else if len(names) > 0 {
				msg += "; the injected parameters are: " + strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("%s", msg)
		}
		out[param] = claim
	}
	return out, nil
}

// CheckAddr checks the address to listen on (--addr): HOST:PORT, and a
// loopback host when no credentials are asked for (auth false).
func CheckAddr(addr string, auth bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: write HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	if auth {
		return nil
	}
	ip := net.ParseIP(host)
	if host == "localhost" || ip != nil && ip.IsLoopback() {
		return nil
	}
	where := host
	if host == "" {
		where = "every interface"
	}
	return fmt.Errorf("--addr %s: no keys are configured, so the server listens on loopback addresses only (%s is not one); require keys with --keys FILE, --keys-env VAR or a JWT flag, or listen on 127.0.0.1", addr, where)
}

// Complete completes the runs' configuration the command line gives: the
// store's URL read from the environment variable storeEnv (--store-env)
// when it is given, as --store then must not be; and, when runs are kept
// in a store, ExecutorID's default, the [DefaultExecutorID] of addr, so
// that a restart with the same flags finishes the runs the process before
// left.
func (r *RunsConfig) Complete(storeEnv, addr string) error {
	if storeEnv != "" {
		if r.Store != "" {
			return errors.New("give the run store with --store or with --store-env, not both")
		}
		r.Store = strings.TrimSpace(os.Getenv(storeEnv))
		if r.Store == "" {
			return fmt.Errorf("--store-env %s: the variable is not set or empty; set it to the run store's URL (PATH, sqlite:PATH or postgres://...)", storeEnv)
		}
	}
	if r.Store != "" && r.ExecutorID == "" {
		r.ExecutorID = DefaultExecutorID(addr)
	}
	return nil
}
