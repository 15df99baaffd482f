//go:build unix

package pgtest

import (
	"os/exec"
	"syscall"
)

// setCredential makes cmd run as uid and gid.
func setCredential(cmd *exec.Cmd, uid, gid int) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}
