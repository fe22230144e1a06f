// Package secrets owns redaction: every text that is about to reach a vault
// file (diffs, test output, transcripts, agent output) passes through Redact,
// which replaces each secret found by gitleaks' default rules with a marker
// naming the rule, "[REDACTED:<rule-id>]".
//
// The rules are gitleaks' own, generated into Go data (rules_gen.go, by
// internal/rulegen), and run by this package's detector, which does what
// gitleaks' detector does with a text (detect.go); the tests hold the two to
// the same findings. The binary links none of gitleaks but its decoder of
// encoded segments.
//
// The package must never log, print or return a secret (a Finding carries the
// rule and the line, not the value), and must never compile the rules
// eagerly: compiling them all costs tens of milliseconds, so each is compiled
// when a text first needs it, never at package init and never on the
// post-commit hook's fast path.
package secrets
