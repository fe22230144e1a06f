package secrets

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

const (
	// decodeDepth matches gitleaks' CLI default (--max-decode-depth 5), so a
	// base64-, hex- or percent-encoded secret is found too.
	decodeDepth = 5
	// maxPasses bounds rescanning: cutting one secret out can expose another
	// match (a rule whose context the first secret was spoiling).
	maxPasses = 3
)

// Finding is one redacted secret. It never carries the secret itself.
type Finding struct {
	// RuleID is the gitleaks rule that matched, as written in the marker.
	RuleID string
	// Line is the 1-based line of the input on which the secret starts.
	Line int
}

// Redactor replaces secrets in text. Its gitleaks detector is built on the
// first call to Redact, once; a Redactor is safe for concurrent use.
type Redactor struct {
	once sync.Once
	det  *detect.Detector
}

// NewRedactor returns a Redactor whose detector is not built yet.
func NewRedactor() *Redactor { return &Redactor{} }

var shared = NewRedactor()

// Redact returns text with every secret gitleaks' default rules find replaced
// by "[REDACTED:<rule-id>]", and one Finding per replacement. It uses a
// package-level Redactor built on first use.
func Redact(text string) (string, []Finding) { return shared.Redact(text) }

// Redact returns text with every secret replaced by "[REDACTED:<rule-id>]".
// Every occurrence of a found secret is replaced, not just the one gitleaks
// reported; bytes outside secrets are left as they are.
func (r *Redactor) Redact(text string) (string, []Finding) {
	if text == "" {
		return text, nil
	}
	det := r.detector()

	var (
		out      = text
		findings []Finding
		// history maps an offset in out back to an offset in text, one edit
		// list per pass, newest last.
		history [][]edit
	)
	for pass := 0; pass < maxPasses; pass++ {
		spans := locate(out, det.DetectString(out))
		if len(spans) == 0 {
			break
		}
		var edits []edit
		out, edits = apply(out, spans)
		for _, s := range spans {
			findings = append(findings, Finding{
				RuleID: s.rule,
				Line:   1 + strings.Count(text[:toInput(history, s.start)], "\n"),
			})
		}
		history = append(history, edits)
	}
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].Line < findings[j].Line })
	return out, findings
}

// detector builds the gitleaks detector on first use.
func (r *Redactor) detector() *detect.Detector {
	r.once.Do(func() {
		det, err := newDetector()
		if err != nil {
			// The configuration is gitleaks' embedded default: failing here is
			// a build defect, not a runtime condition a caller can handle, and
			// passing text through unredacted is not an option.
			panic(fmt.Sprintf("secrets: build gitleaks detector: %v", err))
		}
		r.det = det
	})
	return r.det
}

var silenceOnce sync.Once

// newDetector is detect.NewDetectorDefaultConfig without its use of viper's
// global instance, which other code in the process may own.
func newDetector() (*detect.Detector, error) {
	// gitleaks logs findings (secrets included) at trace level through a
	// package-global logger writing to stderr; nothing of it may ever leave
	// the process.
	silenceOnce.Do(func() { logging.Logger = zerolog.Nop() })

	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("read default config: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("decode default config: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("compile default rules: %w", err)
	}
	det := detect.NewDetector(cfg)
	det.MaxDecodeDepth = decodeDepth
	// A "gitleaks:allow" comment in a transcript must not let a secret
	// through to the vault.
	det.IgnoreGitleaksAllow = true
	return det, nil
}

// span is a byte range of the scanned text to replace with rule's marker.
type span struct {
	start, end int
	rule       string
}

// locate turns findings into the byte ranges to replace in s: every
// occurrence of each finding's secret, else of its match; for a secret found
// only after decoding, also the encoded range gitleaks reported. Overlapping
// ranges are merged.
func locate(s string, fs []report.Finding) []span {
	var spans []span
	for _, f := range fs {
		decoded := slices.ContainsFunc(f.Tags, func(t string) bool { return strings.HasPrefix(t, "decode-depth:") })
		found := len(spans)
		if f.Secret != "" {
			spans = appendAll(spans, s, f.Secret, f.RuleID)
		}
		if len(spans) == found && f.Match != "" {
			spans = appendAll(spans, s, f.Match, f.RuleID)
		}
		if decoded || len(spans) == found {
			start, end := reported(s, f)
			spans = append(spans, span{start, end, f.RuleID})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	sort.Slice(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		// The same range from a specific rule and the generic one: name
		// the specific rule.
		if ga, gb := isGeneric(a.rule), isGeneric(b.rule); ga != gb {
			return gb
		}
		return a.rule < b.rule
	})
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

func isGeneric(rule string) bool { return strings.Contains(strings.ToLower(rule), "generic") }

// appendAll appends a span for every non-overlapping occurrence of sub in s.
func appendAll(spans []span, s, sub, rule string) []span {
	for off := 0; ; {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return spans
		}
		start := off + i
		spans = append(spans, span{start, start + len(sub), rule})
		off = start + len(sub)
	}
}

// reported recovers the byte range of f in s from gitleaks' line and column
// numbers (the inverse of detect's location). Where they do not describe a
// range of s it fails closed: from the start of the reported line to the end
// of the last reported line, or of s.
func reported(s string, f report.Finding) (start, end int) {
	var nl []int
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			nl = append(nl, i)
		}
	}
	// detect counts columns from the newline that ends the previous line
	// (or from 0 on the first line).
	lineBase := func(line int) int {
		if line <= 0 || line-1 >= len(nl) {
			return 0
		}
		return nl[line-1]
	}
	start = lineBase(f.StartLine) + f.StartColumn - 1
	end = lineBase(f.EndLine) + f.EndColumn
	if f.StartLine >= 0 && f.StartLine <= len(nl) && start >= 0 && start < end && end <= len(s) {
		return start, end
	}
	start, end = 0, len(s)
	if f.StartLine > 0 && f.StartLine <= len(nl) {
		start = nl[f.StartLine-1] + 1
	}
	if f.EndLine >= f.StartLine && f.EndLine < len(nl) && nl[f.EndLine] > start {
		end = nl[f.EndLine]
	}
	return start, end
}

// edit records one replacement: s[oldStart:oldEnd] became
// out[newStart:newEnd].
type edit struct {
	oldStart, oldEnd, newStart, newEnd int
}

// apply replaces each span of s (sorted, disjoint) with its marker.
func apply(s string, spans []span) (string, []edit) {
	var b strings.Builder
	b.Grow(len(s))
	edits := make([]edit, 0, len(spans))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		e := edit{oldStart: sp.start, oldEnd: sp.end, newStart: b.Len()}
		b.WriteString("[REDACTED:")
		b.WriteString(sp.rule)
		b.WriteString("]")
		e.newEnd = b.Len()
		edits = append(edits, e)
		prev = sp.end
	}
	b.WriteString(s[prev:])
	return b.String(), edits
}

// toInput maps an offset in the text after the passes in history back to an
// offset in the original input; an offset inside a marker maps to the start
// of what the marker replaced.
func toInput(history [][]edit, off int) int {
	for i := len(history) - 1; i >= 0; i-- {
		delta := 0
		mapped := false
		for _, e := range history[i] {
			if off < e.newStart {
				break
			}
			if off < e.newEnd {
				off = e.oldStart
				mapped = true
				break
			}
			delta += (e.newEnd - e.newStart) - (e.oldEnd - e.oldStart)
		}
		if !mapped {
			off -= delta
		}
	}
	return off
}
