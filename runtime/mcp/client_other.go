//go:build !unix

// MCP server processes elsewhere than Unix: no process groups.

package mcp

import "os/exec"

// newProcessGroup does nothing.
func newProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the process if it is still running.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.ProcessState == nil {
		_ = cmd.Process.Kill()
	}
}
