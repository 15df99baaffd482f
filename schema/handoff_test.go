package schema

import (
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

// TestHandoffToolNameSaysWhatIsWrong: a handoff whose tool name is not a
// valid tool name is reported for what is wrong with it, its length or a
// character, with the fix for that.
func TestHandoffToolNameSaysWhatIsWrong(t *testing.T) {
	long := strings.Repeat("b", 60)
	for _, c := range []struct{ to, message, help string }{
		{"`my agent`", "transfer_to_my agent, holds a character other than a letter, a digit, '_' or '-'", "a name of letters, digits, '_' and '-'"},
		{long, "transfer_to_" + long + ", is longer than 64 characters", "a shorter name"},
	} {
		text := "[a:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"A.\"}]\n" +
			"[" + c.to + ":Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"B.\"}]\n" +
			"(a)-[:Handoff]->(" + c.to + ")\n"
		doc, _ := parser.Parse(diag.NewFile("h.gram", []byte(text)))
		_, diags := Compile(doc)
		var found bool
		for _, d := range diags {
			if d.Code == CodeInvalidHandoff && strings.HasPrefix(d.Message, "the tool name of this handoff") {
				found = true
				if !strings.HasSuffix(d.Message, c.message) || !strings.Contains(d.Detail, c.help) {
					t.Errorf("handoff to %s: %q, help %q; want the message to end %q and the help to say %q", c.to, d.Message, d.Detail, c.message, c.help)
				}
			}
		}
		if !found {
			t.Errorf("handoff to %s: no invalid-handoff on its tool name in %v", c.to, diags)
		}
	}
}
