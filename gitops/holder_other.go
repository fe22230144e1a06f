//go:build !linux

package gitops

import "errors"

// bootIdentity is unknown off Linux: no holder is ever provably dead
// there, and a killed holder's lock is taken over once it expires.
func bootIdentity() string { return "" }

func processStart(int) (uint64, bool, bool, error) {
	return 0, false, false, errors.New("process start times are only read on linux")
}
