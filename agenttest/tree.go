// Tests of composed agents: the package a test's agent belongs to.

package agenttest

import (
	"slices"

	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// PackageProgram returns the program of the agents a test of file f of pkg
// may reach: those of the package's files and of f itself (a file of tests
// may declare agents that list the package's).
func PackageProgram(pkg *project.Package, f *project.File) *schema.Program {
	p := pkg.Program()
	if f == nil || f.Program == nil || !f.Test {
		return p
	}
	t := f.Program
	return schema.NewProgram(p.File, slices.Concat(p.Agents(), t.Agents()), slices.Concat(p.Tools(), t.Tools()), slices.Concat(p.Records, t.Records))
}
