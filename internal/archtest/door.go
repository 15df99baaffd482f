// The one door: which packages may assemble the pipeline.

package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Core lists the packages, by path relative to [Module], that may call
// the parser and the compiler themselves ([Door] names the functions):
// these and the packages below them (schema/compat), and every package
// under internal. Every other package reaches them through package
// project, the one front door: which files form a package, their parse
// and compile, and the previous result reused.
var Core = []string{"diag", "grammar", "parser", "schema", "project", "format", "internal"}

// Door lists, by the import path of their package, the prefixes of the
// names of the functions that only [Core] may use: parsing, compiling and
// merging their diagnostics.
var Door = map[string][]string{
	Module + "/parser": {"Parse", "Reparse"},
	Module + "/schema": {"Compile", "Recompile", "Merge"},
}

// inCore reports whether the package rel (relative to [Module]) is one of
// [Core] or below one.
func inCore(rel string) bool {
	return slices.ContainsFunc(Core, func(c string) bool { return rel == c || strings.HasPrefix(rel, c+"/") })
}

// CheckDoor returns, one line each and sorted, every use of a function
// [Door] names in a non-test file of a package of pkgs outside [Core]: a
// call, or the function taken as a value. It reads the files from each
// package's Dir (its GoFiles and IgnoredGoFiles, those a build constraint
// leaves out on this system, without the tests); a file that cannot be
// read or parsed is reported too.
func CheckDoor(pkgs []Package) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok || inCore(rel) {
			continue
		}
		for _, name := range append(slices.Clone(p.GoFiles), p.IgnoredGoFiles...) {
			if strings.HasSuffix(name, "_test.go") || !strings.HasSuffix(name, ".go") {
				continue
			}
			path := filepath.Join(p.Dir, name)
			uses, err := doorUses(path)
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", filepath.Join(rel, name), err))
				continue
			}
			for _, u := range uses {
				bad = append(bad, fmt.Sprintf("%s:%s uses %s: only %s may; ask package project", filepath.Join(rel, name), u, u.name, strings.Join(Core, ", ")))
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// doorUse is a use of a function [Door] names, at a line of a file.
type doorUse struct {
	line int
	name string // parser.Parse
}

func (u doorUse) String() string { return strconv.Itoa(u.line) }

// doorUses returns the uses of the functions [Door] names in the Go file
// at path.
func doorUses(path string) ([]doorUse, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	// The names the file gives the packages of Door.
	names := map[string]string{}
	for _, imp := range f.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := Door[ip]; !ok {
			continue
		}
		name := ip[strings.LastIndex(ip, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = ip
	}
	if len(names) == 0 {
		return nil, nil
	}
	var uses []doorUse
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || names[id.Name] == "" {
			return true
		}
		for _, prefix := range Door[names[id.Name]] {
			if strings.HasPrefix(sel.Sel.Name, prefix) {
				uses = append(uses, doorUse{fset.Position(sel.Pos()).Line, id.Name + "." + sel.Sel.Name})
			}
		}
		return true
	})
	return uses, nil
}
