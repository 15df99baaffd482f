package contract

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository in a temporary directory with one commit of
// the files, and returns its directory.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files"}} {
		if _, err := git(dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReadAt reads files at a revision: a file, an empty one, a file
// the revision lacks (absent, no error), and the errors, each naming what
// is wrong: a revision git would take for an option, one that is not, a
// directory, a file over the limit, and an object missing from a damaged
// repository, which is not taken for a file the revision lacks.
func TestReadAt(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.gram": "{ kind: \"agents\" }\n", "empty.gram": "", "sub/b.gram": "b", "gone.gram": "gone"})
	read := func(rev, path string, limit int64) (string, bool, string) {
		b, absent, err := ReadAt(dir, rev, path, limit)
		if err != nil {
			return string(b), absent, err.Error()
		}
		return string(b), absent, ""
	}
	for _, c := range []struct {
		rev, path, want string
		absent          bool
		err             string
	}{
		{rev: "main", path: "a.gram", want: "{ kind: \"agents\" }\n"},
		{rev: "HEAD", path: "sub/b.gram", want: "b"},
		{rev: "main", path: "empty.gram"},
		{rev: "main", path: "nope.gram", absent: true},
		{rev: "--output=out.txt", path: "a.gram", err: `revision "--output=out.txt" starts with '-', which git would read as an option`},
		{rev: "", path: "a.gram", err: "no revision: write REV:PATH with a revision"},
		{rev: "nope", path: "a.gram", err: `no revision "nope" in the git repository at ` + dir},
		{rev: "main", path: "sub", err: "sub is a tree at main, not a file"},
		{rev: "main", path: "", err: "main:: give the path of a file after the colon"},
	} {
		got, absent, err := read(c.rev, c.path, 0)
		if got != c.want || absent != c.absent || !strings.Contains(err, c.err) || (c.err == "") != (err == "") {
			t.Errorf("%s:%s: got %q, absent %v, error %q; want %q, absent %v, error %q", c.rev, c.path, got, absent, err, c.want, c.absent, c.err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt:a.gram")); err == nil {
		t.Error("git wrote out.txt:a.gram: the revision reached it as an option")
	}
	if _, _, err := read("main", "a.gram", 5); !strings.Contains(err, "main:a.gram is 19 bytes, larger than the limit of 5 bytes") {
		t.Errorf("over the limit: error %q", err)
	}
	// Damage the repository: the tree still names gone.gram, whose
	// contents are gone.
	id, err := git(dir, "rev-parse", "main:gone.gram")
	if err != nil {
		t.Fatal(err)
	}
	hex := strings.TrimSpace(string(id))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", hex[:2], hex[2:])); err != nil {
		t.Fatal(err)
	}
	if _, absent, err := read("main", "gone.gram", 0); absent || !strings.Contains(err, "main:gone.gram: the object "+hex+" is missing from the git repository") {
		t.Errorf("object missing: absent %v, error %q", absent, err)
	}
}
