package schema

import (
	"bytes"
	"fmt"
	"github.com/gramlang/gram/internal/golden"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestGolden compiles every testdata/schema/*.gram file and compares the
// diagnostics, a summary of the program and the emitted schemas with the
// .golden file beside it. A first line `// formats: openai mcp jsonschema
// strict` chooses the schema sections (default: mcp); a line `// targets:
// gemini openai-strict` among the first comment lines adds each target's
// diagnostics (with their fixes) and a section with its tools array. Run
// `go test ./schema -update` to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/schema/*.gram")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".gram")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, codes := renderGolden(t, filepath.Base(path), string(src))
			for _, c := range codes {
				seen[c] = true
			}
			golden.Check(t, path, []byte(got))
		})
	}
	// Every code of the catalogue is shown by at least one golden case.
	for _, c := range Codes {
		if !seen[c.Code] {
			t.Errorf("no golden case reports %s", c.Code)
		}
	}
}

func renderGolden(t *testing.T, name, src string) (string, []string) {
	t.Helper()
	prog, f, diags := compileSource(t, name, src)
	targets := goldenTargets(t, src)
	diags = append(WithTargets(diags, targets, prog), CheckToolTokens(prog)...).Dedup()
	var b bytes.Buffer
	b.WriteString("-- diagnostics --\n")
	if err := diag.WriteText(&b, f, diags, false); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
		checkSpan(t, f, d)
	}
	if strings.HasPrefix(name, "test_") || strings.HasPrefix(name, "legacy_") || len(targets) > 0 {
		writeFixes(&b, f, diags)
	}
	b.WriteString("-- program --\n")
	describe(&b, prog)
	checkToolSchemas(t, prog)
	formats := []string{"mcp"}
	if len(targets) > 0 {
		formats = nil
	}
	strict := false
	if first, _, _ := strings.Cut(src, "\n"); strings.HasPrefix(first, "// formats:") {
		formats = strings.Fields(strings.TrimPrefix(first, "// formats:"))
		if i := slices.Index(formats, "strict"); i >= 0 {
			strict = true
			formats = slices.Delete(formats, i, i+1)
		}
	}
	for _, fm := range formats {
		for _, s := range []bool{false, true} {
			if s && !strict {
				continue
			}
			label := fm
			if s {
				label += " strict"
			}
			fmt.Fprintf(&b, "-- %s --\n", label)
			out, err := MarshalIndent(Emit(Format(fm), prog.Tools(), s))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(out)
		}
	}
	for _, tg := range targets {
		fmt.Fprintf(&b, "-- target %s --\n", tg.Name)
		out, _ := EmitTarget(tg, prog.Tools())
		js, err := MarshalIndent(out)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
	}
	return b.String(), codes
}

// goldenTargets returns the targets a `// targets: NAME...` line among the
// source's first comment lines names.
func goldenTargets(t *testing.T, src string) []*Target {
	t.Helper()
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		if rest, ok := strings.CutPrefix(line, "// targets:"); ok {
			tgs, unknown := ParseTargets(strings.Fields(rest))
			if len(unknown) > 0 {
				t.Fatal("unknown targets:", unknown)
			}
			return tgs
		}
	}
	return nil
}

// checkSpan checks that a diagnostic's span is inside the file and not
// empty, and so are its fixes' edits.
func checkSpan(t *testing.T, f *diag.File, d diag.Diagnostic) {
	t.Helper()
	n := f.Len()
	if d.Span.Start < 0 || d.Span.End > n || d.Span.Len() <= 0 {
		t.Errorf("%s: bad span %v", d.Code, d.Span)
	}
	for _, fx := range d.Fixes {
		for _, e := range fx.Edits {
			if e.Span.Start < 0 || e.Span.End > n || e.Span.End < e.Span.Start {
				t.Errorf("%s: bad edit span %v", d.Code, e.Span)
			}
		}
	}
	if d.Message == "" || d.Detail == "" {
		t.Errorf("%s: a diagnostic needs a message and a detail saying how to fix it", d.Code)
	}
}

// describe writes a readable summary of a program, with the text behind
// every span, so a golden file shows where each element points.
func describe(b *bytes.Buffer, p *Program) {
	text := func(s diag.Span) string {
		if s.Start < 0 || s.End > p.File.Len() || s.End < s.Start {
			return "<bad span>"
		}
		t := string(p.File.Bytes()[s.Start:s.End])
		if i := strings.IndexByte(t, '\n'); i >= 0 {
			t = t[:i] + "…"
		}
		return strconv.Quote(t)
	}
	for _, a := range p.Agents() {
		fmt.Fprintf(b, "agent %s at %s\n", a.Name, text(a.NameSpan))
		fmt.Fprintf(b, "  model: %s (%s)\n", a.Model, text(a.Model.Span))
		if a.Description != "" {
			fmt.Fprintf(b, "  description: %q\n", a.Description)
		}
		fmt.Fprintf(b, "  instruction: %q\n", a.Instruction)
		s := a.Settings
		fmt.Fprintf(b, "  settings: maxIterations=%d timeout=%s parallelToolCalls=%v", s.MaxIterations, s.Timeout, s.ParallelToolCalls)
		if s.Temperature != nil {
			fmt.Fprintf(b, " temperature=%g", *s.Temperature)
		}
		if s.MaxTokens != 0 {
			fmt.Fprintf(b, " maxTokens=%d", s.MaxTokens)
		}
		b.WriteString("\n  tools:")
		for _, t := range a.Tools {
			b.WriteString(" " + t.Name)
			if t.Agent != "" {
				b.WriteString(" (agent)")
			}
		}
		b.WriteString("\n")
		if a.Signature {
			b.WriteString("  signature:\n")
			for _, pa := range a.AsTool.Params {
				describeParam(b, pa, text)
			}
			if r := a.Result(); r != nil {
				fmt.Fprintf(b, "  result %s\n", r)
			} else {
				b.WriteString("  result free text\n")
			}
		}
		if a.AsTool != nil && a.AsTool.Approval {
			b.WriteString("  approval as a tool\n")
		}
		for _, h := range a.Handoffs {
			fmt.Fprintf(b, "  handoff %s (%s) %q at %s\n", h.Agent, h.ToolName(), h.Description, text(h.Span))
		}
	}
	for _, t := range p.Tools() {
		where := "inline"
		if t.TopLevel {
			where = "top-level"
		}
		if t.Approval {
			where += ", approval"
		}
		fmt.Fprintf(b, "tool %s (%s) at %s\n", t.Name, where, text(t.NameSpan))
		for _, pa := range t.Params {
			describeParam(b, pa, text)
		}
		if t.Returns != nil {
			fmt.Fprintf(b, "  returns %s at %s\n", t.Returns, text(t.Returns.Span))
		}
	}
	for _, r := range p.Records {
		fmt.Fprintf(b, "record %s at %s\n", r.Name, text(r.NameSpan))
		for _, f := range r.Fields {
			describeParam(b, f, text)
		}
	}
	for _, t := range p.Tests {
		describeTest(b, t, text)
	}
}

func describeParam(b *bytes.Buffer, p *Param, text func(diag.Span) string) {
	fmt.Fprintf(b, "  %s %s at %s", p.Name, p.Type, text(p.NameSpan))
	if p.Type.Kind != InvalidType {
		fmt.Fprintf(b, ", type at %s", text(p.Type.Span))
	}
	switch {
	case p.Injected:
		b.WriteString(", injected")
	case !p.Required():
		b.WriteString(", optional")
	}
	b.WriteString("\n")
}
