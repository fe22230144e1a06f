//go:build windows

package main

import "github.com/rogpeppe/go-internal/testscript"

const adversarialEnv = "GIT_SCRIBE_ADVERSARIAL"

// cmdKillLoop needs process groups; the scripts using it skip on Windows.
func cmdKillLoop(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("killloop is not supported on windows")
}
