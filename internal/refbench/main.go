// Command refbench measures the front end side by side with the reference
// parser of gram notation (tree-sitter-gram's generated C parser, run by
// ../shared/bin/reference-parser) on the same generated document, in one run,
// and prints the ratios:
//
//   - in-process parse + lowering (parser.Parse) in MB/s, on all cores and on
//     one core, against `reference-parser -t` (the parse alone, one core);
//   - the peak heap during that parse (sampled every millisecond, garbage not
//     yet collected included) and the live heap of the parsed document, per
//     input byte;
//   - whole processes: `gramc check FILE` against `reference-parser -q FILE`
//     (wall time and peak RSS), and `gramc parse --format json FILE >
//     /dev/null` against `gramc check` (peak RSS).
//
// Each figure is the median of -rounds rounds; within a round the two sides
// run one after the other, so a busy machine slows both alike. The load
// average is printed with the figures. -doc names the documents measured,
// one after the other: mixed (gramgen.Mixed, every construct) and agents
// (gramgen.Agents, every third top-level pattern a tool and every sixth an
// agent). From the module root:
//
//	go run ./internal/refbench [-size 10] [-rounds 3] [-doc mixed,agents] [-ref ../shared/bin/reference-parser]
//
// When the reference parser cannot be run or built (it needs gcc and npm on
// first use), refbench says so and exits 0 without figures.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/gramgen"
	"github.com/gramlang/gram/internal/heapstat"
	"github.com/gramlang/gram/internal/loadavg"
	"github.com/gramlang/gram/parser"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == spawnArg {
		os.Exit(spawn(os.Args[2:]))
	}
	size := flag.Int("size", 10, "size of the generated document, in MiB")
	rounds := flag.Int("rounds", 3, "rounds; each figure is the median")
	ref := flag.String("ref", "../shared/bin/reference-parser", "the reference parser command")
	docs := flag.String("doc", "mixed,agents", "the documents to measure, comma-separated: mixed, agents")
	flag.Parse()
	if err := run(*size, *rounds, *ref, strings.Split(*docs, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "refbench:", err)
		os.Exit(1)
	}
}

// proc is what one run of a command cost.
type proc struct {
	wall   time.Duration
	rssMB  float64
	stdout string
}

// spawnArg, as refbench's first argument, makes it run the command that
// follows and report its wall time and peak RSS (see measure).
const spawnArg = "-spawn"

// measure runs a command and returns its wall time, peak RSS and output.
//
// The command is started by a fresh refbench process (spawnArg) rather than
// by this one: Linux counts in a process's peak RSS the peak of the process
// that started it, up to the exec (the child shares its memory until then),
// and this process has held the parsed document.
func measure(name string, args ...string) (proc, error) {
	self, err := os.Executable()
	if err != nil {
		return proc{}, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return proc{}, err
	}
	defer r.Close()
	cmd := exec.Command(self, append([]string{spawnArg, name}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = &out, &errb, []*os.File{w}
	err = cmd.Run()
	w.Close()
	if err != nil {
		return proc{}, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	var wall time.Duration
	var rssKB int64
	if _, err := fmt.Fscan(r, &wall, &rssKB); err != nil {
		return proc{}, fmt.Errorf("%s: reading its measurement: %v", name, err)
	}
	return proc{wall: wall, rssMB: float64(rssKB) / 1024, stdout: out.String()}, nil
}

// spawn runs the command args with refbench's standard streams, writes its
// wall time (nanoseconds) and peak RSS (KiB) to file descriptor 3, and
// returns the exit code to exit with.
func spawn(args []string) int {
	report := os.NewFile(3, "report")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(report, "%d %d\n", int64(wall), ru.Maxrss)
	return 0
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// parseMBs parses src on procs cores and returns MB/s.
func parseMBs(src []byte, procs int) float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	runtime.GC()
	start := time.Now()
	doc, diags := parser.Parse(diag.NewFile("bench.gram", src))
	d := time.Since(start)
	if diags.HasErrors() || len(doc.Lowered()) == 0 {
		panic("the generated document has errors")
	}
	return float64(len(src)) / 1e6 / d.Seconds()
}

// generators are the documents refbench can measure, by name, with what
// the table says of them.
var generators = map[string]struct {
	gen   func(size int) string
	about string
}{
	"mixed":  {gramgen.Mixed, "gramgen.Mixed (every construct, every reference defined)"},
	"agents": {gramgen.Agents, "gramgen.Agents (every third pattern a tool with a curried signature and defaults, every sixth an agent)"},
}

func run(sizeMiB, rounds int, ref string, docs []string) error {
	for _, name := range docs {
		if _, ok := generators[name]; !ok {
			return fmt.Errorf("unknown document %q: want mixed or agents", name)
		}
	}
	dir, err := os.MkdirTemp("", "refbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	gramc := filepath.Join(dir, "gramc")
	if out, err := exec.Command("go", "build", "-o", gramc, "./cmd/gramc").CombinedOutput(); err != nil {
		return fmt.Errorf("building gramc: %v\n%s", err, out)
	}
	for i, name := range docs {
		g := generators[name]
		src := []byte(g.gen(sizeMiB << 20))
		// Each document in a directory of its own: the .gram files of a
		// directory are one package, which gramc check compiles together.
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			return err
		}
		file := filepath.Join(dir, name, name+".gram")
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return err
		}
		if i > 0 {
			fmt.Println()
		}
		fmt.Printf("== %s\nload average before: %s (%d cores)\n", name, loadavg.String(), runtime.NumCPU())
		if _, err := measure(ref, "-q", file); err != nil {
			fmt.Printf("refbench: skipped: the reference parser cannot be run or built: %v\n", err)
			return nil
		}
		var fig figures
		for r := 0; r < rounds; r++ {
			if err := fig.round(ref, gramc, file, src); err != nil {
				return err
			}
		}
		fmt.Printf("load average after:  %s\n", loadavg.String())
		fig.print(float64(len(src))/1e6, g.about, rounds)
	}
	return nil
}

// figures are the measurements of every round.
type figures struct {
	refMBs, allMBs, oneMBs, peak, live []float64
	refWall, refRSS, chkWall, chkRSS   []float64
	jsonWall, jsonRSS                  []float64
}

// round measures one round: the in-process parse beside `reference-parser
// -t`, then the whole processes on file, whose text is src.
func (f *figures) round(ref, gramc, file string, src []byte) error {
	p, err := measure(ref, "-t", file)
	if err != nil {
		return err
	}
	var ms, mbs float64
	if _, err := fmt.Sscanf(p.stdout, "%f ms %f MB/s", &ms, &mbs); err != nil {
		return fmt.Errorf("reading %q: %v", p.stdout, err)
	}
	f.refMBs = append(f.refMBs, mbs)
	f.allMBs = append(f.allMBs, parseMBs(src, runtime.NumCPU()))
	f.oneMBs = append(f.oneMBs, parseMBs(src, 1))
	f.peak = append(f.peak, float64(heapstat.Peak(func() { parser.Parse(diag.NewFile("bench.gram", src)) }))/float64(len(src)))
	f.live = append(f.live, float64(heapstat.Live(func() any {
		doc, _ := parser.Parse(diag.NewFile("bench.gram", src))
		return doc
	}))/float64(len(src)))

	q, err := measure(ref, "-q", file)
	if err != nil {
		return err
	}
	c, err := measure(gramc, "check", file)
	if err != nil {
		return err
	}
	j, err := measure("sh", "-c", gramc+" parse --format json "+file+" > /dev/null")
	if err != nil {
		return err
	}
	f.refWall, f.refRSS = append(f.refWall, q.wall.Seconds()), append(f.refRSS, q.rssMB)
	f.chkWall, f.chkRSS = append(f.chkWall, c.wall.Seconds()), append(f.chkRSS, c.rssMB)
	f.jsonWall, f.jsonRSS = append(f.jsonWall, j.wall.Seconds()), append(f.jsonRSS, j.rssMB)
	return nil
}

// print prints the medians and their ratios as a table, for an input of mb
// megabytes generated as about says.
func (f *figures) print(mb float64, about string, rounds int) {
	fmt.Printf("input: %.1f MB generated by %s; median of %d rounds\n\n", mb, about, rounds)
	row := func(figure, refv, ours, ratio, target string) {
		fmt.Printf("%-58s %-14s %-14s %-8s %s\n", figure, refv, ours, ratio, target)
	}
	row("figure", "reference", "gramc", "ratio", "target")
	rm, am, om := median(f.refMBs), median(f.allMBs), median(f.oneMBs)
	row(fmt.Sprintf("in-process parse + lowering, %d cores (MB/s)", runtime.NumCPU()), f1(rm), f1(am), ratio(am/rm), ">= 2x")
	row("in-process parse + lowering, 1 core (MB/s)", f1(rm), f1(om), ratio(om/rm), ">= 1x")
	row("peak heap during the parse, per input byte", "-", f1(median(f.peak))+"x", "", "<= 13x")
	row("live heap of the parsed document, per input byte", "-", f1(median(f.live))+"x", "", "")
	rw, cw := median(f.refWall), median(f.chkWall)
	rr, cr := median(f.refRSS), median(f.chkRSS)
	row("gramc check vs reference-parser -q: wall (s)", f2(rw), f2(cw), ratio(cw/rw), "<= 0.7x")
	row("gramc check vs reference-parser -q: peak RSS (MB)", f1(rr), f1(cr), ratio(cr/rr), "<= 0.8x")
	row("  peak RSS per input byte", f1(rr/mb)+"x", f1(cr/mb)+"x", "", "")
	jr := median(f.jsonRSS)
	row("gramc parse --format json > /dev/null: wall (s)", "-", f2(median(f.jsonWall)), "", "")
	row("gramc parse --format json: peak RSS vs check (MB)", f1(cr)+" (check)", f1(jr), ratio(jr/cr), "<= 1.2x")
}

func f1(x float64) string    { return fmt.Sprintf("%.1f", x) }
func f2(x float64) string    { return fmt.Sprintf("%.2f", x) }
func ratio(x float64) string { return fmt.Sprintf("%.2fx", x) }
