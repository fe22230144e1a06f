package secrets

import (
	"slices"
	"sort"
	"strings"
)

const (
	// decodeDepth matches gitleaks' CLI default (--max-decode-depth 5), so a
	// base64-, hex- or percent-encoded secret is found too.
	decodeDepth = 5
	// maxPasses bounds rescanning: cutting one secret out can expose another
	// match (a rule whose context the first secret was spoiling).
	maxPasses = 3
	// windowSize and windowOverlap cut long texts into overlapping windows:
	// gitleaks' cost grows with matches × lines of the text it is given, so
	// a 1 MB base64-like text costs 5x more in one call than in 32 KB windows
	// that. The overlap is wider than any multi-line default rule reaches
	// (curl with five continuation lines, a kubernetes Secret manifest);
	// private key blocks are kept whole separately.
	windowSize    = 32 << 10
	windowOverlap = 4 << 10
)

// Finding is one redacted secret. It never carries the secret itself.
type Finding struct {
	// RuleID is the gitleaks rule that matched, as written in the marker.
	RuleID string
	// Line is the 1-based line of the input on which the secret starts.
	Line int
}

// Redactor replaces secrets in text. It compiles gitleaks' rules as texts
// first need them (see rules.go); a Redactor is safe for concurrent use.
type Redactor struct {
	det detector
}

// NewRedactor returns a Redactor that has compiled no rule yet.
func NewRedactor() *Redactor { return &Redactor{} }

var shared Redactor

// Warm indexes gitleaks' default rules now (once: their keyword index), so a
// caller can overlap it with I/O it has to do anyway (a Stop hook's git
// reads).
func Warm() { defaultBook() }

// Redact returns text with every secret gitleaks' default rules find replaced
// by "[REDACTED:<rule-id>]", and one Finding per replacement. It uses a
// package-level Redactor built on first use.
func Redact(text string) (string, []Finding) { return shared.Redact(text) }

// Redact returns text with every secret replaced by "[REDACTED:<rule-id>]",
// and one Finding per replacement, in input order. Every occurrence of a
// found secret is replaced, not just the one gitleaks reported; bytes outside
// secrets are left as they are.
func (r *Redactor) Redact(text string) (string, []Finding) {
	if text == "" {
		return text, nil
	}

	var (
		out      = text
		findings []Finding
		// history maps an offset in out back to one in text: one edit list
		// per pass, oldest first.
		history [][]edit
		lines   []int // offsets of '\n' in text, computed on first finding
	)
	// The first pass scans all of text; a later one only the
	// neighbourhood of the previous pass's edits, where cutting a secret out
	// may have exposed a new match.
	regions := []region{{0, len(text)}}
	for pass := 0; pass < maxPasses && len(regions) > 0; pass++ {
		var spans []span
		searched := map[string]bool{}
		for _, rg := range regions {
			spans = scan(spans, r.detect, out, rg, windowSize, windowOverlap, searched)
		}
		spans = merge(spans)
		if len(spans) == 0 {
			break
		}
		if lines == nil {
			lines = newlines(text)
		}
		var edits []edit
		out, edits = apply(out, spans)
		for _, s := range spans {
			off := toInput(history, s.start)
			line, _ := slices.BinarySearch(lines, off)
			findings = append(findings, Finding{RuleID: s.rule, Line: line + 1})
		}
		history = append(history, edits)
		regions = around(edits, len(out), windowOverlap)
	}
	slices.SortStableFunc(findings, func(a, b Finding) int { return a.Line - b.Line })
	return out, findings
}

// RedactPaths is Redact for a list of paths (changed files, cited files):
// each path is scanned on its own, so a secret in a file or directory name
// never reaches a note, a journal entry or a commit message, and a match
// never spans two paths. The result has one entry per path, in order.
func RedactPaths(paths []string) []string { return shared.RedactPaths(paths) }

// RedactPaths is as the package-level RedactPaths, with r's detector.
func (r *Redactor) RedactPaths(paths []string) []string {
	if len(paths) == 0 {
		return paths
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i], _ = r.Redact(p)
	}
	return out
}

// detect runs gitleaks' default rules over text.
func (r *Redactor) detect(text string) []finding { return r.det.detect(text) }

// span is a byte range of the scanned text to replace with rule's marker.
type span struct {
	start, end int
	rule       string
}

// region is a byte range [lo, hi) of a text to scan.
type region struct{ lo, hi int }

// around returns the merged regions of a text of length n within reach of
// edits: gitleaks' windows reach another overlap bytes back by themselves.
func around(edits []edit, n, reach int) []region {
	var rs []region
	for _, e := range edits {
		r := region{e.newStart, min(e.newEnd+reach, n)}
		if len(rs) > 0 && r.lo <= rs[len(rs)-1].hi {
			rs[len(rs)-1].hi = max(rs[len(rs)-1].hi, r.hi)
			continue
		}
		rs = append(rs, r)
	}
	return rs
}

// scan runs the detector over the part of s in rg, in overlapping windows of
// about size bytes cut at line ends where possible, and appends the ranges to
// redact to spans (unsorted; see merge). searched is as for locate.
func scan(spans []span, detect func(string) []finding, s string, rg region, size, overlap int, searched map[string]bool) []span {
	for start := rg.lo; start < rg.hi; {
		from, end := window(s, start, rg.hi, size, overlap)
		spans = locate(spans, s, region{from, end}, detect(s[from:end]), searched)
		start = end
	}
	return spans
}

// window returns the bounds of the window whose new part starts at start:
// it reaches back overlap bytes (to a line start if one is near) and forward
// size bytes or to hi, whichever comes first (to a line end if one is near),
// and further forward to close a PEM block it opens.
func window(s string, start, hi, size, overlap int) (from, end int) {
	end = hi
	if hi-start > size+overlap {
		end = start + size
	}
	if end < len(s) && s[end-1] != '\n' {
		if i := strings.IndexByte(s[end:min(end+overlap, len(s))], '\n'); i >= 0 {
			end += i + 1
		}
	}
	from = max(start-overlap, 0)
	if from > 0 {
		if i := strings.LastIndexByte(s[max(from-overlap, 0):from], '\n'); i >= 0 {
			from = max(from-overlap, 0) + i + 1
		}
	}
	// The private-key rule spans a whole PEM block, which may be longer than
	// the overlap: never cut one.
	if b := strings.LastIndex(s[from:end], "-----BEGIN"); b >= 0 && !strings.Contains(s[from+b:end], "-----END") {
		if e := strings.Index(s[end:], "-----END"); e >= 0 {
			end += e
			if i := strings.IndexByte(s[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(s)
			}
		}
	}
	return from, end
}

// locate appends the ranges of s to redact for findings fs, which come from
// scanning s[win.lo:win.hi]: every occurrence in s of each finding's secret
// (or, lacking one, its match); for a secret found only after decoding, also
// the encoded range gitleaks reported. searched holds the strings already
// looked up in s.
func locate(spans []span, s string, win region, fs []finding, searched map[string]bool) []span {
	for _, f := range fs {
		decoded := slices.ContainsFunc(f.tags, func(t string) bool { return strings.HasPrefix(t, "decode-depth:") })
		in := func(sub string) bool { return sub != "" && (searched[sub] || strings.Contains(s, sub)) }
		sub := f.secret
		if !in(sub) {
			sub = f.match
		}
		found := in(sub)
		if found && !searched[sub] {
			searched[sub] = true
			spans = appendAll(spans, s, sub, f.ruleID)
		}
		if decoded || !found {
			start, end := reported(s[win.lo:win.hi], f)
			spans = append(spans, span{win.lo + start, win.lo + end, f.ruleID})
		}
	}
	return spans
}

// merge sorts spans and merges overlapping ones; a merged range keeps the
// rule of the range that starts first (the longest, then a specific rule
// over a generic one).
func merge(spans []span) []span {
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
// numbers (the inverse of locateMatch). Where they do not describe a
// range of s it fails closed: from the start of the reported line to the end
// of the last reported line, or of s.
func reported(s string, f finding) (start, end int) {
	nl := newlines(s)
	// locateMatch counts columns from the newline that ends the previous line
	// (or from 0 on the first line).
	lineBase := func(line int) int {
		if line <= 0 || line-1 >= len(nl) {
			return 0
		}
		return nl[line-1]
	}
	start = lineBase(f.startLine) + f.startColumn - 1
	end = lineBase(f.endLine) + f.endColumn
	if f.startLine >= 0 && f.startLine <= len(nl) && start >= 0 && start < end && end <= len(s) {
		return start, end
	}
	start, end = 0, len(s)
	if f.startLine > 0 && f.startLine <= len(nl) {
		start = nl[f.startLine-1] + 1
	}
	if f.endLine >= f.startLine && f.endLine < len(nl) && nl[f.endLine] > start {
		end = nl[f.endLine]
	}
	return start, end
}

// newlines returns the offsets of '\n' in s.
func newlines(s string) []int {
	var nl []int
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return nl
		}
		nl = append(nl, off+i)
		off += i + 1
	}
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
