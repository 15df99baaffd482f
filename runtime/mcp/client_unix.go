//go:build unix

// Process groups for MCP servers on Unix: the server starts in its own
// group, so that Ctrl-C at a terminal reaches this program alone (which
// then closes the session cleanly), and whatever the shell started can be
// killed together.

package mcp

import (
	"os/exec"
	"syscall"
)

// newProcessGroup makes cmd start its own process group.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills what is left of the process group cmd started.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
