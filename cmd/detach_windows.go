//go:build windows

package cmd

import (
	"os/exec"
	"syscall"
)

// detach starts the child without a console tie to the caller.
func detach(c *exec.Cmd) {
	const detachedProcess = 0x00000008
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP}
}
