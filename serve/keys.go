// The keys document: the API keys a server accepts, each as the SHA-256
// hash of the key, never the key itself, with the identity it stands for
// and that identity's claims. It is read from a file (--keys) or from an
// environment variable (--keys-env), and checked with diagnostics that name
// the entry and say how to fix it:
//
//	{"keys": [
//	  {"sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
//	   "identity": "alice", "claims": {"user_id": "550e8400-e29b-41d4-a716-446655440000"}}
//	]}

package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/schema"
)

// Diagnostic codes of the keys document.
const (
	// CodeInvalidKeys: the document is not JSON, or not of the keys
	// document's shape.
	CodeInvalidKeys = "invalid-keys-file"
	// CodeInvalidKeyHash: an entry's "sha256" is not 64 hexadecimal digits.
	CodeInvalidKeyHash = "invalid-key-hash"
	// CodePlaintextKey: an entry holds a key rather than its hash.
	CodePlaintextKey = "plaintext-key"
	// CodeMissingIdentity: an entry has no "identity", or a "sub" claim
	// that is not a non-empty string.
	CodeMissingIdentity = "missing-identity"
	// CodeDuplicateKeyHash: two entries have the same hash.
	CodeDuplicateKeyHash = "duplicate-key-hash"
	// CodeMissingClaim: an identity has no claim for an injected parameter
	// that no --inject value gives either.
	CodeMissingClaim = "missing-claim"
	// CodeInvalidClaim: an identity's claim is not a valid value of the
	// injected parameter it fills (its type, format, bounds).
	CodeInvalidClaim = "invalid-claim"
	// CodeUnknownProperty: an entry has a property the document does not
	// define (a warning, with a did-you-mean).
	CodeUnknownProperty = "unknown-property"
)

// KeyEntry is one API key of a keys document.
type KeyEntry struct {
	// Hash is the SHA-256 of the key.
	Hash [sha256.Size]byte
	// Identity names who holds the key; it is the "sub" claim unless the
	// claims give one.
	Identity string
	// Claims are the identity's claims, JSON values with numbers as
	// json.Number; they fill the agents' injected parameters.
	Claims map[string]any
	// Span is the entry's place in the document.
	Span diag.Span

	claimSpans map[string]diag.Span // the claims' values' places
}

// HashKey returns the hexadecimal SHA-256 of a key, as a keys document
// writes it (what `printf %s KEY | sha256sum` prints).
func HashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// entryFields are the properties of an entry.
var entryFields = []string{"sha256", "identity", "claims"}

// ParseKeys reads a keys document. It returns the entries it could read
// and a diagnostic for each problem. No diagnostic quotes a key: a key
// written in plain text by mistake is overwritten with asterisks in f's
// text, so that no excerpt of the file shows it either.
func ParseKeys(f *diag.File) ([]KeyEntry, diag.List) {
	kr := &keysReader{text: f.Bytes(), dec: json.NewDecoder(bytes.NewReader(f.Bytes()))}
	kr.dec.UseNumber()
	if kr.document() {
		checkDuplicates(kr.entries, &kr.diags)
	}
	return kr.entries, kr.diags
}

// keysReader reads a keys document, gathering its entries and the
// diagnostics of its problems.
type keysReader struct {
	text    []byte
	dec     *json.Decoder
	entries []KeyEntry
	diags   diag.List
}

// shape reports a document that is not of the keys document's shape.
func (kr *keysReader) shape(span diag.Span, format string, a ...any) {
	d := diag.Errorf(CodeInvalidKeys, span, format, a...)
	d.Detail = `write {"keys": [{"sha256": "<hex SHA-256 of the key>", "identity": "<name>", "claims": {...}}, ...]}`
	kr.diags.Add(d)
}

// syntax reports a document that is not valid JSON, at the place of err.
func (kr *keysReader) syntax(err error) {
	text := kr.text
	off := int(kr.dec.InputOffset())
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		off = len(text)
	}
	off = max(min(off, len(text)-1), 0)
	d := diag.Errorf(CodeInvalidKeys, diag.Span{Start: off, End: min(off+1, len(text))}, "the keys document is not valid JSON: %s", jsonReason(err))
	kr.diags.Add(d)
}

// document reads the document's object, and reports whether it read it
// to its end.
func (kr *keysReader) document() bool {
	whole := diag.Span{Start: 0, End: len(kr.text)}
	tok, err := kr.dec.Token()
	if err != nil {
		kr.syntax(err)
		return false
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		kr.shape(whole, "the keys document must be a JSON object with a \"keys\" list")
		return false
	}
	sawKeys := false
	for kr.dec.More() {
		start := skipSpace(kr.text, int(kr.dec.InputOffset()))
		tok, err := kr.dec.Token()
		if err != nil {
			kr.syntax(err)
			return false
		}
		name, _ := tok.(string)
		if name != "keys" {
			var skip json.RawMessage
			if err := kr.dec.Decode(&skip); err != nil {
				kr.syntax(err)
				return false
			}
			d := diag.Warningf(CodeUnknownProperty, diag.Span{Start: start, End: start + len(name) + 2}, "unknown property %q of the keys document (it has only \"keys\")", name)
			kr.diags.Add(d)
			continue
		}
		sawKeys = true
		if !kr.list() {
			return false
		}
	}
	if _, err := kr.dec.Token(); err != nil {
		kr.syntax(err)
		return false
	}
	if !sawKeys {
		kr.shape(whole, "the keys document has no \"keys\" list")
	}
	return true
}

// list reads the "keys" list, and reports whether it read it to its end.
func (kr *keysReader) list() bool {
	listStart := skipSpace(kr.text, int(kr.dec.InputOffset()))
	tok, err := kr.dec.Token()
	if err != nil {
		kr.syntax(err)
		return false
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		kr.shape(diag.Span{Start: listStart, End: listStart + 1}, "\"keys\" must be a list of entries")
		return false
	}
	for kr.dec.More() {
		at := skipSpace(kr.text, int(kr.dec.InputOffset()))
		var raw json.RawMessage
		if err := kr.dec.Decode(&raw); err != nil {
			kr.syntax(err)
			return false
		}
		span := diag.Span{Start: at, End: int(kr.dec.InputOffset())}
		if e, ok := parseEntry(kr.text, raw, span, &kr.diags); ok {
			kr.entries = append(kr.entries, e)
		}
	}
	if _, err := kr.dec.Token(); err != nil {
		kr.syntax(err)
		return false
	}
	return true
}

// checkDuplicates reports the entries whose hash an earlier entry has.
func checkDuplicates(entries []KeyEntry, diags *diag.List) {
	seen := map[[sha256.Size]byte]int{}
	for i, e := range entries {
		if j, ok := seen[e.Hash]; ok {
			d := diag.Errorf(CodeDuplicateKeyHash, e.Span, "this entry (identity %q) has the same key hash as the entry of identity %q", e.Identity, entries[j].Identity)
			d.Detail = "a key stands for one identity: remove one of the entries, or give one of them another key"
			d.Related = []diag.Related{{Span: entries[j].Span, Message: "the first entry with this hash"}}
			diags.Add(d)
			continue
		}
		seen[e.Hash] = i
	}
}

// parseEntry reads one entry of the "keys" list, at span in text.
func parseEntry(text []byte, raw json.RawMessage, span diag.Span, diags *diag.List) (KeyEntry, bool) {
	er := &entryReader{e: KeyEntry{Span: span}, values: valueSpans(raw, span.Start), diags: diags}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		d := diag.Errorf(CodeInvalidKeys, span, "an entry of \"keys\" must be an object")
		d.Detail = `write {"sha256": "<hex SHA-256 of the key>", "identity": "<name>", "claims": {...}}`
		diags.Add(d)
		return er.e, false
	}
	ok := er.properties(text, obj)
	ok = er.hash(obj) && ok
	ok = er.identity(obj) && ok
	ok = er.claims(obj) && ok
	return er.e, ok
}

// entryReader reads the properties of an entry of the "keys" list.
type entryReader struct {
	e      KeyEntry
	values map[string]diag.Span // the properties' values' places
	diags  *diag.List
}

// at returns the place of the value of the entry's property k, or the
// entry's when it has none.
func (er *entryReader) at(k string) diag.Span {
	if v, ok := er.values[k]; ok {
		return v
	}
	return er.e.Span
}

// properties reports the properties the entry should not have: a key in
// plain text, which it overwrites with asterisks in text, and unknown
// ones. It returns false when the entry holds a key.
func (er *entryReader) properties(text []byte, obj map[string]json.RawMessage) bool {
	ok := true
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		switch {
		case slices.Contains(entryFields, k):
		case slices.Contains([]string{"key", "apiKey", "api_key", "token", "secret"}, k):
			if v, ok := er.values[k]; ok && v.Len() >= 2 && text[v.Start] == '"' {
				for i := v.Start + 1; i < v.End-1; i++ {
					text[i] = '*'
				}
			}
			d := diag.Errorf(CodePlaintextKey, er.at(k), "this entry holds a key in %q: a keys document holds the keys' SHA-256 hashes, never the keys", k)
			d.Detail = `replace it by "sha256": the hexadecimal SHA-256 of the key (printf %s "$KEY" | sha256sum), and keep the key itself out of files`
			er.diags.Add(d)
			ok = false
		default:
			msg := fmt.Sprintf("unknown property %q of a key entry (it has sha256, identity and claims)", k)
			if s := suggest.Closest(k, entryFields); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			er.diags.Add(diag.Warningf(CodeUnknownProperty, er.at(k), "%s", msg))
		}
	}
	return ok
}

// hash reads the entry's "sha256", and reports whether it is a valid hash.
func (er *entryReader) hash(obj map[string]json.RawMessage) bool {
	var hash string
	v, has := obj["sha256"]
	if !has {
		if _, plain := obj["key"]; !plain {
			d := diag.Errorf(CodeInvalidKeyHash, er.e.Span, "this entry has no \"sha256\"")
			d.Detail = `add "sha256": the hexadecimal SHA-256 of the key (printf %s "$KEY" | sha256sum)`
			er.diags.Add(d)
		}
		return false
	}
	if json.Unmarshal(v, &hash) != nil || len(hash) != 2*sha256.Size || !isHex(hash) {
		d := diag.Errorf(CodeInvalidKeyHash, er.at("sha256"), "\"sha256\" must be 64 hexadecimal digits, the SHA-256 of the key")
		d.Detail = `compute it with printf %s "$KEY" | sha256sum`
		er.diags.Add(d)
		return false
	}
	b, _ := hex.DecodeString(hash)
	copy(er.e.Hash[:], b)
	return true
}

// identity reads the entry's "identity", and reports whether it has one.
func (er *entryReader) identity(obj map[string]json.RawMessage) bool {
	if v, has := obj["identity"]; !has || json.Unmarshal(v, &er.e.Identity) != nil || strings.TrimSpace(er.e.Identity) == "" {
		d := diag.Errorf(CodeMissingIdentity, er.at("identity"), "this entry has no \"identity\": a non-empty name of who holds the key")
		d.Detail = `add "identity": "<name>"; it shows in logs and traces instead of the key`
		er.diags.Add(d)
		return false
	}
	return true
}

// claims reads the entry's "claims", whose "sub" is the identity unless
// they give one, and reports whether they are valid.
func (er *entryReader) claims(obj map[string]json.RawMessage) bool {
	ok := true
	e := &er.e
	e.Claims = map[string]any{}
	if v, has := obj["claims"]; has {
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		var claims map[string]any
		if err := dec.Decode(&claims); err != nil || claims == nil {
			d := diag.Errorf(CodeInvalidKeys, er.at("claims"), "\"claims\" must be an object of claims, e.g. {\"user_id\": \"550e8400-e29b-41d4-a716-446655440000\"}")
			er.diags.Add(d)
			ok = false
		}
		for k, c := range claims {
			e.Claims[k] = c
		}
		e.claimSpans = valueSpans(v, er.at("claims").Start)
	}
	sub, has := e.Claims["sub"]
	if !has {
		if e.Identity != "" {
			e.Claims["sub"] = e.Identity
		}
		return ok
	}
	subSpan, found := e.claimSpans["sub"]
	if !found {
		subSpan = er.at("claims")
	}
	if s, isText := sub.(string); !isText || strings.TrimSpace(s) == "" {
		d := diag.Errorf(CodeMissingIdentity, subSpan, "the claim \"sub\" names the identity: it must be a non-empty string")
		d.Detail = `remove it (the identity is the "sub" claim then), or write the subject in quotes, e.g. "sub": "alice"`
		er.diags.Add(d)
		ok = false
	}
	return ok
}

// CheckClaims reports, for each entry, the injected parameters of the
// agents that neither the entry's claims (by claims, which maps a
// parameter to the claim that fills it; by default the claim of the
// parameter's name) nor the static values give, and the claims that are
// not valid values of the parameter they fill (its type, format, bounds),
// as a request of the entry's key would find them.
func CheckClaims(entries []KeyEntry, agents []*schema.Agent, claims map[string]string, static map[string]any) diag.List {
	var diags diag.List
	params := injectedParams(agents)
	for _, e := range entries {
		for _, p := range params {
			claim := claimName(claims, p.param.Name)
			if v, ok := e.Claims[claim]; ok {
				if d, bad := checkClaim(e, p, claim, v); bad {
					diags.Add(d)
				}
				continue
			}
			if _, ok := static[p.param.Name]; ok || p.param.Optional {
				continue
			}
			d := diag.Errorf(CodeMissingClaim, e.Span, "the identity %q has no claim %q, which the injected parameter %s of the tool %s needs",
				e.Identity, claim, p.param.Name, p.tool)
			d.Detail = fmt.Sprintf(`add "%s" to its "claims", map another claim with --claim %s=CLAIM, or give every request the same value with --inject %s=VALUE`,
				claim, p.param.Name, p.param.Name)
			diags.Add(d)
		}
	}
	return diags
}

// checkClaim returns the diagnostic of the claim of e that fills the
// injected parameter p with v, and whether v is not a valid value of p.
func checkClaim(e KeyEntry, p injectedParam, claim string, v any) (diag.Diagnostic, bool) {
	v = claimValue(p.param, v)
	only := &schema.Tool{Name: p.tool, Params: []*schema.Param{p.param}}
	err := schema.InjectArgs(only, map[string]any{}, map[string]any{p.param.Name: v})
	if err == nil {
		return diag.Diagnostic{}, false
	}
	why := err.Error()
	var ae *schema.ArgsError
	if errors.As(err, &ae) && len(ae.Problems) > 0 {
		var parts []string
		for _, pr := range ae.Problems {
			parts = append(parts, pr.Message)
		}
		why = strings.Join(parts, "; ")
	}
	span, ok := e.claimSpans[claim]
	if !ok {
		span = e.Span
	}
	d := diag.Errorf(CodeInvalidClaim, span, "the claim %q of the identity %q does not fit the injected parameter %s (%s) of the tool %s: it %s",
		claim, e.Identity, p.param.Name, paramShape(p.param), p.tool, why)
	d.Detail = fmt.Sprintf(`give "%s" a value the parameter takes, or map another claim with --claim %s=CLAIM; every request of this key would be refused with 403`,
		claim, p.param.Name)
	return d, true
}

// paramShape describes what a parameter takes: its type, and its format
// when it has one ("String, format uuid").
func paramShape(p *schema.Param) string {
	s := p.Type.String()
	for _, m := range p.Constraints {
		if f, ok := m.Value.(string); ok && m.Key == "format" {
			s += ", format " + f
		}
	}
	return s
}

// claimName returns the claim that fills the injected parameter param.
func claimName(claims map[string]string, param string) string {
	if c, ok := claims[param]; ok {
		return c
	}
	return param
}

// valueSpans returns the spans of the values of an object's properties,
// the object being raw at offset base of its text.
func valueSpans(raw json.RawMessage, base int) map[string]diag.Span {
	out := map[string]diag.Span{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		start := skipSpace(raw, int(dec.InputOffset()))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		out[k] = diag.Span{Start: base + start, End: base + int(dec.InputOffset())}
	}
	return out
}

// isHex reports whether s is made of hexadecimal digits.
func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// skipSpace returns the offset of the first byte at or after off that is
// neither JSON white space nor a comma or colon.
func skipSpace(text []byte, off int) int {
	for off < len(text) && strings.IndexByte(" \t\r\n,:", text[off]) >= 0 {
		off++
	}
	return off
}

// jsonReason returns a decoding error's text without Go's prefixes.
func jsonReason(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends before the document is complete"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
