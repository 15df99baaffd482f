// Package pgtest starts a throwaway PostgreSQL server for tests: a fresh
// data directory in a temporary directory, its unix socket there too, a
// free TCP port on 127.0.0.1, trust authentication, stopped and removed
// when the test ends.
//
// # Entry points
//
//   - [Start] starts a server for a test and returns its [Server] (a
//     postgres:// URL to connect to). When PostgreSQL is not installed the
//     test is skipped, or fails when the environment variable CI is
//     "true"; `make postgres-deps` installs it (Debian's postgresql
//     package).
//   - [Binaries] finds initdb, pg_ctl and postgres.
//
// initdb and postgres refuse to run as root: a test run as root starts
// them as the user postgres when it exists, or nobody, and gives that user
// the temporary directory.
package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is a running PostgreSQL server.
type Server struct {
	// URL connects to the database postgres as the superuser postgres
	// over TCP, without a password: postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable.
	URL string
	// Port is the server's TCP port on 127.0.0.1.
	Port int
	// Dir is the temporary directory: the data directory (Dir/data), the
	// unix socket and the server's log (Dir/postgres.log).
	Dir string
}

// Binaries returns the directory holding initdb, pg_ctl and postgres: the
// newest /usr/lib/postgresql/VERSION/bin (Debian's layout), or the
// directory of initdb on PATH; "" when PostgreSQL is not installed.
func Binaries() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "pg_ctl")) {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if isExec(filepath.Join(d, "pg_ctl")) {
			return d
		}
	}
	return ""
}

// version is the major version in a path /usr/lib/postgresql/VERSION/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Start starts a PostgreSQL server for the test and stops it, removing its
// files, when the test ends. Without PostgreSQL the test is skipped, or
// fails when CI is "true".
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := Binaries()
	if bin == "" {
		msg := "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH); run make postgres-deps"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	as, err := runAs()
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := as.own(dir); err != nil {
		tb.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if out, err := as.run(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		tb.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			tb.Fatal(err)
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories=%s -c max_connections=100", port, dir)
		logFile := filepath.Join(dir, "postgres.log")
		out, err := as.run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", logFile, "-o", opts, "-w", "-t", "60", "start")
		if err != nil {
			log, _ := os.ReadFile(logFile)
			lastErr = fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log)
			continue
		}
		tb.Cleanup(func() {
			if out, err := as.run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"); err != nil {
				tb.Logf("pgtest: pg_ctl stop: %v\n%s", err, out)
			}
		})
		return &Server{
			URL:  fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port),
			Port: port,
			Dir:  dir,
		}
	}
	tb.Fatal(lastErr)
	return nil
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// account is the user the server runs as: the current one, or, for root,
// an unprivileged one.
type account struct {
	uid, gid int
	root     bool // the current user is root: commands run as uid, gid
}

// runAs picks the account the server runs as.
func runAs() (account, error) {
	if os.Geteuid() != 0 {
		return account{}, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 == nil && err2 == nil {
			return account{uid: uid, gid: gid, root: true}, nil
		}
	}
	return account{}, fmt.Errorf("pgtest: running as root, and neither the user postgres nor nobody exists to run PostgreSQL as (initdb refuses root); create one, e.g. useradd postgres")
}

// own gives dir to the account.
func (a account) own(dir string) error {
	if !a.root {
		return nil
	}
	return os.Chown(dir, a.uid, a.gid)
}

// run runs a command as the account and returns its output.
func (a account) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if a.root {
		setCredential(cmd, a.uid, a.gid)
		cmd.Dir = "/"
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return strings.TrimSpace(out.String()), err
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		return strings.TrimSpace(out.String()), fmt.Errorf("%s did not finish in 3 minutes", filepath.Base(name))
	}
}
