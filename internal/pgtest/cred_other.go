//go:build !unix

package pgtest

import "os/exec"

// setCredential does nothing where processes cannot change user.
func setCredential(cmd *exec.Cmd, uid, gid int) {}
