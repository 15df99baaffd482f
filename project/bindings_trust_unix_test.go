//go:build unix

package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gramlang/gram/diag"
)

// TestFindBindingsTrust checks that a bindings file found in a parent
// directory is refused when another user owns it or could have written
// it, and used when the user alone could, or when TrustEnv lists it.
func TestFindBindingsTrust(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	const other = 4321
	for _, tc := range []struct {
		name  string
		setup func(dir, file string) error
		want  string // in the refusal; "" when the file is used
	}{
		{"own", func(dir, file string) error { return nil }, ""},
		{"other owner", func(dir, file string) error { return os.Chown(file, other, -1) }, "is owned by another user (uid 4321)"},
		{"writable by all", func(dir, file string) error { return os.Chmod(file, 0o666) }, "is writable by every user (mode -rw-rw-rw-)"},
		{"writable by another group", func(dir, file string) error {
			if err := os.Chown(file, -1, other); err != nil {
				return err
			}
			return os.Chmod(file, 0o664)
		}, "is writable by the group 4321"},
		{"writable by the user's own group", func(dir, file string) error { return os.Chmod(file, 0o664) }, ""},
		{"directory writable by all", func(dir, file string) error { return os.Chmod(dir, 0o777) }, "is in the directory " + "DIR" + ", which is writable by every user"},
		{"directory writable by all, sticky", func(dir, file string) error { return os.Chmod(dir, 0o777|os.ModeSticky) }, ""},
		{"directory of another user", func(dir, file string) error { return os.Chown(dir, other, -1) }, "which is owned by another user (uid 4321), who could replace it"},
		{"link to a file of another user", func(dir, file string) error {
			elsewhere := filepath.Join(filepath.Dir(dir), "elsewhere.gram")
			if err := os.Rename(file, elsewhere); err != nil {
				return err
			}
			if err := os.Chown(elsewhere, other, -1); err != nil {
				return err
			}
			return os.Symlink(elsewhere, file)
		}, "leads to ROOT/elsewhere.gram, which is owned by another user (uid 4321)"},
		// file -> ../shared/l.gram -> ../mine/b.gram: each link, and the
		// directory holding it, is checked, not only the file's.
		{"links of the user's own, through a sticky directory", func(dir, file string) error {
			return chain(dir, file, 0o777|os.ModeSticky, -1)
		}, ""},
		{"link in a directory writable by all", func(dir, file string) error {
			return chain(dir, file, 0o777, -1)
		}, "leads through the link ROOT/shared/l.gram, in the directory ROOT/shared, which is writable by every user (mode drwxrwxrwx)"},
		{"link of another user", func(dir, file string) error {
			return chain(dir, file, 0o777|os.ModeSticky, other)
		}, "leads through the link ROOT/shared/l.gram, which is owned by another user (uid 4321)"},
		{"link in a directory of another user", func(dir, file string) error {
			if err := chain(dir, file, 0o755, -1); err != nil {
				return err
			}
			return os.Chown(filepath.Join(filepath.Dir(dir), "shared"), other, -1)
		}, "leads through the link ROOT/shared/l.gram, in the directory ROOT/shared, which is owned by another user (uid 4321), who could replace it"},
		{"link to a directory of another user", func(dir, file string) error {
			// file -> ../shared/b.gram, shared -> theirs (a link of
			// the user's own, to a directory of another user).
			root := filepath.Dir(dir)
			theirs := filepath.Join(root, "theirs")
			if err := os.Mkdir(theirs, 0o755); err != nil {
				return err
			}
			if err := os.Rename(file, filepath.Join(theirs, "b.gram")); err != nil {
				return err
			}
			if err := os.Chown(theirs, other, -1); err != nil {
				return err
			}
			if err := os.Symlink("theirs", filepath.Join(root, "shared")); err != nil {
				return err
			}
			return os.Symlink("../shared/b.gram", file)
		}, "leads to ROOT/theirs/b.gram, in the directory ROOT/theirs, which is owned by another user (uid 4321), who could replace it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(TrustEnv, "")
			root := t.TempDir()
			dir := filepath.Join(root, "outer")
			proj := filepath.Join(dir, "proj")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, BindingsFile)
			if err := os.WriteFile(file, []byte("{kind: \"bindings\"}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(file, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.setup(dir, file); err != nil {
				t.Fatal(err)
			}
			got, err := FindBindings(proj)
			if tc.want == "" {
				if err != nil || got != file {
					t.Fatalf("FindBindings = %q, %v; want %s", got, err, file)
				}
				return
			}
			var ue *UntrustedError
			want := strings.NewReplacer("DIR", dir, "ROOT", root).Replace(tc.want)
			if !errors.As(err, &ue) || got != "" || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), file+" ") {
				t.Fatalf("FindBindings = %q, %v; want a refusal of %s that %s", got, err, file, want)
			}
			if !strings.Contains(err.Error(), TrustEnv) || !strings.Contains(err.Error(), "--bindings "+file) {
				t.Errorf("the refusal does not say how to trust the file: %v", err)
			}
			// Listed in TrustEnv, by the file's path or its directory's,
			// or all with "*": used.
			for _, list := range []string{"/nowhere" + string(os.PathListSeparator) + file, dir, "*"} {
				t.Setenv(TrustEnv, list)
				if got, err := FindBindings(proj); err != nil || got != file {
					t.Errorf("%s=%s: FindBindings = %q, %v; want %s", TrustEnv, list, got, err, file)
				}
			}
		})
	}
}

// chain replaces file with a link to ../shared/l.gram, itself a link
// (owned by uid, unless -1) to ../mine/b.gram, the file; shared has the
// mode mode.
func chain(dir, file string, mode os.FileMode, uid int) error {
	root := filepath.Dir(dir)
	shared, mine := filepath.Join(root, "shared"), filepath.Join(root, "mine")
	for _, d := range []string{shared, mine} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Rename(file, filepath.Join(mine, "b.gram")); err != nil {
		return err
	}
	link := filepath.Join(shared, "l.gram")
	if err := os.Symlink("../mine/b.gram", link); err != nil {
		return err
	}
	if err := os.Lchown(link, uid, -1); err != nil {
		return err
	}
	if err := os.Chmod(shared, mode); err != nil {
		return err
	}
	return os.Symlink("../shared/l.gram", file)
}

// TestLoadBindingsTrust checks that the bindings file found is checked
// again as it is read, and that the mcp.json file a bindings file names is
// held to the same rules, whether the bindings file was found or named:
// refused with an *UntrustedError that names it, the bindings file and how
// to trust it (TrustEnv), unless TrustEnv lists it.
func TestLoadBindingsTrust(t *testing.T) {
	t.Setenv(TrustEnv, "")
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}

	// A bindings file every user can write to: refused when found, read
	// when named.
	open := filepath.Join(dir, "open.gram")
	write(open, "{kind: \"bindings\"}\n", 0o666)
	var ue *UntrustedError
	if _, _, _, err := LoadBindings(open, true, 0); !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), open+" is writable by every user") {
		t.Errorf("LoadBindings of a found file writable by all: %v; want it refused", err)
	}
	if _, _, _, err := LoadBindings(open, false, 0); err != nil {
		t.Errorf("LoadBindings of a named file writable by all: %v", err)
	}

	// The user's own bindings file, naming an mcp.json file every user
	// can write to.
	vscode := filepath.Join(dir, ".vscode")
	if err := os.Mkdir(vscode, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(vscode, 0o755); err != nil {
		t.Fatal(err)
	}
	mcpJSON := filepath.Join(vscode, "mcp.json")
	write(mcpJSON, `{"servers": {"evil": {"command": "touch", "args": ["pwned"]}}}`, 0o666)
	bindings := filepath.Join(dir, BindingsFile)
	write(bindings, "{kind: \"bindings\"}\n(:MCPServers {file: \".vscode/mcp.json\"})\n", 0o644)
	refused := func(what, reason string) {
		t.Helper()
		for _, found := range []bool{true, false} {
			b, _, diags, err := LoadBindings(bindings, found, 0)
			if !errors.As(err, &ue) || ue.Path != mcpJSON || ue.NamedBy != bindings || b != nil || len(diags) != 0 {
				t.Errorf("%s (found %v): LoadBindings = %v, %v, %v; want the mcp.json file refused", what, found, b, diags, err)
				continue
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, mcpJSON+" (named by "+bindings+") "+reason) || !strings.Contains(msg, TrustEnv+"="+mcpJSON) {
				t.Errorf("%s: the refusal does not name the file, why and how to trust it: %v", what, msg)
			}
		}
	}
	refused("mcp.json writable by all", "is writable by every user (mode -rw-rw-rw-): an mcp.json file starts the programs of its servers")
	// Listing the bindings file does not trust what it names; listing the
	// mcp.json file (or its directory) does.
	t.Setenv(TrustEnv, bindings)
	refused("bindings file listed", "is writable by every user")
	for _, list := range []string{mcpJSON, vscode, "*"} {
		t.Setenv(TrustEnv, list)
		if b, _, _, err := LoadBindings(bindings, true, 0); err != nil || len(b.Servers) != 1 {
			t.Errorf("%s=%s: LoadBindings = %v, %v; want the server of the mcp.json file", TrustEnv, list, b, err)
		}
	}
	t.Setenv(TrustEnv, "")
	// gramc check only reads: the file's servers are read, whoever could
	// have written it.
	text, err := os.ReadFile(bindings)
	if err != nil {
		t.Fatal(err)
	}
	f := diag.NewFile(bindings, text)
	doc, _ := Parse(f)
	if b, diags := ParseBindingsWith(f, doc, nil); len(diags) != 0 || len(b.Servers) != 1 {
		t.Errorf("ParseBindings = %v, %v; want the server of the mcp.json file", b.Servers, diags)
	}

	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	if err := os.Chmod(mcpJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(vscode, 4321, -1); err != nil {
		t.Fatal(err)
	}
	refused("mcp.json in a directory of another user", "is in the directory "+vscode+", which is owned by another user (uid 4321), who could replace it")
	if err := os.Chown(vscode, 0, -1); err != nil {
		t.Fatal(err)
	}
	// Through a link of another user.
	if err := os.Rename(mcpJSON, filepath.Join(dir, "real.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real.json", mcpJSON); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(mcpJSON, 4321, -1); err != nil {
		t.Fatal(err)
	}
	refused("mcp.json a link of another user", "is owned by another user (uid 4321)")
}
