package main

// The testscript commands and condition of the gramc serve scripts, and
// where the npm packages of the interoperability tests are.

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rogpeppe/go-internal/testscript"
)

// serveNodeDir is where the npm packages the gramc serve tests run (the
// openai library, LangChain, the Vercel AI SDK, the OpenAPI validator)
// are installed, by `make serve-deps` at the versions pinned in its
// package-lock.json.
const serveNodeDir = "../../serve/testdata/node"

// serveNodeMissing returns what is missing to run the npm packages of the
// gramc serve tests, or "".
func serveNodeMissing() string {
	var missing []string
	if _, err := exec.LookPath("node"); err != nil {
		missing = append(missing, "node (Node.js 20 or later)")
	}
	for _, f := range []string{"node_modules/openai/package.json", "node_modules/@seriousme/openapi-schema-validator/package.json",
		"node_modules/@langchain/openai/package.json", "node_modules/ai/package.json", "node_modules/@ai-sdk/openai/package.json"} {
		if _, err := os.Stat(filepath.Join(serveNodeDir, f)); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "the npm packages of the gramc serve tests are not installed (missing " + strings.Join(missing, ", ") +
		"): run `make serve-deps` (npm ci in serve/testdata/node)"
}

// serveNode returns the absolute path of the npm packages' directory, or
// skips the test when they are missing (fails it in CI, CI=true).
func serveNode(t *testing.T) string {
	t.Helper()
	if msg := serveNodeMissing(); msg != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir, err := filepath.Abs(serveNodeDir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// serveNodeCondition is the script condition [serve-node]: the npm
// packages are installed. In CI (CI=true) their absence is an error.
func serveNodeCondition() (bool, error) {
	msg := serveNodeMissing()
	if msg != "" && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("%s", msg)
	}
	return msg == "", nil
}

// cmdFreePort implements `free-port`: it sets PORT to a TCP port of
// 127.0.0.1 that is free now.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: free-port")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(ln.Close())
	ts.Setenv("PORT", fmt.Sprint(port))
}

// cmdJWT implements `jwt VAR SECRET SUB [AUDIENCE]`: it sets VAR to a
// JWT signed with HS256 and SECRET, for the subject SUB (and the
// audience), that expires in an hour.
func cmdJWT(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: jwt VAR SECRET SUB [AUDIENCE]")
	}
	claims := jwt.MapClaims{"sub": args[2], "exp": time.Now().Add(time.Hour).Unix()}
	if len(args) == 4 {
		claims["aud"] = args[3]
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(args[1]))
	ts.Check(err)
	ts.Setenv(args[0], token)
}

// cmdWaitHTTP implements `wait-http URL`: it waits up to 30 seconds for
// URL to answer 200.
func cmdWaitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wait-http URL")
	}
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(args[0])
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("wait-http: %s did not answer 200 within 30s (last: %v)", args[0], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
