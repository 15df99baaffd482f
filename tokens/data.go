//go:build !js

package tokens

import "embed"

// data holds the encodings' rank tables.
//
//go:embed data/*.bpe
var data embed.FS

// Embedded reports whether the encodings' rank tables are in the binary:
// everywhere but in the playground's WebAssembly module, whose size budget
// leaves them out (its counts are estimates).
func Embedded() bool { return true }
