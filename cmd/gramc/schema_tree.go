package main

// gramc schema DIR/...: the schemas of every package of a tree.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gramlang/gram/internal/parallel"
	"github.com/gramlang/gram/internal/suggest"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// treePackage is a package of a tree: its directory as gramc check
// writes it (slash-separated, relative to where the tree was given) and
// its program.
type treePackage struct {
	key string
	loadedProgram
}

// tree returns what gramc schema prints for the tree below root: an
// object of every package's schemas, keyed by directory in sorted order;
// with --agent or --tool, the output of the one package that has it.
// Errors in any package give exit code 1 and no output, as for one
// package (see [loadTree]).
func (o schemaOptions) tree(e *env, root string) (any, error) {
	given := strings.TrimSuffix(root, "/") + "/..."
	if root == "." {
		given = "./..."
	}
	list, err := loadTree(e, "gramc schema", root, o.maxDiags)
	if err != nil {
		return nil, err
	}
	if o.agent != "" || o.tool != "" {
		p, err := o.pick(list, given)
		if err != nil {
			return nil, err
		}
		return o.output(e, p.prog, p.fileOf)
	}
	var out schema.Object
	bad := false
	for _, p := range list {
		v, err := o.output(e, p.prog, p.fileOf)
		if err != nil {
			// A target's errors: those of every package are reported.
			if codeOf(err) != exitError {
				return nil, err
			}
			bad = true
			continue
		}
		out = append(out, schema.Member{Key: p.key, Value: v})
	}
	if bad {
		return nil, exitWith(exitError)
	}
	return out, nil
}

// loadTree loads the packages of the tree below root for cmd, sorted by
// directory; a directory of data files only is no package. The
// diagnostics of every package are written; errors in any give exit code
// 1 and no packages.
func loadTree(e *env, cmd, root string, maxDiags int) ([]treePackage, error) {
	root = filepath.Clean(root)
	dirs, err := treeDirs(e, cmd, root)
	if err != nil {
		return nil, err
	}
	pkgs := make([]*project.PathPackage, len(dirs))
	errs := make([]error, len(dirs))
	parallel.For(len(dirs), func(i int) { pkgs[i], errs[i] = loadPath(e, cmd, dirs[i]) })
	var list []treePackage
	bad := false
	for i, l := range pkgs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if !slices.ContainsFunc(l.Files, func(f *project.File) bool { return f.Member }) {
			continue // data files only: no package
		}
		bad = writeReports(e, l.Reports(nil), maxDiags) || bad
		prog := l.Program()
		list = append(list, treePackage{filepath.ToSlash(l.Dir), loadedProgram{prog: prog, fileOf: l.FileOf(prog.File)}})
	}
	if bad {
		return nil, exitWith(exitError)
	}
	if len(list) == 0 {
		return nil, usageError(cmd, "no package under %s: its .gram files are all data files (a package's files have the header kind \"agents\" or \"tests\", or declare agents, tools or records)", root)
	}
	slices.SortFunc(list, func(a, b treePackage) int { return strings.Compare(a.key, b.key) })
	return list, nil
}

// treeDirs returns the directories of the tree below root that hold .gram
// files (see [project.Walk]).
func treeDirs(e *env, cmd, root string) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, usageError(cmd, "%v", err)
	}
	if !info.IsDir() {
		return nil, usageError(cmd, "%s is not a directory; give DIR/... for the packages of a tree, or the file alone", root)
	}
	var dirs []string
	skips, err := project.Walk(root, project.Tree, func(path string) error {
		if dir := filepath.Dir(path); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
		return nil
	}, e.skipIrregular(strings.TrimPrefix(cmd, "gramc ")))
	if err != nil {
		return nil, usageError(cmd, "%v", err)
	}
	if len(dirs) == 0 {
		return nil, usageError(cmd, "no .gram files under %s%s", root, skips)
	}
	return dirs, nil
}

// pick returns the one package of the list that has the agent asked for
// (or, without --agent, the tool); none or several are usage errors
// that list the names there are, or the packages and how to name one.
func (o schemaOptions) pick(list []treePackage, given string) (treePackage, error) {
	what, name, flag := "tool", o.tool, "--tool"
	if o.agent != "" {
		what, name, flag = "agent", o.agent, "--agent"
	}
	var has []treePackage
	var names []string
	for _, p := range list {
		var found bool
		if o.agent != "" {
			found = p.prog.Agent(o.agent) != nil
			names = append(names, p.prog.AgentNames()...)
		} else {
			for _, t := range p.prog.Tools() {
				found = found || t.Name == o.tool
				names = append(names, t.Name)
			}
		}
		if found {
			has = append(has, p)
		}
	}
	switch len(has) {
	case 1:
		return has[0], nil
	case 0:
		slices.Sort(names)
		return treePackage{}, usageError("gramc schema", "no %s %q in the packages of %s; %s", what, name, given, suggest.Available(what+"s", name, slices.Compact(names)))
	}
	var keys []string
	for _, p := range has {
		keys = append(keys, p.key)
	}
	return treePackage{}, usageError("gramc schema", "%s %q is declared in %d packages of %s: %s; name the package's directory instead of the tree, e.g. gramc schema %s %s %s",
		what, name, len(has), given, strings.Join(keys, ", "), filepath.FromSlash(keys[0]), flag, name)
}
