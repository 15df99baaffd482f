package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/parser"
)

const parseHelp = `Usage: gramc parse [--format sexp|json|gram] FILE...|-

Parses gram files (or standard input, given as -) and prints, for each:
  sexp  the syntax tree as the reference grammar (tree-sitter-gram) prints it;
        only syntax errors are reported, as that grammar does
  json  the lowered Pattern<Subject> values as canonical JSON (the default)
  gram  the lowered patterns printed back as gram in pattern notation

Diagnostics go to standard error. Exit codes: 0 clean, 1 errors in the input,
2 usage or I/O errors.

Flags:
`

// newFlags returns a flag set that prints help text and reports errors on stderr.
func newFlags(e *env, name, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), help)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; it returns -1 to go on, or an exit code.
func parseFlags(e *env, fs *flag.FlagSet, args []string) int {
	// The flag package prints the usage itself on -h and on errors; print it
	// once, here: on standard output when asked for, on standard error after
	// a mistake.
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if err == nil {
		return -1
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.stdout)
		usage()
		return exitOK
	}
	fmt.Fprintf(e.stderr, "Run 'gramc %s --help' for usage.\n", fs.Name())
	return exitUsage
}

// readInput reads a file, or standard input for "-".
func readInput(e *env, path string) (*diag.File, error) {
	if path == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return nil, fmt.Errorf("reading standard input: %w", err)
		}
		return diag.NewFile("<stdin>", b), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return diag.NewFile(path, b), nil
}

// writeDiags prints diagnostics as text on stderr.
func writeDiags(e *env, f *diag.File, l diag.List) {
	_ = diag.WriteText(e.stderr, f, l, diag.UseColor(e.stderr))
}

func runParse(e *env, args []string) int {
	fs := newFlags(e, "parse", parseHelp)
	format := fs.String("format", "json", "output format: sexp, json or gram")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	switch *format {
	case "sexp", "json", "gram":
	default:
		fmt.Fprintf(e.stderr, "gramc parse: unknown format %q (want sexp, json or gram)\n", *format)
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "gramc parse: no input files (use - for standard input)")
		return exitUsage
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
			doc, diags = parser.ParseSyntax(f)
			diags = diags.Sorted()
		} else {
			doc, diags = parser.Parse(f)
		}
		if len(diags) > 0 {
			writeDiags(e, f, diags)
		}
		if diags.HasErrors() {
			if code == exitOK {
				code = exitError
			}
			if *format == "sexp" {
				continue
			}
		}
		var out bytes.Buffer
		switch *format {
		case "sexp":
			err = doc.WriteSexp(&out)
		case "json":
			err = doc.WriteJSON(e.stdout) // streamed
		case "gram":
			err = doc.WriteGram(&out)
		}
		if err == nil && out.Len() > 0 {
			_, err = e.stdout.Write(out.Bytes())
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc parse: %v\n", err)
			return exitUsage
		}
	}
	return code
}
