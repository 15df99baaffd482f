// Small JSON helpers.

package runtime

import (
	"bytes"
	"encoding/json"

	"github.com/gramlang/gram/internal/jsonvalue"
)

// canonicalJSON returns data re-encoded with sorted keys and no spaces, or
// data itself, trimmed, if it is not JSON. Numbers are compared by value.
func canonicalJSON(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return string(bytes.TrimSpace(data))
	}
	b, err := jsonvalue.Marshal(v)
	if err != nil {
		return string(bytes.TrimSpace(data))
	}
	return string(b)
}
