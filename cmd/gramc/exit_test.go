package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gramlang/gram/runtime"
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
		{"then more", also(fail(exitError, "first"), fail(exitConfig, "second")), exitError, "first\nsecond\n"},
		{"nothing more", also(fail(exitInterrupted, "stopped"), nil), exitInterrupted, "stopped\n"},
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

// TestBindHints: the hints follow the kinds of the tool errors, wherever
// they are wrapped or joined, not the words of their messages.
func TestBindHints(t *testing.T) {
	missing := &runtime.ToolError{Tool: "a", Kind: runtime.ToolMissing, Message: "gone"}
	looser := &runtime.ToolError{Tool: "b", Kind: runtime.ToolIncompatible, Message: "wide"}
	worded := &runtime.ToolError{Tool: "c", Kind: runtime.ToolFailed, Message: "is not in the tool library; the declaration is looser"}
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"none", nil, nil},
		{"missing", missing, []string{"bind a missing tool"}},
		{"wrapped in a prepare error", fmt.Errorf("agent x: %w", &runtime.PrepareError{Problems: []error{looser}}), []string{"narrow the declaration"}},
		{"joined", errors.Join(looser, fmt.Errorf("agent y: %w", missing)), []string{"bind a missing tool", "narrow the declaration"}},
		{"the words alone", worded, nil},
	}
	for _, c := range cases {
		got := bindHints(c.err)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s: hints %q, want ones with %q", c.name, got, c.want)
		}
	}
}
