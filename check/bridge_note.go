package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
)

// bridgeNote is SCR003: the bridge note the next session reads carries at
// most a bare witness marker, never findings (SPEC principle 6), and stays
// within its size budget: under 20 lines of text (blank lines aside) and
// bridge_tokens tokens.
type bridgeNote struct{ meta }

func newBridgeNote() Rule {
	return bridgeNote{meta{
		id: "SCR003", name: "bridge-note", severity: SeverityError,
		describe: "the bridge note holds at most the reviewer's bare verdict (\"Witness: PASS|WARN|BLOCK\", from wrap --witness), never the review's findings; it is under 20 lines of text (blank lines aside) and within the bridge_tokens budget",
	}}
}

var (
	// witnessMarker is the one witness line a bridge note may hold.
	witnessMarker = lazyre.New(`^Witness: (PASS|WARN|BLOCK)$`)
	// witnessMention is any other line about the witness.
	witnessMention = lazyre.New(`(?i)^(?:[-*+]\s+)?(?:\*\*)?witness\b`)
	// verdictWithDetail is a verdict followed by findings, e.g.
	// "WARN iter2 not-covered-by-tests" or "- BLOCK: race in …".
	verdictWithDetail = lazyre.New(`^(?:[-*+]\s+)?(?:\*\*)?(PASS|WARN|BLOCK)\b\W*\S`)
)

// bytesPerToken is the budget's conversion: bridge_tokens × 4 bytes.
const bytesPerToken = 4

func (bridgeNote) Check(ctx context.Context, in *Input) ([]Finding, error) {
	if in.Vault == "" {
		data, ok, err := in.ReadFile(in.Config.Paths.BridgeNote)
		if err != nil || !ok {
			return nil, err
		}
		return checkBridgeNote(in, in.Config.Paths.BridgeNote, string(data)), nil
	}
	// Every branch's note in the vault: each is some session's context.
	t, err := in.vaultTree(ctx)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, p := range t.under(notes.VaultBridgeDir) {
		if _, ok := notes.BranchOfBridgePath(p); ok {
			out = append(out, checkBridgeNote(in, VaultPrefix+p, string(t.files[p]))...)
		}
	}
	return out, nil
}

func (bridgeNote) reads() inputs { return readsVault }

func checkBridgeNote(in *Input, path, text string) []Finding {
	var out []Finding
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	markers := 0
	inComment := false
	for i, raw := range lines {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if inComment || strings.HasPrefix(line, "<!--") {
			inComment = !strings.Contains(line, "-->")
			continue
		}
		switch {
		case witnessMarker().MatchString(line):
			markers++
			if markers > 1 {
				out = append(out, Finding{File: path, Line: i + 1,
					Message: "the bridge note has more than one witness marker",
					Fix:     "keep one \"Witness: PASS|WARN|BLOCK\" line with the final verdict; the journal keeps every verdict"})
			}
		case witnessMention().MatchString(line) || verdictWithDetail().MatchString(line):
			out = append(out, Finding{File: path, Line: i + 1,
				Message: fmt.Sprintf("the bridge note carries witness findings: %q", shorten(line, 100)),
				Fix:     "witness findings go to the journal in full; the bridge note keeps only a bare \"Witness: PASS|WARN|BLOCK\" line"})
		}
	}
	// The budget counts lines of text: the blank lines around headings and
	// lists that markdown wants carry nothing to read, nor does a line of
	// markdownlint configuration alone (notes.MaxBridgeLines, TextLines).
	if n := notes.TextLines(text); n > notes.MaxBridgeLines {
		line := len(lines)
		for i, seen := 0, 0; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) != "" && !markdown.LintDirective(lines[i]) {
				if seen++; seen > notes.MaxBridgeLines {
					line = i + 1
					break
				}
			}
		}
		out = append(out, Finding{File: path, Line: line, Severity: SeverityWarning,
			Message: fmt.Sprintf("the bridge note has %d lines of text (blank lines aside); it must stay under 20", n),
			Fix:     "shorten it to what the next session needs (git scribe wrap rewrites it within the budget)"})
	}
	tokens := in.Config.BridgeTokens
	if tokens <= 0 {
		tokens = 1500
	}
	if budget := tokens * bytesPerToken; len(text) > budget {
		out = append(out, Finding{File: path, Line: 1, Severity: SeverityWarning,
			Message: fmt.Sprintf("the bridge note is %d bytes, over its budget of %d tokens (~%d bytes)", len(text), tokens, budget),
			Fix:     "shorten it, or raise bridge_tokens in .scribe.yaml"})
	}
	return out
}
