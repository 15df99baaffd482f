// Package scale measures how the toolchain's costs grow with the size of its
// input, and fails when one grows faster than linearly.
//
// A [Case] is one operation (a gramc command line, or a function run in the
// process, such as a language-server request). [Run] measures each case on
// inputs of size n, 2n, 4n and 8n, clean ([gramgen.Clean]) and error-heavy
// ([gramgen.Broken]), and returns one [Row] per case and input kind: the best
// time and the peak memory at each size, and the growth ratio time(8n)/time(n)
// (linear is 8). [WriteTable] prints rows in the table format below, and
// [Failures] lists those whose ratio exceeds a limit.
//
// # Table format
//
// One header line, then one line per row, columns separated by two or more
// spaces:
//
//	case                 input   0.25MB            0.5MB             1MB                2MB                8n/n
//	check --format text  clean   41ms/52ms 21MB    77ms/98ms 34MB    150ms/190ms 62MB   300ms/390ms 118MB  7.5
//	check --format text  broken  45ms/60ms 24MB    ...
//
// A size cell is the best wall time of the runs, a slash and the best CPU time
// (user and system, all threads; commands only), then the peak memory (the
// resident set of a command, the sampled live heap above the starting heap of
// a function). A run that did not finish in the time limit shows ">LIMIT" and
// makes the ratio "+Inf". The last column is time(8n)/time(n), or of the last
// size over the first when other sizes are measured, taken from the CPU times
// when there are some: on a busy machine they depend much less on the other
// work than wall times do.
//
// # Adding rows
//
// A command line is a [Command]; anything in the process is a [Func], whose
// prepare step (not timed) gets the input and returns the operation to time.
// The bench-scale program measures the gramc commands; a package with its own
// harness measures its cases in a `go test -bench` benchmark that calls [Run]
// and [WriteTable] with the same [Options] and fails when [Failures] is not
// empty, so both print the same table. The language server's benchmark takes
// medians over one shared client with its own loop, then prints its rows
// with [WriteTable] and checks them with [Failures]. A benchmark using [Run]
// looks like this:
//
//	func BenchmarkScale(b *testing.B) {
//		edit := scale.Func("lsp edit → diagnostics", func(doc []byte) (func() error, error) {
//			c := newTestClient(b, nil) // open doc, wait for its first diagnostics
//			...
//			return func() error { /* one ranged edit, wait for its diagnostics */ }, nil
//		})
//		o := scale.DefaultOptions
//		rows, err := scale.Run([]scale.Case{edit}, scale.Inputs, o)
//		if err != nil {
//			b.Fatal(err)
//		}
//		scale.WriteTable(os.Stdout, rows, o.Timeout)
//		if bad := scale.Failures(rows, 10); len(bad) > 0 {
//			b.Fatalf("%s grows %.1f×", bad[0].Case, bad[0].Ratio())
//		}
//	}
//
// and `make bench-scale` runs it after the commands with
// `go test ./lsp -run '^$' -bench '^BenchmarkScale$' -benchtime 1x`.
package scale

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/heapstat"
)

// Case is one operation measured at every size.
type Case struct {
	// Name says what is measured, e.g. "check --format sarif".
	Name string
	// Measure runs the operation once on the input, written to path, and
	// returns what it measured. The timeout bounds one run; exceeding it
	// returns an error wrapping [ErrTimeout].
	Measure func(input []byte, path string, timeout time.Duration) (Sample, error)
}

// Sample is one run's measurements.
type Sample struct {
	// Wall is the elapsed time; CPU the processor time (user and system, all
	// threads), or 0 when not known.
	Wall, CPU time.Duration
	// Peak is the peak memory in bytes.
	Peak uint64
}

// ErrTimeout reports a run that did not finish in the time limit.
var ErrTimeout = errors.New("time limit exceeded")

// Command returns a case running bin with args and the input file as its last
// argument, its standard output written to the null device and its standard
// error discarded. The exit code is not
// judged (gramc exits 1 on an input with errors); failing to start is an
// error. Peak memory is the process's maximum resident set.
func Command(name, bin string, args ...string) Case {
	return Case{Name: name, Measure: func(_ []byte, path string, timeout time.Duration) (Sample, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(append([]string(nil), args...), path)...)
		var stderr bytes.Buffer
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return Sample{}, err
		}
		defer null.Close()
		cmd.Stdout = null
		cmd.Stderr = &limited{w: &stderr, n: 4096}
		start := time.Now()
		err = cmd.Run()
		elapsed := time.Since(start)
		if ctx.Err() != nil {
			return Sample{Wall: elapsed}, fmt.Errorf("%s: %w", name, ErrTimeout)
		}
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return Sample{}, fmt.Errorf("%s: %v", name, err)
		}
		if exit != nil && exit.ExitCode() > 1 {
			return Sample{}, fmt.Errorf("%s: exit code %d: %s", name, exit.ExitCode(), strings.TrimSpace(stderr.String()))
		}
		ps := cmd.ProcessState
		return Sample{Wall: elapsed, CPU: ps.UserTime() + ps.SystemTime(), Peak: maxRSS(ps)}, nil
	}}
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(l.n, len(p))
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// Func returns a case run in this process: prepare gets the input (untimed) and
// returns the operation to time. Peak memory is the live heap, sampled every
// millisecond while the operation runs, above the heap before it started. The
// timeout is reported after the operation returns: it cannot be interrupted.
func Func(name string, prepare func(input []byte) (op func() error, err error)) Case {
	return Case{Name: name, Measure: func(input []byte, _ string, timeout time.Duration) (Sample, error) {
		op, err := prepare(input)
		if err != nil {
			return Sample{}, fmt.Errorf("%s: %v", name, err)
		}
		var elapsed time.Duration
		peak := heapstat.Peak(func() {
			start := time.Now()
			err = op()
			elapsed = time.Since(start)
		})
		if err != nil {
			return Sample{}, fmt.Errorf("%s: %v", name, err)
		}
		if elapsed > timeout {
			return Sample{Wall: elapsed}, fmt.Errorf("%s: %w", name, ErrTimeout)
		}
		return Sample{Wall: elapsed, Peak: peak}, nil
	}}
}

// Input is a kind of input document.
type Input struct {
	// Name is "clean" or "broken" for the standard inputs.
	Name string
	// Make returns a document of at least size bytes.
	Make func(size int) []byte
}

// Inputs are the standard inputs: [gramgen.Clean] and [gramgen.Broken].
var Inputs = []Input{
	{"clean", func(size int) []byte { return []byte(gramgen.Clean(size)) }},
	{"broken", func(size int) []byte { return []byte(gramgen.Broken(size, 1)) }},
}

// Options say how to measure.
type Options struct {
	// Base is the smallest input size n in bytes; Steps sizes are measured,
	// each twice the one before (4 gives n, 2n, 4n, 8n).
	Base, Steps int
	// Runs is how many times each size is measured (the best time counts);
	// sizes whose first run takes longer than a second are run once.
	Runs int
	// Timeout bounds one run.
	Timeout time.Duration
	// Dir holds the input files; a temporary directory when empty.
	Dir string
	// Log, when not nil, gets a line per measurement as it is made.
	Log io.Writer
}

// DefaultOptions are n = 0.25 MB, four sizes, three runs, two minutes a run.
var DefaultOptions = Options{Base: 256 << 10, Steps: 4, Runs: 3, Timeout: 2 * time.Minute}

// Sizes returns the input sizes the options measure.
func (o Options) Sizes() []int {
	var s []int
	for i, n := 0, o.Base; i < max(o.Steps, 2); i, n = i+1, n*2 {
		s = append(s, n)
	}
	return s
}

// Row is the measurements of one case on one kind of input.
type Row struct {
	Case, Input string
	// Sizes are the exact input sizes in bytes; Samples their measurements:
	// the best wall and CPU times of the runs and the largest peak. A wall
	// time of -1 is a run over the time limit (or not made).
	Sizes   []int
	Samples []Sample
	// Err is the first error other than a timeout, if any.
	Err error
}

// Ratio returns time(last)/time(first), or +Inf when a run did not finish.
// The times are CPU times when every sample has one (they depend less on
// what else the machine is doing), else wall times.
func (r Row) Ratio() float64 {
	if len(r.Samples) < 2 {
		return math.NaN()
	}
	first, last := r.Samples[0], r.Samples[len(r.Samples)-1]
	if first.Wall < 0 || last.Wall < 0 {
		return math.Inf(1)
	}
	a, b := first.Wall, last.Wall
	if !slices.ContainsFunc(r.Samples, func(s Sample) bool { return s.CPU <= 0 }) {
		a, b = first.CPU, last.CPU
	}
	if a == 0 {
		return math.NaN()
	}
	return float64(b) / float64(a)
}

// Run measures every case on every input at every size. Inputs are generated
// once per size and written to files in o.Dir. Cases of one input and size run
// one after the other, so their figures are side by side in time.
func Run(cases []Case, inputs []Input, o Options) ([]Row, error) {
	if o.Runs < 1 {
		o.Runs = 1
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "scale")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	sizes := o.Sizes()
	var rows []Row
	for _, in := range inputs {
		first := len(rows)
		for _, c := range cases {
			rows = append(rows, Row{Case: c.Name, Input: in.Name})
		}
		for _, size := range sizes {
			doc := in.Make(size)
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.gram", in.Name, size))
			if err := os.WriteFile(path, doc, 0o644); err != nil {
				return nil, err
			}
			for i, c := range cases {
				row := &rows[first+i]
				row.Sizes = append(row.Sizes, len(doc))
				if n := len(row.Samples); row.Err != nil || n > 0 && row.Samples[n-1].Wall < 0 {
					// A case that failed or ran out of time at a smaller size is not
					// run on a larger one.
					row.Samples = append(row.Samples, Sample{Wall: -1})
					continue
				}
				best, err := measure(c, doc, path, o)
				switch {
				case errors.Is(err, ErrTimeout):
					best.Wall = -1
				case err != nil:
					row.Err = err
					best.Wall = -1
				}
				row.Samples = append(row.Samples, best)
				if o.Log != nil {
					fmt.Fprintf(o.Log, "%-28s %-7s %8s  %s\n", c.Name, in.Name, MB(len(doc)), cell(best, o.Timeout))
				}
			}
			os.Remove(path)
		}
	}
	return rows, nil
}

// measure runs a case up to o.Runs times and returns the best wall and CPU
// times and the largest peak.
func measure(c Case, doc []byte, path string, o Options) (Sample, error) {
	best := Sample{Wall: math.MaxInt64, CPU: math.MaxInt64}
	for r := 0; r < o.Runs; r++ {
		s, err := c.Measure(doc, path, o.Timeout)
		if err != nil {
			return s, err
		}
		best = Sample{Wall: min(best.Wall, s.Wall), CPU: min(best.CPU, s.CPU), Peak: max(best.Peak, s.Peak)}
		if s.Wall > time.Second {
			break
		}
	}
	return best, nil
}

// Failures returns the rows whose ratio exceeds limit or that have an error.
func Failures(rows []Row, limit float64) []Row {
	var bad []Row
	for _, r := range rows {
		if r.Err != nil || r.Ratio() > limit {
			bad = append(bad, r)
		}
	}
	return bad
}

// WriteTable prints rows in the table format of the package documentation;
// timeout is the limit shown for runs that exceeded it.
func WriteTable(w io.Writer, rows []Row, timeout time.Duration) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(rows) > 0 {
		fmt.Fprint(tw, "case\tinput")
		for _, s := range rows[0].Sizes {
			fmt.Fprintf(tw, "\t%s", MB(s))
		}
		fmt.Fprintf(tw, "\t%dn/n\n", 1<<(len(rows[0].Sizes)-1))
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s", r.Case, r.Input)
		for _, s := range r.Samples {
			fmt.Fprintf(tw, "\t%s", cell(s, timeout))
		}
		fmt.Fprintf(tw, "\t%.1f", r.Ratio())
		if r.Err != nil {
			fmt.Fprintf(tw, "\terror: %v", r.Err)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// cell formats one measurement: "123ms/98ms 45MB" (wall/CPU time, peak), or
// ">2m0s" for a timeout.
func cell(s Sample, timeout time.Duration) string {
	if s.Wall < 0 {
		return ">" + timeout.String()
	}
	t := Duration(s.Wall)
	if s.CPU > 0 {
		t += "/" + Duration(s.CPU)
	}
	return fmt.Sprintf("%s %dMB", t, (s.Peak+1<<19)>>20)
}

// Duration shows a duration with about three significant digits ("-" for a
// negative one, which stands for no figure).
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		return "-"
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(10 * time.Microsecond).String()
	}
}

// MB formats a size in bytes as megabytes.
func MB(n int) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/(1<<20)), "0"), ".") + "MB"
}
