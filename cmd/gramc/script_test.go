package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gramlang/gram/format/inplace"
	"github.com/gramlang/gram/internal/mcptest"
	"github.com/gramlang/gram/project"
	"github.com/gramlang/gram/schema"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the expected files of the scripts")

// TestMain lets the test binary run as gramc inside the scripts.
func TestMain(m *testing.M) {
	// Tests that need gramc as a process of its own (to signal it) run the
	// test binary with this variable set.
	if os.Getenv("GRAMC_TEST_AS_GRAMC") == "1" {
		pause := func() {
			fmt.Fprintln(os.Stderr, "test: half written")
			time.Sleep(300 * time.Millisecond)
		}
		switch os.Getenv("GRAMC_TEST_PAUSE_MID_WRITE") {
		case "1":
			inplace.MidWrite = pause
		case "backup":
			inplace.MidBackup = pause
		}
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testscript.Main(m, map[string]func(){
		"gramc":           func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"mcp-demo-server": func() { os.Exit(mcptest.Main(os.Args[1:], os.Stderr)) },
		"mcp-hostile-server": func() {
			os.Exit(mcptest.Hostile(strings.Join(os.Args[1:], " "), os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScript runs the scripts in testdata/script: each runs gramc commands in
// a fresh directory and checks their output and exit codes. Besides the
// standard commands, `status N command args...` runs a command and checks
// that it exits with status N, `fake-openai [-cycle] [-key KEY] FILE` starts
// an in-process OpenAI-compatible server (see cmdFakeOpenAI; with -key it
// refuses the requests without "Authorization: Bearer KEY"), `openai-requests N`
// checks that it received N requests, `free-port` sets PORT to a free port,
// `mcp-http-server HEADER VALUE` serves the task server over HTTP to the
// requests with that header (see cmdMCPHTTPServer), `wait-http URL` waits
// for URL to answer 200 and `jwt VAR SECRET SUB` sets VAR to a signed JWT;
// the condition [serve-node] says that the npm packages of the gramc serve
// tests are installed ($SERVE_NODE is their directory).
// `go test ./cmd/gramc -update` rewrites the files that cmp compares with.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			dir, err := filepath.Abs(serveNodeDir)
			env.Setenv("SERVE_NODE", dir)
			return err
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "serve-node":
				return serveNodeCondition()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status":             cmdStatus,
			"jsonlines":          cmdJSONLines,
			"fake-openai":        cmdFakeOpenAI,
			"fake-anthropic":     cmdFakeAnthropic,
			"anthropic-requests": cmdAnthropicRequests,
			"fake-gemini":        cmdFakeGemini,
			"gemini-requests":    cmdGeminiRequests,
			"openai-requests":    cmdOpenAIRequests,
			"mcp-hostile-http":   cmdMCPHostileHTTP,
			"mcp-http-server":    cmdMCPHTTPServer,
			"free-port":          cmdFreePort,
			"wait-http":          cmdWaitHTTP,
			"jwt":                cmdJWT,
			"json-env":           cmdJSONEnv,
		},
	})
}

// cmdJSONLines implements `jsonlines N`: standard output is N lines, each
// one JSON object.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: jsonlines N")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("jsonlines: bad count %q", args[0])
	}
	out := ts.ReadFile("stdout")
	if !strings.HasSuffix(out, "\n") {
		ts.Fatalf("jsonlines: output does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		lines = nil
	}
	if len(lines) != want {
		ts.Fatalf("jsonlines: %d lines, want %d", len(lines), want)
	}
	for i, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			ts.Fatalf("jsonlines: line %d is not a JSON object: %v", i+1, err)
		}
	}
}

// cmdMCPHostileHTTP implements `mcp-hostile-http MODE`: it starts a
// streamable HTTP server that misbehaves as MODE says
// (mcptest.HostileHTTP), and sets MCP_HOSTILE_URL to its address.
func cmdMCPHostileHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || !slices.Contains(mcptest.HostileModes, args[0]) {
		ts.Fatalf("usage: mcp-hostile-http MODE (one of %s)", strings.Join(mcptest.HostileModes, ", "))
	}
	srv := httptest.NewServer(mcptest.HostileHTTP(args[0]))
	ts.Defer(srv.Close)
	ts.Setenv("MCP_HOSTILE_URL", srv.URL)
}

// cmdStatus implements `status N command args...`.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("status: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// TestSchemaOutputIsValid runs `gramc schema` on every example in every
// format, strict and not, and checks that each schema printed is valid JSON
// Schema draft 2020-12.
func TestSchemaOutputIsValid(t *testing.T) {
	meta, err := jsonschema.NewCompiler().Compile(schema.Draft2020)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../examples/*.gram")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.gram") || filepath.Base(file) == project.BindingsFile {
			continue // tests, checked by TestExampleTests; bindings, which declare no tools
		}
		for _, format := range schema.Formats {
			for _, strict := range []string{"--strict=false", "--strict"} {
				var out, errOut bytes.Buffer
				code := Main([]string{"schema", "--format", string(format), strict, file}, nil, &out, &errOut)
				if code != exitOK {
					t.Fatalf("%s %s %s: exit %d: %s", file, format, strict, code, errOut.String())
				}
				doc, err := jsonschema.UnmarshalJSON(&out)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, item := range doc.([]any) {
					m := item.(map[string]any)
					var schemas []any
					switch format {
					case schema.FormatOpenAI:
						schemas = append(schemas, m["function"].(map[string]any)["parameters"])
					case schema.FormatMCP:
						schemas = append(schemas, m["inputSchema"], m["outputSchema"])
					case schema.FormatToolSpec:
						schemas = append(schemas, m["schema"])
					default:
						schemas = append(schemas, m)
					}
					for _, s := range schemas {
						if err := meta.Validate(s); err != nil {
							t.Errorf("%s %s %s: invalid schema: %v", file, format, strict, err)
						}
						n++
					}
				}
				if n == 0 {
					t.Errorf("%s %s: no schemas", file, format)
				}
			}
		}
	}
}

// TestSARIF checks the shape of a SARIF log: what code-scanning UIs need.
func TestSARIF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.gram")
	src := "[t:Tool {description: \"T\", colour: 1} | (p::Strnig)==>(::String)]\n[t2:Tool | ()==>(::String)]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := Main([]string{"check", "--format", "sarif", path}, nil, &out, io.Discard); code != exitError {
		t.Fatalf("exit %d", code)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine, StartColumn, EndLine, EndColumn int
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "gramc" {
		t.Fatalf("bad log header: %s", out.String())
	}
	run := log.Runs[0]
	got := map[string]string{}
	for _, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s has rule index %d", r.RuleID, r.RuleIndex)
		}
		if len(r.Locations) != 1 || r.Message.Text == "" {
			t.Errorf("result %s: %d locations, message %q", r.RuleID, len(r.Locations), r.Message.Text)
			continue
		}
		l := r.Locations[0].PhysicalLocation
		if !strings.HasPrefix(l.ArtifactLocation.URI, "file:///") || !strings.HasSuffix(l.ArtifactLocation.URI, "/bad.gram") {
			t.Errorf("result %s: uri %q", r.RuleID, l.ArtifactLocation.URI)
		}
		got[r.RuleID] = fmt.Sprintf("%s %d:%d-%d:%d", r.Level, l.Region.StartLine, l.Region.StartColumn, l.Region.EndLine, l.Region.EndColumn)
	}
	want := map[string]string{
		"unknown-property":    "warning 1:28-1:34",
		"unknown-type":        "error 1:45-1:51",
		"missing-description": "error 2:2-2:4",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}
