//go:build unix

package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		}, "is owned by another user (uid 4321)"},
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
			want := strings.ReplaceAll(tc.want, "DIR", dir)
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
