package project

import (
	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/schema"
)

// withBudgets returns diags with the tool-token-budget diagnostics of
// prog added ([schema.CheckToolTokens]). They are counted after every
// compile, never kept with a declaration: an edit of a tool changes the
// count of the agents that list it.
func withBudgets(prog *schema.Program, diags diag.List) diag.List {
	b := schema.CheckToolTokens(prog)
	if len(b) == 0 {
		return diags
	}
	return schema.Merge(diags, b)
}
