//go:build unix

// Process groups for exec tools on Unix: the shell and everything it starts
// are killed together when the tool times out.

package runtime

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd start its own process group and be cancelled by
// killing the whole group.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
