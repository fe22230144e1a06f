package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// diffText returns about n bytes of diff-like text that mentions many rule
// keywords (key, token, secret, password, api, auth) but holds one secret
// every 4 KB when withSecrets is set.
func diffText(n int, withSecrets bool) string {
	lines := []string{
		"diff --git a/internal/auth/token.go b/internal/auth/token.go",
		"@@ -12,7 +12,9 @@ func (c *Client) refresh(ctx context.Context) error {",
		"-	tok, err := c.source.Token(ctx)",
		"+	tok, err := c.source.Token(ctx) // refresh the access token before it expires",
		"+	if err != nil {",
		"+		return fmt.Errorf(\"refresh api token for %s: %w\", c.user, err)",
		"+	}",
		"	c.secretName = cfg.SecretName",
		"	password := os.Getenv(\"DB_PASSWORD\")",
		"	key := cache.Key(req.URL.Path, req.Header.Get(\"Accept\"))",
		" ok  	github.com/example/project/internal/auth	0.412s",
		"--- FAIL: TestCredentials/expired (0.00s)",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
		if withSecrets && i%60 == 59 {
			b.WriteString("+	const token = \"" + githubPAT + "\"\n")
		}
	}
	return b.String()
}

// BenchmarkRedactFirstCall measures building the detector plus one call.
func BenchmarkRedactFirstCall(b *testing.B) {
	in := diffText(10<<10, false)
	for b.Loop() {
		NewRedactor().Redact(in)
	}
}

func BenchmarkRedact10KBClean(b *testing.B) {
	r := NewRedactor()
	in := diffText(10<<10, false)
	r.Redact(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Redact(in)
	}
}

func BenchmarkRedact10KBSecrets(b *testing.B) {
	r := NewRedactor()
	in := diffText(10<<10, true)
	if _, fs := r.Redact(in); len(fs) == 0 {
		b.Fatal("no findings in benchmark input")
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Redact(in)
	}
}

// BenchmarkBook is the fixed part of a process's first redaction: indexing
// the generated rules (their keywords; no rule compiled). It replaced
// BenchmarkDecodeBook, decoding gitleaks' TOML and building an aho-corasick
// trie of the keywords, ~4 ms.
func BenchmarkBook(b *testing.B) {
	for b.Loop() {
		newBook(defaultRules, defaultAllowlists)
	}
}

// BenchmarkRedactFirstCallTurn is a process's first redaction of what a
// Stop hook redacts: an agent's one-paragraph turn summary (the rules it
// needs compiled, the book already decoded).
func BenchmarkRedactFirstCallTurn(b *testing.B) {
	in := "Edited internal/parse.go and ran go test ./...: all 14 tests pass. Next: wire the parser into cmd/wrap.go and update the README's usage section."
	for b.Loop() {
		NewRedactor().Redact(in)
	}
}

// BenchmarkCompileAllRules is what every first redaction cost before rules
// were compiled lazily: every rule's expression and allowlists, and the
// global allowlists.
func BenchmarkCompileAllRules(b *testing.B) {
	for b.Loop() {
		var d detector
		d.init()
		for i := range d.rules {
			d.compiled(i).allows(&d.b.rules[i])
		}
		d.globals()
	}
}

// journalText is about n bytes of a vault journal: entries naming the files
// a wrap changed (AUTHORS holds generic-api-key's keyword "auth") and the
// commits it made.
func journalText(n int) string {
	var b strings.Builder
	b.WriteString("<!-- markdownlint-disable-file MD013 MD024 -->\n# Journal\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\n## 2026-12-01T20:19:%02d+00:00 — wrap %d\n\n- Scope: AGENTS.md, AUTHORS, CONTRIBUTING.md (3 files)\n- Result: shipped\n- Notable: +3 −0\n- Commits: %012x\n- Mode: bridge+journal\n\n<!-- scribe:entry 20261201T2019%02dZ-%08x -->\n", i%60, i, i*7919, i%60, i*104729)
	}
	return b.String()
}

// BenchmarkRedactJournal is the scan check's SCR008 makes of a vault's
// journal: 25 entries.
func BenchmarkRedactJournal(b *testing.B) {
	r := NewRedactor()
	in := journalText(6 << 10)
	r.Redact(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.Redact(in)
	}
}
