package main

import (
	"encoding/json"
	"fmt"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdJSONEnv implements `json-env VAR FIELD`: it sets VAR to the string
// FIELD of the JSON object on standard output (gramc run --json=final's
// run_id, to resume the run).
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: json-env VAR FIELD")
	}
	var obj map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &obj))
	v, ok := obj[args[1]].(string)
	if !ok {
		ts.Fatalf("json-env: standard output has no string %q", args[1])
	}
	ts.Setenv(args[0], fmt.Sprint(v))
}
