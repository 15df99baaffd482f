package parser

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests with chunks of a few units (see units.go), so
// that the documents of the tests, most of a few units, are held in many
// chunks, as large documents are; benchmarks keep the chunks' size.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		unitChunk = 4
	}
	os.Exit(m.Run())
}
