package ide

import (
	"runtime/debug"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/schema"
)

// CodeInternalError is the code of the diagnostic reported when the
// toolchain failed on a text (a panic), rather than the text being wrong.
const CodeInternalError = "internal-error"

// Analysis is what the toolchain makes of one text. It is immutable.
type Analysis struct {
	// File holds the text.
	File *diag.File
	// Doc is the parsed document.
	Doc *parser.Document
	// Prog is the compiled program, partial when there are errors.
	Prog *schema.Program
	// Diags are the parser's and the compiler's diagnostics merged, sorted
	// and without duplicates: what `gramc check` reports for the text.
	Diags diag.List
}

// Analyze parses and compiles text, named path in diagnostics, as `gramc
// check` does. A panic inside the toolchain becomes a diagnostic with the
// code [CodeInternalError].
func Analyze(path string, text []byte) (a *Analysis) {
	f := diag.NewFile(path, text)
	defer func() {
		if r := recover(); r != nil {
			d := diag.Errorf(CodeInternalError, diag.Span{}, "internal error while checking this text: %v", r)
			d.Detail = "please report it with the text; stack: " + string(debug.Stack())
			a = &Analysis{File: f, Doc: &parser.Document{File: f}, Prog: &schema.Program{File: f}, Diags: diag.List{d}}
		}
	}()
	doc, parsed := parser.Parse(f)
	prog, compiled := schema.Compile(doc)
	return &Analysis{File: f, Doc: doc, Prog: prog, Diags: schema.Merge(parsed, compiled)}
}
