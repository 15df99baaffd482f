// Small JSON helpers.

package runtime

import (
	"bytes"
	"encoding/json"
)

// marshalNoEscape encodes v as compact JSON without HTML escaping; map keys
// are sorted.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeJSON decodes JSON text into the generic form, numbers as
// json.Number. It fails on trailing data.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

// canonicalJSON returns data re-encoded with sorted keys and no spaces, or
// data itself, trimmed, if it is not JSON. Numbers are compared by value.
func canonicalJSON(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return string(bytes.TrimSpace(data))
	}
	b, err := marshalNoEscape(v)
	if err != nil {
		return string(bytes.TrimSpace(data))
	}
	return string(b)
}
