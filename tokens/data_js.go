//go:build js

package tokens

import "embed"

// data is empty: the playground's WebAssembly module leaves the rank
// tables out to keep within its size budget (docs/playground.md).
var data embed.FS

// Embedded reports whether the encodings' rank tables are in the binary:
// everywhere but in the playground's WebAssembly module, whose size budget
// leaves them out (its counts are estimates).
func Embedded() bool { return false }
