//go:build !windows

package main

import (
	"bytes"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// adversarialEnv turns on the slow fault loops (docs/ADVERSARIAL.md); the
// scripts see it as the [adversarial] condition.
const adversarialEnv = "GIT_SCRIBE_ADVERSARIAL"

// cmdKillLoop runs `git scribe ARGS…` RUNS times, killing each run (git and
// scribe, the whole process group) with SIGKILL after a random 0–MAXMS ms,
// and after every kill runs the same command once more to completion: that
// one must exit 0 within 20 s (a dead holder's lock is taken over at once,
// not after its two-minute expiry). GIT_SCRIBE_ADVERSARIAL_RUNS overrides
// RUNS.
//
//	killloop RUNS MAXMS ARGS...
func cmdKillLoop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: killloop RUNS MAXMS ARGS...")
	}
	runs, err := strconv.Atoi(args[0])
	ts.Check(err)
	if n, err := strconv.Atoi(os.Getenv(adversarialEnv + "_RUNS")); err == nil && n > 0 {
		runs = n
	}
	maxMS, err := strconv.Atoi(args[1])
	ts.Check(err)
	scribe := append([]string{"scribe"}, args[2:]...)
	env := []string{}
	for _, k := range passEnv {
		env = append(env, k+"="+ts.Getenv(k))
	}
	for k := range gitEnv {
		env = append(env, k+"="+ts.Getenv(k))
	}
	command := func() *exec.Cmd {
		c := exec.Command("git", scribe...)
		c.Dir = ts.MkAbs(".")
		c.Env = env
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return c
	}
	var slowest time.Duration
	for i := 0; i < runs; i++ {
		c := command()
		ts.Check(c.Start())
		time.Sleep(time.Duration(mrand.IntN(maxMS+1)) * time.Millisecond)
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()

		c = command()
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		ts.Check(c.Start())
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		start := time.Now()
		select {
		case err := <-done:
			if err != nil {
				ts.Fatalf("run %d: git %v after a kill: %v\n%s", i, scribe, err, out.String())
			}
		case <-time.After(20 * time.Second):
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			ts.Fatalf("run %d: git %v after a kill still runs after 20s\n%s", i, scribe, out.String())
		}
		slowest = max(slowest, time.Since(start))
	}
	ts.Logf("%d kills; every following run exited 0, the slowest in %v", runs, slowest.Round(time.Millisecond))
	fmt.Fprintf(ts.Stdout(), "killloop: %d kills\n", runs)
}
