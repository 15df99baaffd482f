// Package archtest states the import rules of the module and checks a
// package graph against them; its test runs the check on the module as
// `go list -deps -json ./...` describes it.
//
// # Entry points
//
//   - [Layers] places every package of the module in a layer: diag and
//     the leaf helpers, then grammar, parser, schema, format and the
//     runtime's transports, runtime, runtime/mcp, the packages built on the
//     runtime, lsp, and the commands on top. A package imports only
//     packages of lower layers: never one above it (upward), nor one of its
//     own layer (sideways).
//   - [Owners] names, for each third-party library that shapes an API, the
//     packages allowed to import it (go.lsp.dev only in lsp, openai-go only
//     in runtime, the MCP SDK only in the MCP packages, the Prometheus
//     client, OpenTelemetry and the JWT library only in serve, DBOS,
//     SQLite and pgx only in durable).
//   - [Check] returns every import of a package graph that breaks a rule.
//   - [CheckDoor] returns every call of the parser or the compiler
//     ([Door]) outside the core ([Core]): the rest of the module asks
//     package project, the one front door.
//
// Only the imports of non-test files are checked: a test may use any
// package to set up its case.
package archtest

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the module's path.
const Module = "github.com/gramlang/gram"

// Layers gives the layer of each package of the module, by path relative
// to [Module]: a package may import packages of lower layers only.
var Layers = map[string]int{
	// Leaves: positions and diagnostics, and helpers that import nothing
	// of the module.
	"diag":                0,
	"internal/gramtext":   0,
	"internal/jsonvalue":  0,
	"internal/clip":       0,
	"internal/buildinfo":  0,
	"internal/heapstat":   0,
	"internal/gramgen":    0,
	"internal/golden":     0,
	"internal/archtest":   0,
	"internal/suggest":    0,
	"internal/inputfile":  0,
	"internal/shellquote": 0,
	"internal/loadavg":    0,
	"internal/unidiff":    0,
	"internal/parallel":   0,
	"internal/promptline": 0,
	// The price table of the models, embedded data.
	"pricing": 0,
	// Token counts: the embedded byte-pair encodings, and tool
	// definitions rendered as the model reads them (from their JSON); the
	// generator of its embedded tables.
	"tokens":             0,
	"internal/tokensgen": 0,
	// A throwaway PostgreSQL server for tests.
	"internal/pgtest": 0,
	// The browser playground's files, embedded: it imports nothing of the
	// module.
	"playground": 0,
	// Whether a file may have been written by another user (its fixes
	// quote paths for sh).
	"internal/filetrust": 1,
	// The front end and the compiler.
	"grammar": 1,
	"parser":  2,
	// The schema comparisons (inclusion, equality) the compiler, the
	// runtime's binding and the contract diff share; they read generic
	// JSON, not the compiler's model, so they sit below it.
	"schema/compat": 2,
	"schema":        3,
	// Beside the compiler: the formatter; contract diffs; the HTTP
	// transports the model client uses; a fake model server and a demo MCP
	// server for tests.
	"format":   4,
	"contract": 4,
	// The one front door to the parser and the compiler: which files form
	// a package, their parse and compile, the previous result reused; and
	// the project's bindings.
	"project":               4,
	"runtime/replay":        4,
	"runtime/fakeopenai":    4,
	"runtime/fakeanthropic": 4,
	"runtime/fakegemini":    4,
	"internal/mcptest":      4,
	// The runtime, and MCP on top of it; beside the runtime, importing
	// none of it, the editor features of one text (ide), which ask the
	// front door, and what the browser playground asks of the toolchain,
	// which answers with ide.
	"runtime": 5,
	"ide":     5,
	// Rewriting a formatted file in place, behind a backup.
	"format/inplace": 5,
	"playground/api": 6,
	// The terminal presentation of runs.
	"console":     6,
	"runtime/mcp": 6,
	// Durable runs: the runtime's runs as DBOS workflows, in SQLite or
	// PostgreSQL.
	"durable": 6,
	// Built on the runtime.
	"mcpimport": 7,
	// A run's setup from a command line and the bindings file.
	"binding":           7,
	"internal/gramtest": 7,
	"serve":             7,
	// Agent tests, run as the setup of a command line gives them.
	"agenttest": 8,
	// The language server.
	"lsp": 9,
	// Commands and measuring tools.
	"internal/scale":                       8,
	"cmd/gramc":                            10,
	"cmd/gram-lsp":                         10,
	"playground/wasm":                      10,
	"internal/refbench":                    10,
	"internal/scale/bench-scale":           10,
	"internal/mcptest/cmd/mcp-demo-server": 10,
}

// Owners lists, for each library (by import path prefix), the packages of
// the module that may import it.
var Owners = map[string][]string{
	"go.lsp.dev/":                              {"lsp"},
	"github.com/openai/openai-go":              {"runtime"},
	"github.com/modelcontextprotocol/go-sdk":   {"runtime/mcp", "mcpimport", "internal/mcptest"},
	"github.com/prometheus/client_golang":      {"serve"},
	"go.opentelemetry.io/otel":                 {"serve"},
	"github.com/golang-jwt/jwt":                {"serve"},
	"github.com/dbos-inc/dbos-transact-golang": {"durable"},
	"modernc.org/sqlite":                       {"durable"},
	"github.com/jackc/pgx":                     {"durable"},
}

// Forbidden lists imports the layers allow but the design does not: the
// runtime works on compiled programs and never reads gram syntax itself.
var Forbidden = map[string][]string{
	"runtime":        {"grammar", "parser"},
	"runtime/mcp":    {"grammar", "parser"},
	"runtime/replay": {"grammar", "parser", "schema"},
}

// Package is a package of the graph: its path and what it imports, and
// for [CheckDoor] its directory and its Go files (as go list names them).
type Package struct {
	ImportPath string
	Imports    []string

	Dir            string
	GoFiles        []string
	IgnoredGoFiles []string
}

// Check returns the imports of pkgs that break the rules, one line each,
// sorted: an import of a package of the module in the same or a higher
// layer, a library imported outside its owners, an import [Forbidden]
// names, and a package of the module that has no layer. Packages outside
// the module are not checked.
func Check(pkgs []Package) []string {
	var bad []string
	for _, p := range pkgs {
		from, ok := relative(p.ImportPath)
		if !ok {
			continue
		}
		level, known := Layers[from]
		if !known {
			bad = append(bad, fmt.Sprintf("%s: not in archtest.Layers; give it a layer", from))
			continue
		}
		for _, imp := range p.Imports {
			if to, ok := relative(imp); ok {
				bad = append(bad, checkEdge(from, level, to)...)
				continue
			}
			for lib, owners := range Owners {
				if strings.HasPrefix(imp, lib) && !slices.Contains(owners, from) {
					bad = append(bad, fmt.Sprintf("%s imports %s: only %s may import %s", from, imp, strings.Join(owners, ", "), lib))
				}
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// checkEdge checks an import of the module's package to by from, of the
// given layer.
func checkEdge(from string, level int, to string) []string {
	var bad []string
	if slices.Contains(Forbidden[from], to) {
		bad = append(bad, fmt.Sprintf("%s imports %s, which it must not", from, to))
	}
	toLevel, known := Layers[to]
	switch {
	case !known:
		// Reported where the package itself is checked.
	case toLevel > level:
		bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): an upward import", from, level, to, toLevel))
	case toLevel == level:
		bad = append(bad, fmt.Sprintf("%s imports %s, of the same layer %d: a sideways import", from, to, level))
	}
	return bad
}

// relative returns the path of a package of the module relative to
// [Module].
func relative(path string) (string, bool) {
	if path == Module {
		return ".", true
	}
	rest, ok := strings.CutPrefix(path, Module+"/")
	return rest, ok
}
