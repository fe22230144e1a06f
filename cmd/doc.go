// Package cmd is git-scribe's command tree: flags become Options, Options go
// to a run function, results are rendered for people or as --json, and Main
// alone decides the exit code. No business logic lives here; no package
// globals, no init() registration, and nothing opens a repository until a
// command needs one, so `git scribe --version` and the post-commit hook stay
// fast.
package cmd
