//go:build windows

package gitops

import "os/exec"

// ownGroup: Windows has no process groups to kill; cancelling kills git
// itself and WaitDelay stops waiting for what it started.
func ownGroup(*exec.Cmd) {}
