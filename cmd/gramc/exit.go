package main

// How commands end: a command returns nil when it succeeds, or an error;
// Main prints its message, if it has one, and turns it into the exit
// code, once (see message and codeOf).

import (
	"errors"
	"fmt"

	"github.com/gramlang/gram/binding"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	// exitConfig is the exit code of configuration errors (a missing API
	// key, no base URL for the provider).
	exitConfig = 3
	// exitInterrupted is the exit code after Ctrl-C (128 + SIGINT), as
	// shells report it.
	exitInterrupted = 130
)

// A command ends with a [binding.Error], whose kind is the exit code. Its
// message, when it has one, is printed on standard error by Main; without
// one the command has already said what went wrong (diagnostics, a report,
// a usage text).

// errHelp ends a command that printed its help on request: exit code 0.
var errHelp error = &binding.Error{Kind: exitOK}

// fail returns the error that prints the message (a line, or lines) and
// ends the command with code.
func fail(code int, format string, a ...any) error {
	return &binding.Error{Kind: binding.Kind(code), Msg: fmt.Sprintf(format, a...)}
}

// exitWith returns the error that ends the command with code, the problem
// having been reported already; nil for exitOK.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &binding.Error{Kind: binding.Kind(code)}
}

// usageError returns the error of a usage problem of command cmd ("gramc
// schema"): the message prefixed with the command, exit code 2.
func usageError(cmd, format string, a ...any) error {
	return fail(exitUsage, cmd+": "+format, a...)
}

// codeOf returns the exit code of err: 0 for nil, the kind of a
// [binding.Error], 2 for any other error (an I/O error nobody wrapped).
func codeOf(err error) int {
	if err == nil {
		return exitOK
	}
	var be *binding.Error
	if errors.As(err, &be) {
		return int(be.Kind)
	}
	return exitUsage
}

// message returns what Main prints for err, or "".
func message(err error) string {
	var be *binding.Error
	if errors.As(err, &be) {
		return be.Msg
	}
	if err == nil {
		return ""
	}
	return "gramc: " + err.Error()
}
