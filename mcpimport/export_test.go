package mcpimport

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Declarations returns the file [Import] writes before it is formatted and
// checked, with the warnings of the approximations alone, so that tests
// see what the generator writes for each construct.
func Declarations(tools []*mcp.Tool, opts Options) (*Result, error) {
	d, err := newDraft(tools, opts)
	if err != nil {
		return nil, err
	}
	return d.result(d.source()), nil
}
