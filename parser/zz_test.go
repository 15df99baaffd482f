package parser

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gramlang/gram/diag"
)

func TestZZBig(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("ZZ_FILE"))
	t0 := time.Now()
	doc, diags := Parse(diag.NewFile("x", b))
	fmt.Println(time.Since(t0), len(doc.units), len(diags))
}
