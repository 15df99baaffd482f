//go:build !unix

// Exec tools elsewhere than Unix: only the shell is killed on timeout.

package runtime

import (
	"os"
	"os/exec"
)

// killGroup does nothing: the default cancellation kills the shell.
func killGroup(cmd *exec.Cmd) {}

// stopGroup does nothing: there is no process group to stop.
func stopGroup(cmd *exec.Cmd) {}

// signalOf returns "": processes are not killed by signals here.
func signalOf(ps *os.ProcessState) string { return "" }
