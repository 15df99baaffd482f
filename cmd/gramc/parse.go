package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/inputfile"
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
	fs.Var(byteSize(&e.maxFileSize), "max-file-size", "refuse input files larger than `SIZE` (bytes, or with a unit: 64MB, 1GiB)")
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

// readInput reads a file, or standard input for "-" (as "<stdin>"), up to
// the size limit.
func readInput(e *env, path string) (*diag.File, error) {
	if path != "-" {
		return checkInput{path: path, limit: e.maxFileSize}.read()
	}
	b, err := io.ReadAll(inputfile.Beyond(e.stdin, e.maxFileSize))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if int64(len(b)) > e.maxFileSize {
		return nil, fmt.Errorf("standard input is larger than %s; give a larger --max-file-size to read it", inputfile.SizeString(e.maxFileSize))
	}
	return diag.NewFile("<stdin>", b), nil
}

func runParse(e *env, args []string) error {
	fs := newFlags(e, "parse")
	format := fs.String("format", "json", "output format: sexp, json or gram")
	maxDiags := diagFlags(e, fs)
	args, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if err := checkFormat("gramc parse", *format, "sexp", "json", "gram"); err != nil {
		return err
	}
	if len(args) == 0 {
		return usageError("gramc parse", "no input files (use - for standard input)")
	}
	code := exitOK
	for _, path := range args {
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
		writeDiags(e, f, diags, *maxDiags)
		if diags.HasErrors() {
			code = max(code, exitError)
			if *format == "sexp" {
				continue
			}
		}
		// The printers stream: they write in pieces as they go.
		switch *format {
		case "sexp":
			err = doc.WriteSexp(e.stdout)
		case "json":
			if len(args) > 1 {
				err = doc.WriteJSONLine(e.stdout, f.Path)
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
