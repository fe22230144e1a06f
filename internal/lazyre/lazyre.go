// Package lazyre compiles regular expressions on first use instead of at
// package init: every git-scribe command starts the whole binary, and
// compiling some sixty patterns it may never use cost ~1.8 ms of start-up.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a func that compiles expr once, on its first call (and panics
// there if expr is invalid, as regexp.MustCompile does; tests catch it).
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
