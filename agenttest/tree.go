// Tests of composed agents: the package a test's agent belongs to, and the
// models of the agents its runs call as tools or hand off to.

package agenttest

import (
	"slices"

	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/runtime"
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

// modelSource returns the source of the models of the agents of a test's
// runs, the tested agent's and those of its nested runs and handoffs:
// each made by model, so that their calls go through the same recording
// or replaying transport, with the agent's fallbacks of the bindings file.
func (r *Runner) modelSource(model func(*schema.Agent) (runtime.Model, error)) runtime.ModelSource {
	return func(a *schema.Agent) (runtime.Model, []runtime.Fallback, error) {
		m, err := model(a)
		if err != nil {
			return nil, nil, err
		}
		fbs, err := runtime.Fallbacks(r.Fallbacks[a.Name], func(fm schema.Model) (runtime.Model, error) {
			b := *a
			b.Model = fm
			return model(&b)
		})
		if err != nil {
			return nil, nil, err
		}
		return m, fbs, nil
	}
}
