// Command bench-scale measures how gramc's commands scale with their input and
// exits 1 when one grows faster than linearly.
//
//	go run ./internal/scale/bench-scale [flags]
//
// It runs parse (json, sexp, gram), check (text, json, sarif), schema and fmt on
// generated documents of n, 2n, 4n and 8n bytes, clean and error-heavy, and
// prints the table described in package scale: time and peak memory per size,
// and time(8n)/time(n). A ratio above -limit (10; linear is 8) fails. When the
// reference parser is found (-reference), it is measured in the same run as a
// yardstick for the machine's speed.
//
// Then, on one large clean document (-big, 10 MB), it measures `gramc parse
// --format sexp` and `--format gram` beside the reference parser's parse and
// print (`reference-parser FILE > /dev/null`), alternating them, and `gramc
// check` on the clean document beside an error-heavy one of the same size; it
// prints the median times and their ratios, and fails when parse exceeds
// -max-parse (1.2) times the reference or the error-heavy check exceeds
// -max-broken (2) times the clean one.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/loadavg"
	"github.com/gramlang/gram/internal/scale"
)

func main() {
	os.Exit(run())
}

func run() int {
	o := scale.DefaultOptions
	gramc := flag.String("gramc", "", "the gramc binary (default: built from this module)")
	ref := flag.String("reference", "../shared/bin/reference-parser", "the reference parser, measured as a yardstick when present")
	base := flag.Int("base", o.Base, "the smallest input size n, in bytes")
	flag.IntVar(&o.Steps, "steps", o.Steps, "number of sizes, each twice the one before")
	flag.IntVar(&o.Runs, "runs", o.Runs, "runs per size (the best counts)")
	flag.DurationVar(&o.Timeout, "timeout", o.Timeout, "time limit of one run")
	limit := flag.Float64("limit", 10, "largest growth ratio that passes")
	only := flag.String("only", "", "measure only the cases whose name matches this regular expression")
	inputs := flag.String("inputs", "clean,broken", "input kinds to measure")
	big := flag.Int("big", 10<<20, "size of the large-document comparison in bytes (0 skips it)")
	bigRuns := flag.Int("big-runs", 5, "runs of each command on the large document (the median counts)")
	maxParse := flag.Float64("max-parse", 1.2, "largest ratio of gramc parse --format sexp|gram to the reference parser that passes")
	maxBroken := flag.Float64("max-broken", 2, "largest ratio of checking the error-heavy large document to the clean one that passes")
	flag.Parse()
	o.Base = *base
	o.Log = os.Stderr

	if *gramc == "" {
		dir, err := os.MkdirTemp("", "bench-scale")
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale:", err)
			return 2
		}
		defer os.RemoveAll(dir)
		if *gramc, err = buildGramc(dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale: building gramc:", err)
			return 2
		}
	}
	if _, err := os.Stat(*ref); err != nil {
		fmt.Fprintf(os.Stderr, "bench-scale: no reference parser at %s; measuring gramc alone\n", *ref)
		*ref = ""
	}

	cases, err := commandCases(*gramc, *ref, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale: -only:", err)
		return 2
	}
	var ins []scale.Input
	for _, in := range scale.Inputs {
		if slices.Contains(strings.Split(*inputs, ","), in.Name) {
			ins = append(ins, in)
		}
	}

	uptime := loadavg.String()
	fmt.Printf("load average at start: %s\n\n", uptime)
	rows, err := scale.Run(cases, ins, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		return 2
	}
	fmt.Println()
	scale.WriteTable(os.Stdout, rows, o.Timeout)
	fmt.Printf("\nload average at end: %s\n", loadavg.String())
	code := 0
	for _, r := range scale.Failures(rows, *limit) {
		if r.Err != nil {
			fmt.Printf("FAIL %s on %s input: %v\n", r.Case, r.Input, r.Err)
		} else {
			fmt.Printf("FAIL %s on %s input grows %.1f× from n to %dn (limit %.0f)\n", r.Case, r.Input, r.Ratio(), 1<<(len(r.Sizes)-1), *limit)
		}
		code = 1
	}
	if *big > 0 {
		if c := compareBig(*gramc, *ref, *big, *bigRuns, o.Timeout, *maxParse, *maxBroken); c > code {
			code = c
		}
	}
	return code
}

// buildGramc builds gramc from this module into dir and returns its path.
func buildGramc(dir string) (string, error) {
	path := filepath.Join(dir, "gramc")
	build := exec.Command("go", "build", "-o", path, "github.com/gramlang/gram/cmd/gramc")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	return path, build.Run()
}

// commandCases returns the commands measured: gramc's, and the reference
// parser's when ref is not empty, those whose name matches only when it is
// not empty.
func commandCases(gramc, ref, only string) ([]scale.Case, error) {
	cases := []scale.Case{
		scale.Command("parse --format json", gramc, "parse", "--format", "json"),
		scale.Command("parse --format sexp", gramc, "parse", "--format", "sexp"),
		scale.Command("parse --format gram", gramc, "parse", "--format", "gram"),
		scale.Command("check --format text", gramc, "check", "--format", "text"),
		scale.Command("check --format json", gramc, "check", "--format", "json"),
		scale.Command("check --format sarif", gramc, "check", "--format", "sarif"),
		scale.Command("schema", gramc, "schema"),
		scale.Command("fmt", gramc, "fmt"),
	}
	if ref != "" {
		cases = append(cases, scale.Command("reference-parser", ref))
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return nil, err
		}
		cases = slices.DeleteFunc(cases, func(c scale.Case) bool { return !re.MatchString(c.Name) })
	}
	return cases, nil
}

// compareBig measures, on one large document, gramc's parse printers beside
// the reference parser and the check of an error-heavy document beside a clean
// one; the commands alternate so that each ratio is measured under the same
// load.
func compareBig(gramc, ref string, size, runs int, timeout time.Duration, maxParse, maxBroken float64) int {
	dir, err := os.MkdirTemp("", "bench-scale")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	clean := filepath.Join(dir, "clean.gram")
	broken := filepath.Join(dir, "broken.gram")
	if err := os.WriteFile(clean, []byte(gramgen.Clean(size)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		return 2
	}
	if err := os.WriteFile(broken, []byte(gramgen.Broken(size, 1)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		return 2
	}
	type job struct {
		c    scale.Case
		path string
	}
	jobs := []job{
		{scale.Command("gramc parse --format sexp (clean)", gramc, "parse", "--format", "sexp"), clean},
		{scale.Command("gramc parse --format gram (clean)", gramc, "parse", "--format", "gram"), clean},
		{scale.Command("gramc check (clean)", gramc, "check"), clean},
		{scale.Command("gramc check (broken)", gramc, "check"), broken},
	}
	if ref != "" {
		jobs = append(jobs, job{scale.Command("reference-parser (clean)", ref), clean})
	}
	times := make([][]time.Duration, len(jobs))
	cpus := make([][]time.Duration, len(jobs))
	peaks := make([]uint64, len(jobs))
	fmt.Printf("\n%s documents, %d runs each, alternating; load average at start: %s\n", mbs(size), runs, loadavg.String())
	for r := 0; r < runs; r++ {
		for i, j := range jobs {
			s, err := j.c.Measure(nil, j.path, timeout)
			if err != nil {
				fmt.Printf("FAIL %s: %v\n", j.c.Name, err)
				return 1
			}
			times[i] = append(times[i], s.Wall)
			cpus[i] = append(cpus[i], s.CPU)
			peaks[i] = max(peaks[i], s.Peak)
		}
	}
	med := make([]time.Duration, len(jobs))
	for i, j := range jobs {
		slices.Sort(times[i])
		slices.Sort(cpus[i])
		med[i] = times[i][len(times[i])/2]
		fmt.Printf("  %-36s median %-9s cpu %-9s peak %dMB\n", j.c.Name, med[i].Round(time.Millisecond),
			cpus[i][len(cpus[i])/2].Round(time.Millisecond), peaks[i]>>20)
	}
	fmt.Printf("load average at end: %s\n", loadavg.String())
	code := 0
	ratio := func(what string, a, b time.Duration, max float64) {
		x := float64(a) / float64(b)
		verdict := "ok"
		if x > max || math.IsNaN(x) {
			verdict, code = "FAIL", 1
		}
		fmt.Printf("  %-52s %.2f× (limit %.1f×) %s\n", what, x, max, verdict)
	}
	ratio("check broken / check clean", med[3], med[2], maxBroken)
	if ref != "" {
		ratio("parse --format sexp / reference parser", med[0], med[4], maxParse)
		ratio("parse --format gram / reference parser", med[1], med[4], maxParse)
	}
	return code
}

func mbs(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
