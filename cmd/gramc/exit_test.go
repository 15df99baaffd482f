package main

import (
	"errors"
	"fmt"
	"testing"
)

// TestExitCode: Main's one conversion of a command's error prints the
// message, if there is one, and returns the code the error carries.
func TestExitCode(t *testing.T) {
	cases := []struct {
		name string
		err  error
		code int
		out  string
	}{
		{"success", nil, exitOK, ""},
		{"help", errHelp, exitOK, ""},
		{"reported already", exitWith(exitError), exitError, ""},
		{"usage", usageError("gramc x", "bad %q", "y"), exitUsage, "gramc x: bad \"y\""},
		{"wrapped", fmt.Errorf("context: %w", fail(exitConfig, "no key")), exitConfig, "no key"},
		{"unexpected", errors.New("boom"), exitUsage, "gramc: boom"},
	}
	for _, c := range cases {
		if code, msg := codeOf(c.err), message(c.err); code != c.code || msg != c.out {
			t.Errorf("%s: exit %d, message %q; want %d, %q", c.name, code, msg, c.code, c.out)
		}
	}
	if exitWith(exitOK) != nil {
		t.Error("exitWith(exitOK) is not nil")
	}
}
