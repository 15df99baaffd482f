package pgtest_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gramlang/gram/internal/pgtest"
)

// TestStart starts a server, finds it listening on its port and its
// socket in its directory, and finds its files removed after the test.
func TestStart(t *testing.T) {
	var dir string
	t.Run("server", func(t *testing.T) {
		s := pgtest.Start(t)
		dir = s.Dir
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.Port))
		if err != nil {
			t.Fatalf("the server does not listen on its port: %v", err)
		}
		c.Close()
		if _, err := os.Stat(filepath.Join(s.Dir, ".s.PGSQL."+strconv.Itoa(s.Port))); err != nil {
			t.Errorf("no unix socket in the server's directory: %v", err)
		}
	})
	if dir == "" {
		return // skipped
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the server's directory %s is left after the test (%v)", dir, err)
	}
}
