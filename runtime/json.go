// Small JSON helpers: equality of generic values for other packages, and
// the canonical form of tool arguments that finds repeated calls.

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

// JSONEqual reports whether two generic JSON values (as encoding/json
// decodes them with UseNumber) are equal; numbers compare by value, so 1
// equals 1.0.
func JSONEqual(a, b any) bool { return jsonvalue.Equal(a, b) }
