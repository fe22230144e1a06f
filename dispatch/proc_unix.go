//go:build !windows

package dispatch

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the child as the leader of a new process group, so that
// everything it spawns can be killed with it.
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the child's whole process group. It is also called after
// a normal exit, to reap anything the agent left running in the background.
func killGroup(c *exec.Cmd) error {
	if c.Process == nil {
		return nil
	}
	if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}
