package schema

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests with lists of a few values a chunk (see vec.go),
// so that the programs of the tests, most of a few declarations, share
// their lists between versions as large programs do; benchmarks keep the
// chunks' size.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		vecChunk, vecGroup = 3, 2
	}
	os.Exit(m.Run())
}
