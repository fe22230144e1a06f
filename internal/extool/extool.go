// Package extool finds, or installs for the tests that need them, the
// ecosystem's own tools that check git-scribe's output (markdownlint-cli2,
// the SARIF Multitool, @actions/core, mandoc): the real tool, not a copy of
// its rules. It is for tests only and never used by the git-scribe binary.
package extool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// installTimeout bounds one npm install; a slow or offline registry skips
// the test instead of stalling the suite.
const installTimeout = 3 * time.Minute

var mu sync.Mutex

// Dir is where npm packages are installed for tests: $GIT_SCRIBE_TOOLS_DIR,
// else the user cache directory. Installs are reused across runs.
func Dir() string {
	if d := os.Getenv("GIT_SCRIBE_TOOLS_DIR"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "git-scribe-tests")
}

// NPM returns the node_modules directory holding pkg@version, installing it
// with npm into Dir() when it is not there yet; it skips t, saying why and
// how to install by hand, when that cannot be done (no npm, offline).
func NPM(t testing.TB, pkg, version string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	prefix := filepath.Join(Dir(), "npm", strings.NewReplacer("/", "+", "@", "").Replace(pkg)+"-"+version)
	modules := filepath.Join(prefix, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, filepath.FromSlash(pkg), "package.json")); err == nil {
		return modules
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("%s is not installed and npm is not on PATH to install it (npm install --prefix %s %s@%s)", pkg, prefix, pkg, version)
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Skipf("cannot create %s to install %s: %v", prefix, pkg, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, pkg+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot install %s@%s with npm (offline?): %v\n%s", pkg, version, err, lastLines(string(out), 5))
	}
	return modules
}

// Bin returns the path of an npm package's executable, installing the
// package as NPM does.
func Bin(t testing.TB, pkg, version, bin string) string {
	t.Helper()
	p := filepath.Join(NPM(t, pkg, version), ".bin", bin)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s@%s has no %s executable: %v", pkg, version, bin, err)
	}
	return p
}

// Program returns the path of a program on PATH or skips t naming the
// package that provides it.
func Program(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (%s)", name, install)
	}
	return p
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// GoTool returns the path of a Go program (module@version, package path),
// installing it with `go install` into Dir() when it is not there yet; it
// skips t, saying why, when that cannot be done (no module proxy).
func GoTool(t testing.TB, pkg, version string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	bin := filepath.Join(Dir(), "go", strings.NewReplacer("/", "+").Replace(pkg)+"-"+version)
	exe := filepath.Join(bin, filepath.Base(pkg))
	if _, err := os.Stat(exe); err == nil {
		return exe
	}
	goExe, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("%s is not installed and go is not on PATH to install it (GOBIN=%s go install %s@%s)", pkg, bin, pkg, version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goExe, "install", pkg+"@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot install %s@%s with go install (offline?): %v\n%s", pkg, version, err, lastLines(string(out), 5))
	}
	return exe
}
