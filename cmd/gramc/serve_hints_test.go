package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// messageFlag finds the flags a message names: --name after a blank, a
// bracket, a quote or a comma.
var messageFlag = regexp.MustCompile(`(?:^|[\s(\[,'"])--([a-z][a-z0-9-]*)`)

// TestServeMessagesNameItsFlags runs gramc serve into each error it
// reports before it serves (a missing key, an injected parameter without a
// value, bad flags, files and addresses) and checks that every --flag its
// messages and hints name is one gramc serve has: a hint never sends the
// reader to a flag of another command. The address given is taken, so a
// case that went as far as listening would fail there too.
func TestServeMessagesNameItsFlags(t *testing.T) {
	flags := helpFlags(commandHelp(t, "serve"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().String()
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"hello.gram": "[sayHello:Tool {description: \"Greets\"} | (personName::String)==>(::String)]\n" +
			"[hello:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Greet.\"} | sayHello]\n",
		"inj/who.gram": "[whoAmI:Tool {description: \"Who is signed in\"} | (user_id::String {injected: true})==>(::String)]\n" +
			"[who:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Answer.\"} | whoAmI]\n",
		"keys.json": `{"keys": [{"sha256": "nothex", "identity": "alice"}]}`,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		key  bool
		args []string
	}{
		{false, []string{"hello.gram"}},
		{true, []string{"inj/who.gram", "--tool", "whoAmI=cat"}},
		{true, []string{"inj/who.gram"}},
		{true, []string{"hello.gram", "--addr", "0.0.0.0:0"}},
		{true, []string{"hello.gram", "--addr", "nonsense"}},
		{true, []string{"hello.gram", "--claim", "user_id=sub"}},
		{true, []string{"hello.gram", "--keys", "missing.json"}},
		{true, []string{"hello.gram", "--keys", "keys.json"}},
		{true, []string{"hello.gram", "--keys-env", "GRAM_TEST_NO_SUCH_VAR"}},
		{true, []string{"hello.gram", "--jwt-issuer", "me"}},
		{true, []string{"hello.gram", "--jwt-secret-env", "GRAM_TEST_NO_SUCH_VAR"}},
		{true, []string{}},
		{true, []string{"hello.gram", "inj/who.gram"}},
		{true, []string{"./..."}},
		{true, []string{"hello.gram", "--agent", "nope"}},
		{true, []string{"hello.gram", "--tool", "sayHello"}},
		{true, []string{"hello.gram", "--inject", "nope=1"}},
		{true, []string{"hello.gram", "--bindings", "missing.gram"}},
		{true, []string{"hello.gram", "--frobnicate"}},
		{true, []string{"hello.gram", "--header", "bad"}},
		{true, []string{"hello.gram", "--max-queue", "-1"}},
		{true, []string{"hello.gram", "--timeout", "0s"}},
		{true, []string{"hello.gram", "--mcp-url", "http://127.0.0.1:1/mcp", "--mcp-timeout", "2s"}},
		{true, []string{"hello.gram", "--addr", taken}},
		{true, []string{"hello.gram", "--store", "ftp://runs"}},
		{true, []string{"hello.gram", "--store-env", "GRAM_TEST_NO_SUCH_VAR"}},
		{true, []string{"hello.gram", "--store", "runs.db", "--store-env", "GRAM_TEST_NO_SUCH_VAR"}},
	}
	named := 0
	for _, c := range cases {
		key := ""
		if c.key {
			key = "sk-test-key-0123456789"
		}
		t.Setenv("OPENAI_API_KEY", key)
		t.Setenv("OPENAI_BASE_URL", "")
		args := slices.Concat([]string{"serve"}, c.args)
		if !slices.Contains(c.args, "--addr") {
			args = append(args, "--addr", taken)
		}
		var out, errOut bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errOut); code == exitOK {
			t.Errorf("gramc %s: exit 0", strings.Join(args, " "))
		}
		msg := out.String() + errOut.String()
		for _, m := range messageFlag.FindAllStringSubmatch(msg, -1) {
			named++
			if !slices.Contains(flags, m[1]) && m[1] != "help" {
				t.Errorf("gramc %s names --%s, which gramc serve does not have:\n%s", strings.Join(args, " "), m[1], msg)
			}
		}
	}
	if named < 10 {
		t.Errorf("the messages named %d flags; the cases do not reach the hints", named)
	}
}

// TestServeInjectHint: an injected parameter without a value, in gramc
// serve, gets a hint that names every way to give it one: the callers'
// claims (keys, JWTs, --claim) as well as --inject and the bindings file.
func TestServeInjectHint(t *testing.T) {
	t.Chdir(t.TempDir())
	src := "[whoAmI:Tool {description: \"Who is signed in\"} | (user_id::String {injected: true})==>(::String)]\n" +
		"[who:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Answer.\"} | whoAmI]\n"
	if err := os.WriteFile("who.gram", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-key-0123456789")
	var out, errOut bytes.Buffer
	code := Main([]string{"serve", "who.gram", "--tool", "whoAmI=cat", "--addr", "127.0.0.1:0"}, strings.NewReader(""), &out, &errOut)
	if code != exitConfig {
		t.Fatalf("exit %d, want %d\n%s", code, exitConfig, errOut.String())
	}
	for _, want := range []string{"--keys FILE", "--keys-env VAR", "--jwt-secret-env VAR", "--jwt-key FILE", "--claim PARAM=CLAIM", "--inject NAME=VALUE", "bindings.gram"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("the hint does not name %s:\n%s", want, errOut.String())
		}
	}
}

// TestServeStoreSecret: the password of a PostgreSQL run store, given with
// --store or --store-env, is not in what gramc serve writes when the store
// cannot be used.
func TestServeStoreSecret(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("hello.gram", []byte("[hello:Agent {model: \"OpenAI/gpt-4o-mini\", instruction: \"Greet.\"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-key-0123456789")
	const secret = "pw-Store-Secret-4711"
	t.Setenv("GRAM_TEST_STORE", "postgres://gram:"+secret+"@127.0.0.1:5432")
	for _, args := range [][]string{
		{"--store", "postgres://gram:" + secret + "@/runs"},
		{"--store-env", "GRAM_TEST_STORE"},
	} {
		var out, errOut bytes.Buffer
		code := Main(slices.Concat([]string{"serve", "hello.gram", "--addr", "127.0.0.1:0"}, args), strings.NewReader(""), &out, &errOut)
		msg := out.String() + errOut.String()
		if code == exitOK || !strings.Contains(msg, "the run store") || !strings.Contains(msg, "names no") {
			t.Errorf("%v: exit %d\n%s", args, code, msg)
		}
		if strings.Contains(msg, secret) {
			t.Errorf("%v: the password is in the output:\n%s", args, msg)
		}
	}
}
