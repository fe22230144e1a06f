package gitops

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// FaultKillAtEnv is a test-only fault injection (docs/ADVERSARIAL.md): set
// to N, the process kills itself with SIGKILL right after the Nth step of
// the command has finished. A step is a git process (the git runner) or a
// file scribe writes atomically (WriteFileAtomic: a work-tree file of a
// branch write, the intent record, a queue record, the view). Unset or not
// a positive number, it costs one integer comparison per step.
//
// The steps of a command are numbered in the order they finish; only the
// reads a command runs side by side (ReadChanges) finish in varying order,
// so a kill point between two writes is the same in every run. With
// GIT_SCRIBE_TRACE set every step is printed with its number, which is how
// a test counts them.
const FaultKillAtEnv = "GIT_SCRIBE_FAULT_KILL_AT"

// faultKillAt is FaultKillAtEnv read once; 0 when unset.
var faultKillAt = func() int64 {
	n, err := strconv.ParseInt(os.Getenv(FaultKillAtEnv), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}()

// traceEpoch is when this process began, to the trace's nearest
// measure: its lines say when each git call started.
var traceEpoch = time.Now()

// faultSteps counts the steps this process has finished.
var faultSteps atomic.Int64

// stepDone numbers a finished step: traced when GIT_SCRIBE_TRACE is set,
// and the process is killed there when it is FaultKillAtEnv's step. what is
// the trace line's text after the number.
func stepDone(what func() string) {
	if faultKillAt == 0 && !traceGit {
		return
	}
	n := faultSteps.Add(1)
	if traceGit {
		fmt.Fprintf(os.Stderr, "git-scribe trace: #%d %s\n", n, what())
	}
	if n == faultKillAt {
		killSelf()
	}
}

// killSelf ends the process the way kill -9 does: no deferred function,
// no cleanup, no exit path runs.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill() // SIGKILL on Unix, TerminateProcess on Windows
	}
	// The signal is delivered before the kill system call returns; never
	// go on if it somehow is not.
	for {
		time.Sleep(time.Hour)
	}
}

// TraceEnd prints the trace's last line when GIT_SCRIBE_TRACE is set: the
// command's wall time and its own CPU and page faults, without its git
// processes (whose lines give theirs), to tell scribe's share from git's.
func TraceEnd() {
	if traceGit {
		fmt.Fprintf(os.Stderr, "git-scribe trace: end at %.1f ms, scribe's own %s\n",
			float64(time.Since(traceEpoch).Microseconds())/1000, selfUsage())
	}
}
