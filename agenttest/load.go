// Loading test files: a file and, for name_test.gram, the agent file
// name.gram beside it, each checked by package project.

package agenttest

import (
	"os"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// Suite is a compiled file with its tests.
type Suite struct {
	// File is the file's source.
	File *diag.File
	// Program is the compiled file; its Tests are the tests to run.
	Program *schema.Program
	// Subject is the program of the agent file a _test.gram file is named
	// after, nil for other files.
	Subject *schema.Program
	// Diags are the diagnostics of the file (and of its subject), merged.
	Diags diag.List
	// SubjectFile is the subject's source, for printing its diagnostics.
	SubjectFile *diag.File
	// SubjectDiags are the subject's diagnostics.
	SubjectDiags diag.List
}

// Load reads and compiles the file at path. A _test.gram file is compiled
// with the agent file it is named after, when that file exists. Only
// regular files of at most limit bytes are read (0: 256 MB). The error is
// for I/O; problems in the files are diagnostics.
func Load(path string, limit int64) (*Suite, error) {
	s := &Suite{}
	var env []*schema.Program
	if sp := schema.SubjectPath(path); sp != "" {
		switch subject, err := project.ReadText(sp, limit); {
		case err == nil:
			s.SubjectFile, s.Subject, s.SubjectDiags = subject.File, subject.Program, subject.Diags
			env = append(env, subject.Program)
		case !os.IsNotExist(err):
			return nil, err
		}
	}
	t, err := project.ReadText(path, limit, env...)
	if err != nil {
		return nil, err
	}
	s.File, s.Program, s.Diags = t.File, t.Program, t.Diags
	return s, nil
}

// HasErrors reports whether the file or its subject has errors.
func (s *Suite) HasErrors() bool { return s.Diags.HasErrors() || s.SubjectDiags.HasErrors() }
