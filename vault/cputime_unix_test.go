//go:build unix

package vault

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far: benchmarks report
// it per op next to wall time, which a loaded machine inflates.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
