package secrets

import (
	"math"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// finding is what gitleaks' detector reports for one match (the fields of
// its report.Finding that a text without a path or commit fills).
type finding struct {
	ruleID string
	// startLine and endLine are 0-based; a column counts from the newline
	// that ends the previous line (from 0 on the first line), as gitleaks
	// counts them.
	startLine, endLine, startColumn, endColumn int
	// line is the text from the start of the match's first line to the
	// end of its last (gitleaks' Finding.Line).
	line          string
	match, secret string
	tags          []string
}

// detector is gitleaks' Detector.DetectString over a book, with gitleaks'
// CLI settings (decoding five levels deep) and "gitleaks:allow" comments
// ignored. It compiles rules and allowlists as texts first need them, and is
// safe for concurrent use.
type detector struct {
	once  sync.Once
	b     *book // the default book unless set before first use
	rules []compiledRule

	globalOnce sync.Once
	global     []compiledAllowlist
}

func (d *detector) init() {
	d.once.Do(func() {
		if d.b == nil {
			d.b = defaultBook()
		}
		d.rules = make([]compiledRule, len(d.b.rules))
	})
}

// globals returns the global allowlists, compiled the first time a text has
// a candidate finding (their expressions are most of the cost of a first
// redaction; they only ever remove findings).
func (d *detector) globals() []compiledAllowlist {
	d.globalOnce.Do(func() { d.global = compileAllowlists(d.b.allowlists) })
	return d.global
}

// compiled returns rule i, compiled.
func (d *detector) compiled(i int) *compiledRule { return d.rules[i].compile(&d.b.rules[i]) }

// fragment is the text of one detection, with its newlines found once.
type fragment struct {
	raw string
	nl  []int // offsets of '\n' in raw, found when a match first needs them
	nls bool  // nl is found
	// low is lowerASCII(cur), for the rules with a start plan: cur is the
	// text of the decoding pass that last asked ("" lowers to itself).
	cur, low string
}

func (s *fragment) lowered(current string) string {
	if s.cur != current {
		s.cur, s.low = current, lowerASCII(current)
	}
	return s.low
}

func (s *fragment) newlines() []int {
	if !s.nls {
		s.nl, s.nls = newlines(s.raw), true
	}
	return s.nl
}

// detect returns the findings of every rule in raw, as gitleaks' detector
// does: each pass runs the rules whose keywords occur in the text (as
// decoded so far), then decodes its base64, hex and percent-encoded
// segments for the next, up to decodeDepth times.
func (d *detector) detect(raw string) []finding {
	d.init()
	b := d.b
	var (
		fs       []finding
		s        = &fragment{raw: raw}
		current  = raw
		segments []*codec.EncodedSegment
		decoder  = codec.NewDecoder()
		selected = make([]bool, len(b.rules))
	)
	for depth := 0; ; {
		clear(selected)
		for _, i := range b.always {
			selected[i] = true
		}
		b.keywords.each(strings.ToLower(current), func(word int) bool {
			for _, i := range b.byKeyword[word] {
				selected[i] = true
			}
			return true
		})
		for i, ok := range selected {
			if ok {
				fs = append(fs, d.detectRule(s, current, i, segments, false)...)
			}
		}
		if depth++; depth > decodeDepth || !mayDecode(current) {
			break
		}
		if current, segments = decoder.Decode(current, segments); len(segments) == 0 {
			break
		}
	}
	return preferSpecific(fs)
}

// detectRule returns rule i's findings in current, the text of one decoding
// pass over s.raw (segments: what that pass decoded; none on the first).
// inherited is set when a composite rule asks for the findings of a rule it
// requires.
func (d *detector) detectRule(s *fragment, current string, i int, segments []*codec.EncodedSegment, inherited bool) []finding {
	r := &d.b.rules[i]
	if r.skipReport && !inherited {
		return nil
	}
	c := d.compiled(i)
	if r.path != "" {
		if r.regex == "" && len(segments) == 0 {
			if c.pathMatches {
				return []finding{{ruleID: r.id, match: "file detected: ", tags: r.tags}}
			}
		} else if !c.pathMatches {
			return nil
		}
	}
	if c.re == nil {
		return nil
	}
	var fs []finding
	var low string
	if c.plan != nil {
		low = s.lowered(current)
	}
	for _, m := range c.plan.findAll(c.re, current, low) {
		secret := strings.Trim(current[m[0]:m[1]], "\n")
		tags := r.tags
		currentLine := ""
		if len(segments) > 0 {
			overlap := codec.SegmentsWithDecodedOverlap(segments, m[0], m[1])
			if len(overlap) == 0 {
				continue // found in an earlier pass
			}
			m = codec.AdjustMatchIndex(overlap, m)
			tags = append(tags[:len(tags):len(tags)], codec.Tags(overlap)...)
			currentLine = codec.CurrentLine(overlap, current)
		} else {
			// gitleaks' fix for a match that ran into the next line: the
			// end moves back by what the trim took (wherever it took it).
			m[1] = m[0] + len(secret)
		}
		loc := locateMatch(s.newlines(), s.raw, m[0], m[1])
		loc.endLineIndex = max(loc.endLineIndex, m[1])
		f := finding{
			ruleID:      r.id,
			startLine:   loc.startLine,
			endLine:     loc.endLine,
			startColumn: loc.startColumn,
			endColumn:   loc.endColumn,
			line:        s.raw[loc.startLineIndex:loc.endLineIndex],
			match:       secret,
			secret:      secret,
			tags:        tags,
		}
		if currentLine == "" {
			currentLine = f.line
		}
		// The secret is a capture group of the expression matched again
		// on the match alone (not the group of the first match).
		if groups := c.re.FindStringSubmatch(f.secret); len(groups) >= 2 {
			if r.secretGroup > 0 {
				if len(groups) <= r.secretGroup {
					continue
				}
				f.secret = groups[r.secretGroup]
			} else {
				for _, g := range groups[1:] {
					if g != "" {
						f.secret = g
						break
					}
				}
			}
		}
		if r.entropy != 0 && shannonEntropy(f.secret) <= r.entropy {
			continue
		}
		if allowed(d.globals(), &f, currentLine) || allowed(c.allows(r), &f, currentLine) {
			continue
		}
		fs = append(fs, f)
	}
	if inherited || len(r.required) == 0 {
		return fs
	}
	return d.withRequired(s, current, r, segments, fs)
}

// withRequired keeps the findings of composite rule r that have, for each
// rule it requires, a finding of it close enough.
func (d *detector) withRequired(s *fragment, current string, r *rule, segments []*codec.EncodedSegment, primary []finding) []finding {
	if len(primary) == 0 {
		return nil
	}
	found := make([][]finding, len(r.required))
	for k, req := range r.required {
		if i, ok := d.b.index[req.id]; ok {
			found[k] = d.detectRule(s, current, i, segments, true)
		}
	}
	var out []finding
	for _, p := range primary {
		near := map[string]bool{}
		for k, req := range r.required {
			for _, q := range found[k] {
				if within(p, q, req) {
					near[q.ruleID] = true
				}
			}
		}
		all := len(near) > 0
		for _, req := range r.required {
			all = all && near[req.id]
		}
		if all {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether a required rule's finding q is close enough to the
// composite's finding p.
func within(p, q finding, req required) bool {
	if req.limitLines && abs(p.startLine-q.startLine) > req.withinLines {
		return false
	}
	if req.limitColumns && abs(p.startColumn-q.startColumn) > req.withinColumns {
		return false
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// allowed reports whether one of the allowlists drops f. A text has no path
// and no commit, so an "AND" allowlist with a path or commit check never
// does; currentLine is the line (or decoded line) of f.
func allowed(as []compiledAllowlist, f *finding, currentLine string) bool {
	for i := range as {
		a := &as[i]
		target := f.secret
		switch a.target {
		case "match":
			target = f.match
		case "line":
			target = currentLine
		}
		regex := a.regex != nil && target != "" && a.regex.MatchString(target)
		stop := a.stopWords != nil && f.secret != "" && a.stopWords.any(strings.ToLower(f.secret))
		if !a.and {
			if regex || stop {
				return true
			}
			continue
		}
		if a.hasPaths || a.hasCommits {
			continue
		}
		if (a.regex == nil || regex) && (a.stopWords == nil || stop) {
			return true
		}
	}
	return false
}

// preferSpecific drops a finding of a generic rule when a specific rule's
// finding on the same line holds its secret (gitleaks' filter).
func preferSpecific(fs []finding) []finding {
	var out []finding
	for _, f := range fs {
		if isGeneric(f.ruleID) && hasSpecific(fs, f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func hasSpecific(fs []finding, f finding) bool {
	for _, o := range fs {
		if o.startLine == f.startLine && o.ruleID != f.ruleID && strings.Contains(o.secret, f.secret) && !isGeneric(o.ruleID) {
			return true
		}
	}
	return false
}

// place is where a match lies in a text, as gitleaks computes it.
type place struct {
	startLine, endLine, startColumn, endColumn int
	startLineIndex, endLineIndex               int
}

// locateMatch returns the lines and columns of raw[start:end] (nl: the offsets
// of '\n' in raw), with gitleaks' quirks kept: a column counts from the
// newline before it, and a match after the last newline has its line start
// at 0.
func locateMatch(nl []int, raw string, start, end int) place {
	var (
		loc     place
		prev    int
		lineSet bool
		last    int
	)
	if len(nl) == 0 {
		nl = []int{len(raw)} // one line, ended where the text ends
	}
	for line, n := range nl {
		last = line
		if prev <= start && start < n {
			lineSet = true
			loc.startLine, loc.endLine = line, line
			loc.startColumn = start - prev + 1
			loc.startLineIndex, loc.endLineIndex = prev, n
		}
		if prev < end && end <= n {
			loc.endLine = line
			loc.endColumn = end - prev
			loc.endLineIndex = n
		}
		prev = n
	}
	if !lineSet {
		loc.startColumn = start - prev + 1
		loc.endColumn = end - prev
		loc.startLine, loc.endLine = last+1, last+1
		i := 0
		for end+i < len(raw) && raw[end+i] != '\n' && raw[end+i] != '\r' {
			i++
		}
		loc.endLineIndex = end + i
	}
	return loc
}

// shannonEntropy is the Shannon entropy of s's runes, in bits, over its
// length in bytes (as gitleaks computes it).
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	var order []rune
	for _, r := range s {
		if counts[r] == 0 {
			order = append(order, r)
		}
		counts[r]++
	}
	inv := 1.0 / float64(len(s))
	var e float64
	for _, r := range order {
		freq := float64(counts[r]) * inv
		e -= freq * math.Log2(freq)
	}
	return e
}
