//go:build !windows

package gitops

import (
	"fmt"
	"syscall"
)

// selfUsage is this process's own CPU (every thread, no child) and minor
// page faults so far, for the trace's last line.
func selfUsage() string {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return ""
	}
	ms := func(t syscall.Timeval) float64 { return float64(t.Sec)*1000 + float64(t.Usec)/1000 }
	return fmt.Sprintf("cpu %.1f ms (user %.1f, system %.1f), %d page faults", ms(ru.Utime)+ms(ru.Stime), ms(ru.Utime), ms(ru.Stime), ru.Minflt)
}
