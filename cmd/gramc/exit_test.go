package main

import (
	"errors"
	"fmt"
	"strings"
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
		{"usage", usageError("gramc x", "bad %q", "y"), exitUsage, "gramc x: bad \"y\"\n"},
		{"wrapped", fmt.Errorf("context: %w", fail(exitConfig, "no key")), exitConfig, "no key\n"},
		{"unexpected", errors.New("boom"), exitUsage, "gramc: boom\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		if code := exitCode(&b, c.err); code != c.code || b.String() != c.out {
			t.Errorf("%s: exit %d, printed %q; want %d, %q", c.name, code, b.String(), c.code, c.out)
		}
	}
	if exitWith(exitOK) != nil {
		t.Error("exitWith(exitOK) is not nil")
	}
}
