package main

import (
	"fmt"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Git servers for the sync scripts. Both serve bare repositories under a
// directory of the script's work dir on 127.0.0.1 and are stopped when the
// script ends. net/http lives here, in test code: the engine never imports it.

// serverEnv is the environment a server's git runs in: the script's PATH,
// HOME and isolated git settings.
func serverEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range passEnv {
		env = append(env, k+"="+ts.Getenv(k))
	}
	for k := range gitEnv {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

// cmdGitDaemon serves DIR with `git daemon` (push enabled) on a free port of
// 127.0.0.1 and sets $DAEMON to its git:// base URL:
//
//	gitdaemon DIR
func cmdGitDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitdaemon DIR")
	}
	base := ts.MkAbs(args[0])
	// Run git-daemon itself: `git daemon` would run it as a child that
	// killing `git` leaves behind.
	execPath, err := exec.Command("git", "--exec-path").Output()
	ts.Check(err)
	daemon := filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon")
	log, err := os.Create(ts.MkAbs("git-daemon.log"))
	ts.Check(err)
	ts.Defer(func() { log.Close() })
	for attempt := 0; attempt < 5; attempt++ {
		port := freePort(ts)
		c := exec.Command(daemon, "--export-all", "--enable=receive-pack", "--reuseaddr", "--informative-errors",
			"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+base, base)
		c.Env = serverEnv(ts)
		c.Stdout, c.Stderr = log, log
		ts.Check(c.Start())
		exited := make(chan error, 1)
		go func() { exited <- c.Wait() }()
		if waitListening(port, exited) {
			ts.Defer(func() {
				c.Process.Kill()
				<-exited
			})
			ts.Setenv("DAEMON", fmt.Sprintf("git://127.0.0.1:%d", port))
			return
		}
		c.Process.Kill() // lost the port to someone else: try another
	}
	ts.Fatalf("gitdaemon: could not start git daemon")
}

// cmdGitHTTP serves DIR over git's smart HTTP protocol (`git http-backend`
// behind a CGI handler, push enabled) and sets $HTTPGIT to its base URL:
//
//	githttp DIR
func cmdGitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: githttp DIR")
	}
	gitPath, err := exec.LookPath("git")
	ts.Check(err)
	env := append(serverEnv(ts), "GIT_PROJECT_ROOT="+ts.MkAbs(args[0]), "GIT_HTTP_EXPORT_ALL=1",
		// Anonymous pushes: http-backend refuses receive-pack without a
		// REMOTE_USER unless http.receivepack is set.
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.receivepack", "GIT_CONFIG_VALUE_0=true")
	srv := httptest.NewServer(&cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Env: env})
	ts.Defer(srv.Close)
	ts.Setenv("HTTPGIT", srv.URL)
}

func freePort(ts *testscript.TestScript) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until something accepts connections on port, or the
// server exits.
func waitListening(port int, exited chan error) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
