//go:build windows

package dispatch

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the child in a new process group.
func ownGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the child (Windows has no process-group kill in the
// standard library; the child's own children may outlive it).
func killGroup(c *exec.Cmd) error {
	if c.Process == nil {
		return nil
	}
	return c.Process.Kill()
}
