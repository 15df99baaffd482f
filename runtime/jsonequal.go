package runtime

import "github.com/gramlang/gram/internal/jsonvalue"

// JSONEqual reports whether two generic JSON values (as encoding/json
// decodes them with UseNumber) are equal; numbers compare by value, so 1
// equals 1.0.
func JSONEqual(a, b any) bool { return jsonvalue.Equal(a, b) }
