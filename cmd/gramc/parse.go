package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
	"github.com/gramlang/gram/project"
)

// helpTexts are the commands' help texts, help/NAME.txt for "gramc NAME"
// ("mcp-import" for "gramc mcp import"); gramc.txt is the overview, a
// format with the list of commands for its %s.
//
//go:embed help/*.txt
var helpTexts embed.FS

// helpText returns the help text of the command name ("run", "mcp import").
func helpText(name string) string {
	b, err := helpTexts.ReadFile("help/" + strings.ReplaceAll(name, " ", "-") + ".txt")
	if err != nil {
		panic(err) // a command without its help text
	}
	return string(b)
}

// newFlags returns the flag set of the command name ("run", "mcp import"),
// which prints its help text (see helpText) and reports errors on stderr.
func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Var((*byteSize)(&e.maxFileSize), "max-file-size", "refuse input files larger than `SIZE` (bytes, or with a unit: 64MB, 1GiB)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), helpText(name))
		printDefaults(fs)
	}
	if e.onFlags != nil {
		e.onFlags(fs)
	}
	return fs
}

// printDefaults prints the flags of fs as [flag.FlagSet.PrintDefaults] does,
// but with two dashes ("--agent NAME"), as the synopses write them.
func printDefaults(fs *flag.FlagSet) {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			line = "  --" + rest
		}
		fmt.Fprint(out, line)
	}
}

// readInput reads a file, or standard input for "-".
func readInput(e *env, path string) (*diag.File, error) {
	if path == "-" {
		b, err := readStdin(e)
		if err != nil {
			return nil, err
		}
		return diag.NewFile("<stdin>", b), nil
	}
	b, err := readFile(path, e.maxFileSize)
	if err != nil {
		return nil, err
	}
	return diag.NewFile(path, b), nil
}

func runParse(e *env, args []string) error {
	fs := newFlags(e, "parse")
	format := fs.String("format", "json", "output format: sexp, json or gram")
	maxDiags := maxDiagnosticsFlag(fs)
	colorFlag(e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := checkFormat("gramc parse", *format, "sexp", "json", "gram"); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("gramc parse", "no input files (use - for standard input)")
	}
	code := exitOK
	for _, path := range fs.Args() {
		f, err := readInput(e, path)
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc parse: %v\n", err)
			code = exitUsage
			continue
		}
		// The syntax tree is what the reference grammar checks: syntax only. The
		// lowered forms also carry the gram-level checks.
		var (
			doc   *parser.Document
			diags diag.List
		)
		if *format == "sexp" {
			doc, diags = project.ParseSyntax(f)
			diags = diags.Sorted()
		} else {
			// The file is read alone: its references to nothing are
			// undefined.
			doc, diags = project.Parse(f)
			diags = append(diags, doc.Undefined()...).Sorted()
		}
		if len(diags) > 0 {
			writeDiags(e, f, diags, *maxDiags)
		}
		if diags.HasErrors() {
			if code == exitOK {
				code = exitError
			}
			if *format == "sexp" {
				continue
			}
		}
		// The printers stream: they write in pieces as they go.
		switch *format {
		case "sexp":
			err = doc.WriteSexp(e.stdout)
		case "json":
			if fs.NArg() > 1 {
				err = writeJSONLine(e.stdout, f.Path, doc)
			} else {
				err = doc.WriteJSON(e.stdout)
			}
		case "gram":
			err = doc.WriteGram(e.stdout)
		}
		if err != nil {
			return usageError("gramc parse", "%v", err)
		}
	}
	return exitWith(code)
}

// writeJSONLine writes one line of JSON Lines for a file of several:
// {"path": path, "patterns": [...]}, the patterns as WriteJSON writes them,
// without their white space. The patterns stream through as they are printed.
func writeJSONLine(w io.Writer, path string, doc *parser.Document) error {
	var head bytes.Buffer
	head.WriteString(`{"path":`)
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(path); err != nil {
		return err
	}
	head.Truncate(head.Len() - 1) // the encoder's newline
	head.WriteString(`,"patterns":`)
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	if err := doc.WriteJSON(&compactWriter{w: w}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "}\n")
	return err
}

// compactWriter writes the JSON written to it to w without the white space
// between tokens, as json.Compact does, a piece at a time: it remembers
// across writes whether it is inside a string and after a backslash.
type compactWriter struct {
	w        io.Writer
	buf      []byte
	inString bool
	escaped  bool
}

func (c *compactWriter) Write(p []byte) (int, error) {
	c.buf = c.buf[:0]
	for _, b := range p {
		switch {
		case c.escaped:
			c.escaped = false
		case c.inString && b == '\\':
			c.escaped = true
		case b == '"':
			c.inString = !c.inString
		case !c.inString && (b == ' ' || b == '\n' || b == '\t' || b == '\r'):
			continue
		}
		c.buf = append(c.buf, b)
	}
	if _, err := c.w.Write(c.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}
