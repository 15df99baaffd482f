// Reading a version of a file as it is at a git revision, the old side of
// a comparison (gramc diff REV:PATH NEW, gramc diff --against). The revision
// is checked (no leading '-') and resolved to its tree with git told that
// no option follows; the path is looked up in that tree, which tells a
// file the revision lacks apart from git failing; the file is read by its
// object id with git cat-file --batch, whose answer gives its type and
// size, so that a short or empty answer is never taken for the file.

package contract

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gramlang/gram/diag"
)

// gitError is git exiting with an error: the command and what git said.
type gitError struct {
	args []string
	code int    // git's exit code, -1 when it did not run
	msg  string // git's standard error, or why it did not run
}

// Error implements error.
func (e *gitError) Error() string {
	return "git " + strings.Join(e.args, " ") + ": " + e.msg
}

// git runs git with args in dir and returns its standard output; the error
// is a *gitError.
func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		ge := &gitError{args: args, code: -1, msg: strings.TrimSpace(stderr.String())}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ge.code = ee.ExitCode()
		}
		if ge.msg == "" {
			ge.msg = err.Error()
		}
		return nil, ge
	}
	return out, nil
}

// SplitRevPath splits REV:PATH at its first colon outside braces, where
// git splits it (main@{1:00}:desk.gram is at main@{1:00}).
func SplitRevPath(obj string) (rev, path string, ok bool) {
	depth := 0
	for i, c := range obj {
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case c == ':' && depth == 0:
			return obj[:i], obj[i+1:], true
		}
	}
	return "", "", false
}

// checkRevision refuses a revision that git would not read as one.
func checkRevision(rev string) error {
	switch {
	case rev == "":
		return errors.New("no revision: write REV:PATH with a revision (HEAD:desk.gram, main:agents/desk.gram)")
	case strings.HasPrefix(rev, "-"):
		return fmt.Errorf("revision %q starts with '-', which git would read as an option (no branch or tag name starts so)", rev)
	case strings.ContainsAny(rev, "\n\r\x00"):
		return fmt.Errorf("revision %q has a line break or a NUL byte", rev)
	}
	return nil
}

// gitObject returns the id of the object name (REV^{tree}, TREE:PATH)
// names in the repository around dir, or "" when there is none. The name
// never starts with '-', and git is told that no option follows.
func gitObject(dir, name string) (string, error) {
	out, err := git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", name)
	var ge *gitError
	if errors.As(err, &ge) && ge.code == 1 {
		return "", nil // --quiet: no such object, said by the exit code alone
	}
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(out))
	if id == "" || strings.HasPrefix(id, "-") {
		return "", fmt.Errorf("git rev-parse %s: unexpected answer %q", name, id)
	}
	return id, nil
}

// ReadAt reads path as it is at rev in the repository around dir: its
// bytes, or absent set when the revision has no file there. The path is
// from the top of the repository, or from dir when it starts with ./ or
// ../, as in git show REV:PATH. A revision that is not one, a path that is
// a directory, a file over limit bytes (when limit > 0) and git failing
// (an object missing from the repository too) are errors naming the
// revision and the path.
func ReadAt(dir, rev, path string, limit int64) (b []byte, absent bool, err error) {
	if err := checkRevision(rev); err != nil {
		return nil, false, err
	}
	if path == "" || strings.ContainsAny(path, "\n\r\x00") {
		return nil, false, fmt.Errorf("%s:%s: give the path of a file after the colon, on one line", rev, path)
	}
	tree, err := gitObject(dir, rev+"^{tree}")
	if err != nil || tree == "" {
		if err == nil {
			where := "at " + dir
			if dir == "." {
				where = "of the current directory"
			}
			err = fmt.Errorf("no revision %q in the git repository %s", rev, where)
		}
		return nil, false, err
	}
	// The tree names its entries without reading them: a path it lacks
	// is absent, an entry whose object cannot be read is an error.
	id, err := gitObject(dir, tree+":"+path)
	if err != nil || id == "" {
		return nil, err == nil, err
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(id + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("git cat-file: %v", err)
	}
	b, err = readBatch(bufio.NewReader(out), rev, path, limit)
	if err != nil {
		cmd.Process.Kill()
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		err = fmt.Errorf("git cat-file %s:%s: %s", rev, path, msg)
	}
	return b, false, err
}

// readBatch reads git cat-file --batch's answer for one object: a header,
// "ID TYPE SIZE" or "ID missing", then SIZE bytes.
func readBatch(r *bufio.Reader, rev, path string, limit int64) ([]byte, error) {
	where := rev + ":" + path
	header, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file %s: no answer (%v)", where, err)
	}
	f := strings.Fields(header)
	switch {
	case len(f) == 2 && f[1] == "missing":
		return nil, fmt.Errorf("%s: the object %s is missing from the git repository (a partial or damaged clone?)", where, f[0])
	case len(f) != 3:
		return nil, fmt.Errorf("git cat-file %s: unexpected answer %q", where, strings.TrimSpace(header))
	case f[1] != "blob":
		return nil, fmt.Errorf("%s is a %s at %s, not a file", path, f[1], rev)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	switch {
	case err != nil || size < 0:
		return nil, fmt.Errorf("git cat-file %s: unexpected size %q", where, f[2])
	case limit > 0 && size > limit:
		return nil, fmt.Errorf("%s is %d bytes, larger than the limit of %d bytes; give a larger --max-file-size to read it", where, size, limit)
	}
	b := make([]byte, size)
	if n, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("git cat-file %s: %d of %d bytes read (%v)", where, n, size, err)
	}
	return b, nil
}

// ReadAgainst reads the file at path as it is at the revision spec names
// (gramc diff --against): ".git#ref=REF" (or branch=, tag=; the part
// before # is the repository) or a plain revision. The file it returns is
// named REV:PATH, PATH from the top of the repository. When the revision
// has no such file, its text is empty and absent is set: everything in the
// file is new.
func ReadAgainst(spec, path string, limit int64) (f *diag.File, absent bool, err error) {
	repo, rev, err := parseAgainst(spec)
	if err != nil {
		return nil, false, err
	}
	if err := checkRevision(rev); err != nil {
		return nil, false, fmt.Errorf("--against %s: %v", spec, err)
	}
	out, err := git(repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, false, err
	}
	top := strings.TrimSpace(string(out))
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, false, fmt.Errorf("%s is not in the git repository %s", path, top)
	}
	rel = filepath.ToSlash(rel)
	b, absent, err := ReadAt(top, rev, rel, limit)
	if err != nil {
		return nil, false, err
	}
	return diag.NewFile(rev+":"+rel, b), absent, nil
}

// parseAgainst returns the repository and the revision of --against.
func parseAgainst(spec string) (repo, rev string, err error) {
	r, frag, ok := strings.Cut(spec, "#")
	if !ok {
		return ".", spec, nil
	}
	for _, kv := range strings.Split(frag, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "ref", "branch", "tag":
			rev = v
		default:
			return "", "", fmt.Errorf("--against %s: unknown key %q (want ref=, branch= or tag=)", spec, k)
		}
	}
	if rev == "" {
		return "", "", fmt.Errorf("--against %s: no revision (write .git#ref=main)", spec)
	}
	if filepath.Base(r) == ".git" {
		r = filepath.Dir(r)
	}
	return r, rev, nil
}
