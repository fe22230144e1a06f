//go:build !windows

package cmd

import (
	"os/exec"
	"syscall"
)

// detach starts the child in its own session so it outlives the caller.
func detach(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
