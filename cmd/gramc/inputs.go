package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gramlang/gram/internal/inputfile"
	"github.com/gramlang/gram/project"
)

// defaultMaxFileSize is the largest input read when --max-file-size is not
// given.
const defaultMaxFileSize = inputfile.DefaultLimit

// collectInputs expands the arguments of command cmd into inputs: files as
// given, directories (DIR, or DIR/... which also skips the directories
// [project.SkippedInTree] names) walked for the files of their packages
// (see [project.Walk]; a directory without any is reported with a warning
// that says what was skipped), - as standard input.
// With trees set, every directory is walked as the tree DIR/... (gramc
// test DIR, as go test). Paths are cleaned and listed once. It reports
// whether an argument could not be read.
func collectInputs(e *env, cmd string, args []string, trees bool) ([]checkInput, bool) {
	var inputs []checkInput
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			inputs = append(inputs, checkInput{path: p, limit: e.maxFileSize})
		}
	}
	bad := false
	stdinRead := false
	for _, arg := range args {
		if arg == "-" {
			if stdinRead {
				continue
			}
			stdinRead = true
			b, err := readStdin(e)
			if err != nil {
				fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
				bad = true
				continue
			}
			inputs = append(inputs, checkInput{path: "<stdin>", stdin: b, isStd: true})
			continue
		}
		// DIR/... names the tree below DIR, as the Go tools write it; a
		// directory is walked whole either way.
		arg, tree := treeArg(arg)
		p := filepath.Clean(arg)
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
			bad = true
			continue
		}
		if !info.IsDir() {
			if err := checkRegular(p, info, e.maxFileSize); err != nil {
				fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
				bad = true
				continue
			}
			add(p)
			continue
		}
		depth := project.Below
		if tree || trees {
			depth = project.Tree
		}
		found := false
		skips, err := project.Walk(p, depth, func(path string) error {
			found = true
			add(path)
			return nil
		}, e.skipIrregular(cmd))
		if err != nil {
			fmt.Fprintf(e.stderr, "gramc %s: %v\n", cmd, err)
			bad = true
		} else if !found {
			// Silence would look like success on files that are not there.
			fmt.Fprintf(e.stderr, "gramc %s: warning: no .gram files in %s%s\n", cmd, p, skips)
		}
	}
	return inputs, bad
}

// treeArg returns the directory of a DIR/... argument ("..." alone is
// ".", "/..." is "/") and true, or arg as it is and false.
func treeArg(arg string) (string, bool) {
	if arg == "..." {
		return ".", true
	}
	if rest, ok := strings.CutSuffix(arg, "/..."); ok {
		if rest == "" {
			rest = "/"
		}
		return rest, true
	}
	return arg, false
}

// skipIrregular returns the irregular function of a walk by cmd (see
// [project.Walk]): a .gram entry that is not a regular file is skipped
// with a warning, a directory that cannot be read stops the walk.
func (e *env) skipIrregular(cmd string) func(error) error {
	return func(err error) error {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op != "stat" {
			return err
		}
		e.warnSkipped(cmd, err)
		return nil
	}
}

// warnSkipped warns, once for each entry in a run, that cmd skips a .gram
// entry of a directory that is not a regular file; err is what reading it
// would give (see [project.ListFiles]).
func (e *env) warnSkipped(cmd string, err error) {
	path, why := "", err.Error()
	var ie *inputfile.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ie):
		path, why = ie.Path, ie.Kind
		if why != "not a regular file" {
			why += ", not a regular file"
		}
	case errors.As(err, &pe):
		path, why = pe.Path, pe.Err.Error()
		if info, lerr := os.Lstat(pe.Path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			why = "a symbolic link to nothing (" + why + ")"
		}
	}
	e.skippedMu.Lock()
	defer e.skippedMu.Unlock()
	if e.skipped[path] {
		return
	}
	if e.skipped == nil {
		e.skipped = map[string]bool{}
	}
	e.skipped[path] = true
	fmt.Fprintf(e.stderr, "gramc %s: warning: skipped %s: %s; only regular files (and links to them) are read from a directory\n", cmd, path, why)
}

// distinctFiles returns the inputs without those that name a file an
// earlier input names too (by another hard link or a symbolic link), so
// that each file is written once.
func distinctFiles(inputs []checkInput) []checkInput {
	var out []checkInput
	// The files seen, by size and modification time (one file has one of
	// each): a file is compared with those that share them only.
	type sizeTime struct{ size, mod int64 }
	seen := map[sizeTime][]fs.FileInfo{}
	for _, in := range inputs {
		if !in.isStd {
			info, err := os.Stat(in.path)
			if err == nil {
				k := sizeTime{info.Size(), info.ModTime().UnixNano()}
				if slices.ContainsFunc(seen[k], func(s fs.FileInfo) bool { return os.SameFile(s, info) }) {
					continue
				}
				seen[k] = append(seen[k], info)
			}
		}
		out = append(out, in)
	}
	return out
}

// read returns the text of an input: what was read from standard input, or
// the file, refused when it is not a regular file or over the size limit.
func (in checkInput) read() ([]byte, error) {
	if in.isStd {
		return in.stdin, nil
	}
	return readFile(in.path, in.limit)
}

// readStdin reads standard input, up to the size limit.
func readStdin(e *env) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(e.stdin, e.maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if int64(len(b)) > e.maxFileSize {
		return nil, fmt.Errorf("standard input is larger than %s; give a larger --max-file-size to read it", inputfile.SizeString(e.maxFileSize))
	}
	return b, nil
}

// readFile reads a gram file: see [inputfile.Read]; the error of a file
// that is not read says what to give instead.
func readFile(path string, limit int64) ([]byte, error) {
	b, err := inputfile.Read(path, limit)
	return b, inputfile.Hint(err, inputfile.GiveGram)
}

// readOther reads a file other than a gram file (a recording, a history, a
// schema) within the size limit of inputs, as readFile does.
func readOther(e *env, path string) ([]byte, error) {
	b, err := inputfile.Read(path, e.maxFileSize)
	return b, inputfile.Hint(err, "give a regular file")
}

// checkRegular says why the file described by info cannot be read as an
// input, or returns nil.
func checkRegular(path string, info fs.FileInfo, limit int64) error {
	return inputfile.Hint(inputfile.Check(path, info, limit), inputfile.GiveGram)
}

// byteSize is the value of --max-file-size: a number of bytes, optionally
// with a unit (see [inputfile.ParseSize]).
type byteSize int64

// String implements flag.Value.
func (b *byteSize) String() string {
	if b == nil {
		return ""
	}
	return strconv.FormatInt(int64(*b), 10)
}

// Set implements flag.Value.
func (b *byteSize) Set(s string) error {
	n, err := inputfile.ParseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}
