// Loading test files: the package of each file's directory, read and
// checked by package project, with the agent file a NAME_test.gram file is
// named after.

package agenttest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
)

// Load reads and compiles the packages of the directories of the files at
// paths (see [project.Load]), by directory, each with the files of paths in it and the
// other .gram files of the directory, but the data files, left unread. A
// NAME_test.gram file sees its whole package, and the NAME.gram it is
// named after ([schema.SubjectPath]) is needed as much as the file: when
// a needed file cannot be read, the error says why (an
// [*inputfile.Error] for a file that is not a regular file or too
// large). The other files that cannot be read are left out. It returns
// the .gram entries of the directories that are not regular files (see
// [project.ListFiles]), those before the error when there is one; only
// regular files of at most limit bytes are read (0: 256 MB).
func Load(paths []string, limit int64) (map[string]*project.Package, []error, error) {
	files := slices.Clone(paths)
	needed := map[string]bool{}
	for _, p := range paths {
		needed[filepath.Clean(p)] = true
		if sp := schema.SubjectPath(p); sp != "" {
			needed[filepath.Clean(sp)] = true
			if _, err := os.Stat(sp); err == nil {
				files = append(files, sp)
			}
		}
	}
	pkgs := map[string]*project.Package{}
	var irregular []error
	for _, l := range project.LoadFiles(files, project.LoadOptions{Limit: limit}) {
		for _, err := range l.Irregular {
			var ie *inputfile.Error
			if errors.As(err, &ie) && needed[filepath.Clean(ie.Path)] {
				return nil, irregular, err
			}
			irregular = append(irregular, err)
		}
		for _, u := range l.Unread {
			if u.Needed {
				return nil, irregular, u.Err
			}
		}
		pkgs[l.Dir] = l.Package
	}
	return pkgs, irregular, nil
}
