package serve

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramtest"
)

// keysDiags returns the diagnostics of a keys document as text.
func keysDiags(t *testing.T, src string) ([]KeyEntry, string) {
	t.Helper()
	f := diag.NewFile("keys.json", []byte(src))
	entries, diags := ParseKeys(f)
	var b bytes.Buffer
	if err := diag.WriteText(&b, f, diags.Sorted(), false); err != nil {
		t.Fatal(err)
	}
	return entries, b.String()
}

// TestParseKeys: a keys document's entries, and a diagnostic with its
// place and fix for each mistake; a key written by mistake is never
// quoted.
func TestParseKeys(t *testing.T) {
	good := HashKey(testKey)
	entries, out := keysDiags(t, `{"keys": [
  {"sha256": "`+good+`", "identity": "alice", "claims": {"user_id": "u-1", "tier": 2}},
  {"sha256": "`+strings.ToUpper(HashKey("other"))+`", "identity": "bob"}
]}`)
	if out != "" || len(entries) != 2 {
		t.Fatalf("%d entries\n%s", len(entries), out)
	}
	if entries[0].Hash != hashOf(testKey) || entries[0].Identity != "alice" || entries[0].Claims["user_id"] != "u-1" ||
		entries[0].Claims["sub"] != "alice" || entries[1].Claims["sub"] != "bob" {
		t.Errorf("%+v", entries)
	}
	if n := entries[0].Claims["tier"]; n == nil || n.(interface{ String() string }).String() != "2" {
		t.Errorf("tier %#v", n)
	}

	cases := []struct{ name, src, want string }{
		{"not JSON", `{"keys": [}`, "keys.json:1:11: error[invalid-keys-file]: the keys document is not valid JSON: invalid character '}' looking for beginning of value"},
		{"cut", `{"keys": [`, "error[invalid-keys-file]: the keys document is not valid JSON: it ends before the document is complete"},
		{"a list", `[]`, "keys.json:1:1: error[invalid-keys-file]: the keys document must be a JSON object"},
		{"no keys", `{}`, `error[invalid-keys-file]: the keys document has no "keys" list`},
		{"keys not a list", `{"keys": {}}`, `keys.json:1:10: error[invalid-keys-file]: "keys" must be a list of entries`},
		{"bad hash", "{\"keys\": [\n  {\"sha256\": \"abc\", \"identity\": \"a\"}]}", `keys.json:2:14: error[invalid-key-hash]: "sha256" must be 64 hexadecimal digits`},
		{"no hash", `{"keys": [{"identity": "a"}]}`, `error[invalid-key-hash]: this entry has no "sha256"`},
		{"plaintext", `{"keys": [{"key": "sk-live-secret-value", "identity": "a"}]}`, `error[plaintext-key]: this entry holds a key in "key"`},
		{"no identity", `{"keys": [{"sha256": "` + good + `"}]}`, `error[missing-identity]: this entry has no "identity"`},
		{"empty identity", `{"keys": [{"sha256": "` + good + `", "identity": ""}]}`, `error[missing-identity]: this entry has no "identity"`},
		{"empty sub", `{"keys": [{"sha256": "` + good + `", "identity": "a", "claims": {"sub": ""}}]}`, `keys.json:1:125: error[missing-identity]: the claim "sub" names the identity: it must be a non-empty string`},
		{"numeric sub", `{"keys": [{"sha256": "` + good + `", "identity": "a", "claims": {"sub": 7}}]}`, `error[missing-identity]: the claim "sub" names the identity`},
		{"blank identity", `{"keys": [{"sha256": "` + good + `", "identity": " "}]}`, `error[missing-identity]: this entry has no "identity"`},
		{"duplicate", `{"keys": [{"sha256": "` + good + `", "identity": "a"}, {"sha256": "` + good + `", "identity": "b"}]}`, `error[duplicate-key-hash]: this entry (identity "b") has the same key hash as the entry of identity "a"`},
		{"unknown property", `{"keys": [{"sha256": "` + good + `", "identity": "a", "claim": {}}]}`, `warning[unknown-property]: unknown property "claim" of a key entry (it has sha256, identity and claims); did you mean "claims"?`},
		{"claims not an object", `{"keys": [{"sha256": "` + good + `", "identity": "a", "claims": [1]}]}`, `error[invalid-keys-file]: "claims" must be an object`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, out := keysDiags(t, c.src)
			if !strings.Contains(out, c.want) {
				t.Errorf("got\n%s\nwant %s", out, c.want)
			}
			if strings.Contains(out, "sk-live-secret-value") {
				t.Error("a diagnostic quotes the key")
			}
		})
	}
}

// TestCheckClaims: every identity must fill every injected parameter
// without a static value, through the claim mapping.
func TestCheckClaims(t *testing.T) {
	prog := gramtest.Compile(t, agentsSrc)
	f := diag.NewFile("keys.json", []byte(`{"keys": [
  {"sha256": "`+HashKey("a")+`", "identity": "alice", "claims": {"userId": "u-1"}},
  {"sha256": "`+HashKey("b")+`", "identity": "bob", "claims": {"uid": "u-2"}}
]}`))
	entries, diags := ParseKeys(f)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	got := CheckClaims(entries, prog.Agents(), nil, nil)
	var b bytes.Buffer
	diag.WriteText(&b, f, got, false)
	want := `keys.json:3:3: error[missing-claim]: the identity "bob" has no claim "userId", which the injected parameter userId of the tool lookupOrder needs`
	if len(got) != 1 || !strings.Contains(b.String(), want) || !strings.Contains(got[0].Detail, "--claim userId=CLAIM") {
		t.Errorf("%s", b.String())
	}
	if d := CheckClaims(entries, prog.Agents(), map[string]string{"userId": "sub"}, nil); len(d) != 0 {
		t.Errorf("sub is every identity's claim: %v", d)
	}
	if d := CheckClaims(entries, prog.Agents(), nil, map[string]any{"userId": "u"}); len(d) != 0 {
		t.Errorf("a static value fills it: %v", d)
	}
}

// TestCheckClaimsValues: a claim that is not a valid value of the injected
// parameter it fills (its format, its type, its bounds) is reported at
// the claim, naming the entry, the claim and what the parameter takes,
// whether or not a static value would fill the parameter; a number fills
// a String parameter as its text, as a request's would.
func TestCheckClaimsValues(t *testing.T) {
	prog := gramtest.Compile(t, `
[byUser:Tool {description: "Looks the user up"} |
  (userId::String {injected: true, format: "uuid"})==>(tier::Integer {injected: true, minimum: 1})==>(::String)
]
[desk:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} | byUser]
`)
	f := diag.NewFile("keys.json", []byte(`{"keys": [
  {"sha256": "`+HashKey("a")+`", "identity": "alice", "claims": {"userId": "not-a-uuid", "tier": 1}},
  {"sha256": "`+HashKey("b")+`", "identity": "bob", "claims": {"userId": "550e8400-e29b-41d4-a716-446655440000", "tier": "gold"}},
  {"sha256": "`+HashKey("c")+`", "identity": "carol", "claims": {"userId": "550e8400-e29b-41d4-a716-446655440000", "tier": 0}},
  {"sha256": "`+HashKey("d")+`", "identity": "dave", "claims": {"userId": 12345, "tier": 3}},
  {"sha256": "`+HashKey("e")+`", "identity": "erin", "claims": {"userId": "550e8400-e29b-41d4-a716-446655440000", "tier": 2}}
]}`))
	entries, diags := ParseKeys(f)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, static := range []map[string]any{nil, {"userId": "550e8400-e29b-41d4-a716-446655440000", "tier": 5}} {
		got := CheckClaims(entries, prog.Agents(), nil, static)
		var b bytes.Buffer
		diag.WriteText(&b, f, got, false)
		for _, want := range []string{
			`keys.json:2:124: error[invalid-claim]: the claim "userId" of the identity "alice" does not fit the injected parameter userId (String, format uuid) of the tool byUser: it must be a valid uuid`,
			`keys.json:3:170: error[invalid-claim]: the claim "tier" of the identity "bob" does not fit the injected parameter tier (Integer) of the tool byUser: it must be integer, not string`,
			`keys.json:4:172: error[invalid-claim]: the claim "tier" of the identity "carol" does not fit the injected parameter tier (Integer) of the tool byUser: it must be at least 1`,
			`keys.json:5:123: error[invalid-claim]: the claim "userId" of the identity "dave"`,
			`--claim userId=CLAIM; every request of this key would be refused with 403`,
		} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("static %v: no %q in\n%s", static, want, b.String())
			}
		}
		if len(got) != 4 || strings.Contains(b.String(), "erin") {
			t.Errorf("static %v: %d diagnostics, want 4:\n%s", static, len(got), b.String())
		}
	}
}
