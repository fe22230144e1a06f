// Command git-scribe is the persistence layer for AI coding sessions; git runs
// it as `git scribe …`.
package main

import (
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/git-scribe/git-scribe/cmd"
)

func main() {
	// A command lives for milliseconds and allocates a few MB: collecting
	// at the runtime's default (a heap of 4 MB) spent ~1.5 ms of a wrap's
	// CPU on one collection it never needed. GOGC, when set, still rules.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// GIT_SCRIBE_CPUPROFILE=FILE writes a CPU profile of the command (for
	// `go tool pprof`; docs/BENCHMARKS.md says where the time goes).
	if path := os.Getenv("GIT_SCRIBE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				code := cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(code)
			}
		}
	}
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
