// Reading and checking the package of a directory.

package project

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/gramlang/gram/diag"
	"github.com/gramlang/gram/internal/parallel"
	"github.com/gramlang/gram/schema"
)

// Files returns the paths of the files of a directory that may join its
// package, in path order: its .gram files (not those of its
// subdirectories) that are regular files or symbolic links to one, but
// those set aside by their name (see [SetAside]). A file reached by more
// than one of these names (links to it) is listed once, under the name
// that sorts first.
func Files(dir string) ([]string, error) {
	files, _, err := ListFiles(dir)
	return files, err
}

// ListFiles returns what [Files] returns, and the .gram entries of the
// directory left out because they are not regular files (a named pipe, a
// device, a socket, a symbolic link to one or to nothing; directories
// aside), each as the error that reading it would give, in path order: a
// [Walk] of the directory alone.
func ListFiles(dir string) (files []string, irregular []error, err error) {
	links := linkSet{}
	_, err = Walk(dir, DirOnly, func(p string) error {
		if !links.seen(p) {
			files = append(files, p)
		}
		return nil
	}, func(err error) error {
		irregular = append(irregular, err)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return files, irregular, nil
}

// linkSet holds the files seen by their directory, size and time: a
// file's other names (links to it) are looked for among the few of its
// directory, size and time, not among all.
type linkSet map[stamp][]os.FileInfo

// stamp is a file's directory, size and time.
type stamp struct {
	dir       string
	size, mod int64
}

// seen returns whether path names a file seen already through another
// name of its directory, and keeps the file seen otherwise.
func (s linkSet) seen(path string) bool {
	info, err := os.Stat(path)
	if err != nil {
		return false
	}
	k := stamp{filepath.Dir(path), info.Size(), info.ModTime().UnixNano()}
	if slices.ContainsFunc(s[k], func(i os.FileInfo) bool { return os.SameFile(i, info) }) {
		return true
	}
	s[k] = append(s[k], info)
	return false
}

// sameFile returns the index of the file of paths that f names too, or -1.
func sameFile(paths []string, f string) int {
	info, err := os.Stat(f)
	if err != nil {
		return -1
	}
	return slices.IndexFunc(paths, func(p string) bool {
		pi, err := os.Stat(p)
		return err == nil && os.SameFile(pi, info)
	})
}

// LoadOptions say what [Load] reads besides the directory's files, and
// how. The zero LoadOptions reads the directory's files as they are on
// disk.
type LoadOptions struct {
	// Files are files that must be checked: they are read even when
	// [NeverJoins] tells they never join, added to the directory's files
	// when they are not among them (a file set aside by its name, given
	// by name), and an error reading one is returned ([Loaded.Unread]).
	Files []string
	// Limit is the size limit of a file read (0: [inputfile.DefaultLimit]).
	Limit int64
	// DiagnosticsOnly tells that the caller reads the files' diagnostics
	// and nothing of their programs (`gramc check` without targets): the
	// member files are compiled for their diagnostics alone (see
	// [schema.CompileDiagnostics]), which holds less, and their Program is
	// nil.
	DiagnosticsOnly bool
}

// Loaded is the package of a directory as [Load] read and checked it.
type Loaded struct {
	*Package
	// Unread are the files of the directory, and of [LoadOptions.Files],
	// that could not be read, in path order: those of Files and those that
	// may join the package (a file that never joins is not read).
	Unread []Unread
	// Irregular are the .gram entries of the directory that are not
	// regular files, each as the error that reading it would give (see
	// [ListFiles]).
	Irregular []error
}

// Unread is a file that could not be read, and why.
type Unread struct {
	Path string
	Err  error
	// Needed is set for a file of [LoadOptions.Files].
	Needed bool
}

// Load reads the .gram files of the directory dir and o.Files on all
// cores, parses them and compiles them as a package: every file, the ones
// that do not join it compiled alone. A file of the directory that never
// joins (see [NeverJoins]) is neither read whole nor parsed, and is left
// out, unless it is one of o.Files. The error is for the listing of the
// directory, with the package of o.Files alone; problems in the files are
// diagnostics, and the files that cannot be read are [Loaded.Unread].
func Load(dir string, o LoadOptions) (*Loaded, error) {
	paths, irregular, err := ListFiles(dir)
	listed := make(map[string]bool, len(paths))
	for _, p := range paths {
		listed[p] = true
	}
	need := make(map[string]bool, len(o.Files))
	for _, f := range o.Files {
		f = filepath.Clean(f)
		if !listed[f] && !need[f] {
			switch i := sameFile(paths, f); {
			case i < 0:
				paths = append(paths, f)
			case !need[paths[i]]:
				// Another name of a listed file: read once, under the
				// name given.
				paths[i] = f
			}
		}
		need[f] = true
	}
	l := &Loaded{Irregular: irregular}
	read := (*Cache)(nil).read(paths, nil, need, o.Limit)
	srcs := make([]Source, 0, len(read))
	for i, r := range read {
		switch {
		case r.err != nil:
			l.Unread = append(l.Unread, Unread{Path: paths[i], Err: r.err, Needed: need[paths[i]]})
		case r.src.File != nil:
			srcs = append(srcs, r.src)
		}
	}
	if textBytes(srcs) >= collectFrom {
		// What parsing let go is collected before compiling starts.
		runtime.GC()
	}
	l.Package = compile(nil, dir, srcs, false, o.DiagnosticsOnly)
	return l, err
}

// collectFrom is how many bytes of text a package [Load] reads (a
// command's, loaded once) has from which [Load] collects the heap between
// parsing and compiling. Without it, the compile of a large file allocated
// on top of the parse's garbage as well as its syntax (the collector's last
// target was set while the file was parsed): `gramc check` of 10 MB of
// agents (157 MB live) peaked 6–8 MB higher, and the collection costs
// 0.02–0.07 s of CPU time (see docs/performance.md).
const collectFrom = 4 << 20

// textBytes returns the bytes of text of srcs.
func textBytes(srcs []Source) int {
	n := 0
	for _, s := range srcs {
		n += s.File.Len()
	}
	return n
}

// read returns the files at paths (see [Cache.source]), in order: the
// texts of open instead of the files on disk; need holds the files read
// even when they never join. The files the cache holds are taken first;
// the others are read and parsed on all cores.
func (c *Cache) read(paths []string, open map[string]*diag.File, need map[string]bool, limit int64) []source {
	out := make([]source, len(paths))
	var todo []int
	now := time.Now()
	for i, p := range paths {
		if e, ok := c.lookup(p, open[p], nil, now); ok {
			out[i] = e.source()
		} else {
			todo = append(todo, i)
		}
	}
	parallel.For(len(todo), func(k int) {
		i := todo[k]
		out[i] = c.source(paths[i], open[paths[i]], need[paths[i]], limit)
	})
	return out
}

// LoadFiles loads the packages of the directories of the files at paths
// on all cores (see [Load]): each with the files of paths in it as
// [LoadOptions.Files] (o.Files is not used), in the order of
// each directory's first file. A directory that cannot be listed is
// loaded with the files given alone.
func LoadFiles(paths []string, o LoadOptions) []*Loaded {
	var dirs []string
	byDir := map[string][]string{}
	for _, p := range paths {
		dir := filepath.Dir(p)
		if byDir[dir] == nil {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], p)
	}
	out := make([]*Loaded, len(dirs))
	parallel.For(len(dirs), func(i int) {
		do := o
		do.Files = byDir[dirs[i]]
		out[i], _ = Load(dirs[i], do)
	})
	return out
}

// Programs returns the program whose agents a command runs or describes,
// the file self's or, when self is nil, the package's (see
// [Package.Program]), and the program in which they find the agents they
// call or hand off to: the package's for a member file, self's own for a
// file that does not join the package or a test file.
func (p *Package) Programs(self *File) (prog, tree *schema.Program) {
	switch {
	case self == nil:
		prog = p.Program()
		return prog, prog
	case !self.Member || self.Test:
		return self.Program, self.Program
	}
	return self.Program, p.Program()
}

// Program returns the agents, tools and records of the package's files
// (tests and data files aside) as one program named after its directory:
// what a command that runs or describes the agents of a directory uses.
func (p *Package) Program() *schema.Program {
	records := members(p, func(prog *schema.Program) []*schema.Record { return prog.Records })
	return schema.NewProgram(diag.NewFile(p.Dir, nil), p.Agents(), p.Tools(), records)
}
