package gitops

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// bootIdentity names this boot of this kernel and the pid namespace pids
// are counted in: two holders with the same identity share one pid space,
// so one can tell whether the other's process is still running. "" when it
// cannot be read.
func bootIdentity() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + " " + ns
}

// processStart returns the start time of process pid (field 22 of
// /proc/<pid>/stat, clock ticks since boot) and whether it is still running
// (not a zombie). gone is true only when the process provably does not
// exist; an unreadable /proc gives err.
func processStart(pid int) (start uint64, running, gone bool, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, true, nil
	}
	if err != nil {
		return 0, false, false, err
	}
	// The command name (field 2) is in parentheses and may hold anything,
	// spaces and ")" included: the fields after it start at the last ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false, false, errors.New("malformed stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false, false, errors.New("malformed stat")
	}
	start, err = strconv.ParseUint(f[19], 10, 64) // field 22: f[0] is field 3
	if err != nil {
		return 0, false, false, err
	}
	return start, f[0] != "Z" && f[0] != "X", false, nil
}
