//go:build unix

// Process groups for exec tools on Unix: the shell and everything it starts
// are killed together when the tool times out.

package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// killGroup makes cmd start its own process group and be cancelled by
// killing the whole group.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// stopGroup kills what is left of the process group of cmd, which has
// exited.
func stopGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// signalOf names the signal that killed a process ("signal 9 (killed)"),
// or returns "" when no signal did.
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return ""
}
