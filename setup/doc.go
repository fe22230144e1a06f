// Package setup wires git-scribe into a repository (`git scribe init`): the
// .scribe.yaml, .gitignore and .gitattributes blocks, the refspecs, the agent's
// hook configuration and the CI workflow. Every change is computed as a plan
// first, so --dry-run prints exactly what a real run does; applying merges into
// what is there and never overwrites a person's content. It never commits.
package setup
