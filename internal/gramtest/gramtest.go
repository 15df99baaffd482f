// Package gramtest helps the tests of the packages built on the compiler
// and the runtime.
//
// # Entry points
//
//   - [Compile] parses and compiles a gram source, failing the test on
//     errors;
//   - [Buffer] collects logs written concurrently;
//   - [SecretForms] writes a secret in the forms a redactor masks;
//   - [ConnectDemo] connects a client of package runtime/mcp to the demo
//     task server of package internal/mcptest, in memory.
package gramtest

import (
	"bytes"
	"sync"
	"testing"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// Compile parses and compiles src, failing the test on errors.
func Compile(tb testing.TB, src string) *schema.Program {
	tb.Helper()
	f := diag.NewFile("test.gram", []byte(src))
	doc, parsed := parser.Parse(f)
	prog, compiled := schema.Compile(doc)
	if diags := schema.Merge(parsed, compiled); diags.HasErrors() {
		var b bytes.Buffer
		_ = diag.WriteText(&b, f, diags, false)
		tb.Fatalf("compiling:\n%s", b.String())
	}
	return prog
}

// Buffer is a bytes.Buffer safe for concurrent use, for logs and the
// standard error of processes a test starts.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
