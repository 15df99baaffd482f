//go:build !unix

// Exec tools elsewhere than Unix: only the shell is killed on timeout.

package runtime

import "os/exec"

// killGroup does nothing: the default cancellation kills the shell.
func killGroup(cmd *exec.Cmd) {}
