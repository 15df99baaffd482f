package project

// The files the arguments of a command name.

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gramlang/gram/internal/inputfile"
)

// TreeArg returns the directory of a DIR/... argument ("..." alone is
// ".", "/..." is "/") and true, or arg as it is and false: DIR/... names
// the tree below DIR, as the Go tools write it.
func TreeArg(arg string) (string, bool) {
	if arg == "..." {
		return ".", true
	}
	if rest, ok := strings.CutSuffix(arg, "/..."); ok {
		return cmp.Or(rest, "/"), true
	}
	return arg, false
}

// ArgFiles expands the arguments of a command into the files they name,
// in order: files as given, directories (DIR, or DIR/... which also skips
// the directories [SkippedInTree] names) walked for the files of their
// packages (see [Walk], with irregular), "-" (standard input) as it is,
// once. With trees set, every directory is walked as the tree DIR/... (as
// go test DIR does). Paths are cleaned and listed once, and so is a file
// reached through two names of its directory (a link to it beside it),
// under the name that comes first; only regular files of at most limit
// bytes are taken. problem is called, as they come, with the error of each
// argument that cannot be read (warn false) and with the warning of a
// directory without any .gram file, which says what was skipped (warn
// true).
func ArgFiles(args []string, trees bool, limit int64, irregular func(error) error, problem func(err error, warn bool)) []string {
	var out []string
	seen, links := map[string]bool{}, linkSet{}
	add := func(p string) {
		if !seen[p] && !links.seen(p) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, arg := range args {
		if arg == "-" {
			add(arg)
			continue
		}
		arg, tree := TreeArg(arg)
		p := filepath.Clean(arg)
		info, err := os.Stat(p)
		if err == nil && !info.IsDir() {
			err = inputfile.Hint(inputfile.Check(p, info, limit), inputfile.GiveGram)
			if err == nil {
				add(p)
				continue
			}
		}
		if err != nil {
			problem(err, false)
			continue
		}
		depth := Below
		if tree || trees {
			depth = Tree
		}
		found := false
		skips, err := Walk(p, depth, func(path string) error {
			found = true
			add(path)
			return nil
		}, irregular)
		if err != nil {
			problem(err, false)
		} else if !found {
			// Silence would look like success on files that are not there.
			problem(fmt.Errorf("no .gram files in %s%s", p, skips), true)
		}
	}
	return out
}
