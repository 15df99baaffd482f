package main

import (
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/gramlang/gram/parser"
)

// parseFlags parses a command's arguments, flags and positional arguments in
// any order ("FILE --format json" as well as "--format json FILE"); after "--"
// everything is positional. Afterwards fs.Args() holds the positional
// arguments. It returns -1 to go on, or an exit code.
func parseFlags(e *env, fs *flag.FlagSet, args []string) int {
	pos, code := parseInterleaved(e, fs, args)
	if code >= 0 {
		return code
	}
	// Leave the positional arguments in fs.Args(); "--" keeps the flag
	// package from reading any of them as a flag again.
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		return exitUsage
	}
	return -1
}

// parseInterleaved parses flags and positional arguments in any order; after
// "--" everything is positional. It returns the positional arguments, and an
// exit code or -1.
func parseInterleaved(e *env, fs *flag.FlagSet, args []string) ([]string, int) {
	var pos []string
	for {
		if code := parseOnce(e, fs, args); code >= 0 {
			return nil, code
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" && !flagValue(fs, args[:consumed-1]) {
			return append(pos, rest...), -1
		}
		if len(rest) == 0 {
			return pos, -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagValue reports whether the argument after args is the value of a flag
// that args ends with ("-m --" gives -m the value "--").
func flagValue(fs *flag.FlagSet, args []string) bool {
	if len(args) == 0 {
		return false
	}
	last := args[len(args)-1]
	if !strings.HasPrefix(last, "-") || last == "-" || last == "--" || strings.Contains(last, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(last, "-"))
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

// parseOnce parses flags up to the first positional argument; it returns -1
// to go on, or an exit code.
func parseOnce(e *env, fs *flag.FlagSet, args []string) int {
	// The flag package prints the usage itself on -h and on errors; print it
	// once, here: on standard output when asked for, on standard error after
	// a mistake.
	usage := fs.Usage
	fs.Usage = func() {}
	out := fs.Output()
	var msg strings.Builder
	fs.SetOutput(&msg)
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err == nil {
		return -1
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.stdout)
		usage()
		fs.SetOutput(out)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "gramc %s: %v\n", fs.Name(), err)
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		if s := parser.Closest(strings.TrimLeft(name, "-"), definedFlags(fs)); s != "" {
			fmt.Fprintf(e.stderr, "Did you mean --%s?\n", s)
		}
	}
	fmt.Fprintf(e.stderr, "Run 'gramc %s --help' for usage.\n", fs.Name())
	return exitUsage
}

// definedFlags lists the names of a flag set's flags, sorted.
func definedFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	return names
}
