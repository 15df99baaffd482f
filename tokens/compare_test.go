package tokens

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// estimatorDir holds openai-chat-tokens, installed by `make tokens-deps`.
const estimatorDir = "testdata/node"

// compareCases are function definitions as gram writes them for OpenAI
// (gramc schema --target openai): short and long descriptions, a record,
// enums, arrays, optional parameters, none, and several tools at once.
var compareCases = []struct {
	name string
	defs []string
}{
	{"short", []string{`{"name":"getOrder","description":"Finds an order by id","parameters":{"type":"object","properties":{"orderId":{"type":"integer"}},"required":["orderId"],"additionalProperties":false}}`}},
	{"long description", []string{`{"name":"searchOrders","description":"Searches the orders of a customer by status, newest first, at most limit of them. Use it when the customer asks about their orders without giving an id; never guess an id, and say when nothing was found rather than inventing an order.","parameters":{"type":"object","properties":{"customer":{"type":"string","description":"The customer's id, as the account page shows it"}},"required":["customer"],"additionalProperties":false}}`}},
	{"record", []string{`{"name":"createOrder","description":"Creates an order","parameters":{"type":"object","properties":{"order":{"type":"object","description":"The order to create","properties":{"id":{"type":"integer"},"status":{"type":"string","enum":["open","shipped"]},"total":{"type":"number"}},"required":["id","status","total"],"additionalProperties":false}},"required":["order"],"additionalProperties":false}}`}},
	{"enums", []string{`{"name":"setStatus","description":"Sets the status of an order","parameters":{"type":"object","properties":{"orderId":{"type":"integer"},"status":{"type":"string","enum":["open","shipped","delivered","cancelled","returned"],"description":"The new status"},"priority":{"type":"integer","enum":[1,2,3]}},"required":["orderId","status"],"additionalProperties":false}}`}},
	{"arrays", []string{`{"name":"tagOrders","description":"Tags orders","parameters":{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"},"description":"The orders"},"tags":{"type":"array","items":{"type":"string"}},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":"integer"}},"required":["sku","quantity"],"additionalProperties":false}}},"required":["ids","tags"],"additionalProperties":false}}`}},
	{"optional and default", []string{`{"name":"listOrders","description":"Lists orders","parameters":{"type":"object","properties":{"status":{"type":"string","description":"Only orders of this status"},"limit":{"type":"integer","default":10,"description":"At most this many"},"verbose":{"type":"boolean"}},"additionalProperties":false}}`}},
	{"no parameters", []string{`{"name":"now","description":"Returns the current time","parameters":{"type":"object","properties":{},"additionalProperties":false}}`}},
	{"several", []string{
		`{"name":"getOrder","description":"Finds an order by id","parameters":{"type":"object","properties":{"orderId":{"type":"integer"}},"required":["orderId"],"additionalProperties":false}}`,
		`{"name":"cancelOrder","description":"Cancels an open order and says why","parameters":{"type":"object","properties":{"orderId":{"type":"integer"},"reason":{"type":"string","description":"Why the customer cancels"}},"required":["orderId","reason"],"additionalProperties":false}}`,
		`{"name":"now","description":"Returns the current time","parameters":{"type":"object","properties":{},"additionalProperties":false}}`,
	}},
}

// needEstimator skips the test, or fails it in CI, when openai-chat-tokens
// is not installed.
func needEstimator(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(estimatorDir, "node_modules/openai-chat-tokens/package.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("openai-chat-tokens is not installed in tokens/%s: run make tokens-deps", estimatorDir)
		}
		t.Skipf("openai-chat-tokens is not installed in tokens/%s (make tokens-deps)", estimatorDir)
	}
}

// node runs script in the estimator's directory with in as its standard
// input, and decodes what it prints into out.
func node(t *testing.T, script string, in, out any) {
	t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script)
	cmd.Dir = estimatorDir
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stderr = os.Stderr
	printed, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
	if err := json.Unmarshal(printed, out); err != nil {
		t.Fatalf("node %s printed %q: %v", script, printed, err)
	}
}

// TestEncodingMatchesJSTiktoken counts the repository's documentation
// and examples, one file at a time, as js-tiktoken does.
func TestEncodingMatchesJSTiktoken(t *testing.T) {
	needEstimator(t)
	paths, _ := filepath.Glob("../docs/*.md")
	more, _ := filepath.Glob("../examples/*.gram")
	var texts []string
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	var want map[string][]int
	node(t, "count.mjs", texts, &want)
	for _, enc := range []*Encoding{O200kBase(), Cl100kBase()} {
		total := 0
		for i, text := range texts {
			got := enc.Count(text)
			total += got
			if i < len(want[enc.Name]) && got != want[enc.Name][i] {
				t.Errorf("%s: %s counts %d, js-tiktoken %d", append(paths, more...)[i], enc.Name, got, want[enc.Name][i])
			}
		}
		t.Logf("%s: %d files, %d tokens", enc.Name, len(texts), total)
	}
}

// estimates runs openai-chat-tokens' functionsTokensEstimate on each case.
func estimates(t *testing.T) []int {
	t.Helper()
	needEstimator(t)
	var in [][]json.RawMessage
	for _, c := range compareCases {
		var defs []json.RawMessage
		for _, d := range c.defs {
			defs = append(defs, json.RawMessage(d))
		}
		in = append(in, defs)
	}
	var est []int
	node(t, "estimate.mjs", in, &est)
	if len(est) != len(compareCases) {
		t.Fatalf("node estimate.mjs printed %d numbers for %d cases", len(est), len(compareCases))
	}
	return est
}

// TestCompareWithEstimator holds gram's counts of function definitions
// within 15% of openai-chat-tokens' (which renders them the same way and
// counts with cl100k_base), for cl100k_base and for o200k_base.
func TestCompareWithEstimator(t *testing.T) {
	est := estimates(t)
	for i, c := range compareCases {
		var defs [][]byte
		for _, d := range c.defs {
			defs = append(defs, []byte(d))
		}
		for _, model := range []string{"gpt-4", "gpt-4o"} {
			counter := ForModel("OpenAI", model)
			n, err := counter.Functions(defs)
			if err != nil {
				t.Fatal(err)
			}
			// The estimator's figure stands alone; gram's counts the 4
			// tokens of the framing the system message shares apart.
			got := n + 4
			diff := float64(got-est[i]) / float64(est[i])
			t.Logf("%-20s %-11s gram %4d  openai-chat-tokens %4d  (%+.1f%%)", c.name, counter.Name, got, est[i], 100*diff)
			if diff > 0.15 || diff < -0.15 {
				t.Errorf("%s, %s: gram counts %d, openai-chat-tokens %d: more than 15%% apart", c.name, counter.Name, got, est[i])
			}
		}
	}
}

// TestLongerDescriptionCostsMore: a tool's count grows with its
// description.
func TestLongerDescriptionCostsMore(t *testing.T) {
	short := `{"name":"f","description":"Finds an order","parameters":{"type":"object","properties":{"id":{"type":"integer"}}}}`
	long := `{"name":"f","description":"Finds an order by its id, with its lines and its status","parameters":{"type":"object","properties":{"id":{"type":"integer"}}}}`
	for _, p := range []string{"OpenAI", "Anthropic", "Gemini"} {
		c := ForModel(p, "gpt-4o")
		a, err := c.Function([]byte(short))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := c.Function([]byte(long))
		if b.Tokens <= a.Tokens || b.Description <= a.Description {
			t.Errorf("%s: the longer description counts %d (description %d), the shorter %d (%d)", p, b.Tokens, b.Description, a.Tokens, a.Description)
		}
	}
}

// TestRenderFunctions holds the rendering of a tool with a description, a
// described parameter, an enum, an optional array of records and a
// reference.
func TestRenderFunctions(t *testing.T) {
	def := `{"type":"function","function":{"name":"ship","description":"Ships an order","parameters":{"type":"object","properties":{` +
		`"orderId":{"type":"integer","description":"The order"},"speed":{"type":["string","null"],"enum":["slow","fast"]},` +
		`"lines":{"type":"array","items":{"$ref":"#/$defs/Line"}}},"required":["orderId","speed"],` +
		`"$defs":{"Line":{"type":"object","description":"not shown","properties":{"sku":{"type":"string"}},"required":["sku"]}}}}}`
	got, err := RenderFunctions([][]byte{[]byte(def)})
	if err != nil {
		t.Fatal(err)
	}
	want := "namespace functions {\n\n// Ships an order\ntype ship = (_: {\n// The order\norderId: number,\n" +
		"speed: \"slow\" | \"fast\" | null,\nlines?: {\n  sku: string,\n}[],\n}) => any;\n\n} // namespace functions"
	if got != want {
		t.Errorf("RenderFunctions:\n%s\nwant:\n%s", got, want)
	}
}
