// Package secrets owns redaction: every text that is about to reach a vault
// file (diffs, test output, transcripts, agent output) passes through Redact,
// which replaces each secret found by gitleaks' default rules with a marker
// naming the rule, "[REDACTED:<rule-id>]".
//
// The package must never log, print or return a secret (a Finding carries the
// rule and the line, not the value), and must never build the detector
// eagerly: compiling gitleaks' rules costs tens of milliseconds, so it happens
// once, on the first Redact call, never at package init and never on the
// post-commit hook's fast path.
package secrets
