package parser

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests with chunks of a few units in groups of a few
// chunks (see units.go), so that the documents of the tests, most of a few
// units, are held in many chunks and groups, as large documents are; benchmarks keep the chunks' size.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		unitChunk, groupChunks = 4, 2
	}
	os.Exit(m.Run())
}
