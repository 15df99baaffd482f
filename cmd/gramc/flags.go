package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gramlang/gram/binding"
	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/internal/suggest"
)

// parseFlags parses a command's arguments, flags and positional arguments
// in any order ("FILE --format json" as well as "--format json FILE");
// after "--" everything is positional. It returns the positional
// arguments, or the error of parseOnce: [errHelp] after --help, and an
// error after a mistake.
func parseFlags(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseOnce(e, fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" && !flagValue(fs, args[:consumed-1]) {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
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
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// parseOnce parses flags up to the first positional argument. After -h it
// prints the usage on standard output and returns [errHelp]; after a
// mistake it returns the error that says what is wrong, with exit code 2.
func parseOnce(e *env, fs *flag.FlagSet, args []string) error {
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
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.stdout)
		usage()
		fs.SetOutput(out)
		return errHelp
	}
	var didYouMean string
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		if s := suggest.Closest(strings.TrimLeft(name, "-"), definedFlags(fs)); s != "" {
			didYouMean = fmt.Sprintf("Did you mean --%s?", s)
		}
	}
	return binding.Lines(exitUsage, fmt.Sprintf("gramc %s: %v", fs.Name(), err), didYouMean,
		fmt.Sprintf("Run 'gramc %s --help' for usage.", fs.Name()))
}

// definedFlags lists the names of a flag set's flags, sorted (VisitAll
// visits them in that order).
func definedFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// givenFlags returns the names of the flags of fs given on the command
// line.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// checkFormat returns the usage error of command cmd when format is not one
// of formats: "unknown format "x" (want a, b or c)".
func checkFormat(cmd, format string, formats ...string) error {
	if slices.Contains(formats, format) {
		return nil
	}
	last := len(formats) - 1
	return usageError(cmd, "unknown format %q (want %s or %s)", format, strings.Join(formats[:last], ", "), formats[last])
}

// checkedFlag is a flag whose text read turns into its value, refusing
// what it does not accept, so that a value out of range is a usage error
// rather than silently ignored (see minInt, positiveDuration, byteSize).
type checkedFlag[T any] struct {
	p    *T
	read func(string) (T, error)
}

// String implements flag.Value.
func (f checkedFlag[T]) String() string {
	if f.p == nil {
		var zero T
		return fmt.Sprint(zero)
	}
	return fmt.Sprint(*f.p)
}

// Set implements flag.Value.
func (f checkedFlag[T]) Set(s string) error {
	v, err := f.read(s)
	if err == nil {
		*f.p = v
	}
	return err
}

// minInt is an integer flag that refuses values below min; note, if set,
// says what a value means (e.g. "0 shows all").
func minInt(p *int, min int, note string) checkedFlag[int] {
	return checkedFlag[int]{p, func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 0, strconv.IntSize)
		switch {
		case err == nil && int(n) >= min:
			return int(n), nil
		case note != "":
			return 0, fmt.Errorf("want a whole number, at least %d (%s)", min, note)
		}
		return 0, fmt.Errorf("want a whole number, at least %d", min)
	}}
}

// positiveDuration is a duration flag that refuses 0 and negative values.
func positiveDuration(p *time.Duration) checkedFlag[time.Duration] {
	return checkedFlag[time.Duration]{p, func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, errors.New("want a duration of more than 0, such as 30s or 2m")
		}
		return d, nil
	}}
}

// byteSize is a flag of a number of bytes, optionally with a unit (see
// [inputfile.ParseSize]): --max-file-size, --max-body.
func byteSize(p *int64) checkedFlag[int64] { return checkedFlag[int64]{p, inputfile.ParseSize} }
