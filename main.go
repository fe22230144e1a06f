// Command git-scribe is the persistence layer for AI coding sessions; git runs
// it as `git scribe …`.
package main

import (
	"os"

	"github.com/git-scribe/git-scribe/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
