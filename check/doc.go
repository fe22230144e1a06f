// Package check is the engine of `git scribe check`, the CI job that verifies
// vault hygiene (SPEC §8): it runs a list of rules over the working tree and
// the history of the scribe-managed files and returns findings, each with a
// stable rule id (SCR001…), a severity, a file:line, a message and a fix.
//
// A rule is one file: a type implementing [Rule], listed in [Rules]. Rules
// read the repository only through gitops (history, blobs, locks, queue) and
// parse vault files with notes; they never write anything, never run an
// agent, and this package never imports cmd, dispatch, cobra or an HTTP
// client. Rendering findings (text, JSON, GitHub annotations, SARIF) and
// choosing the exit status belong to the command.
package check
