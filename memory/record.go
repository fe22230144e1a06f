package memory

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"github.com/git-scribe/git-scribe/internal/lazyre"
	"go.yaml.in/yaml/v3"
)

// Record is a promoted memory: the frontmatter of
// memory_dir/{tacit,corrections,preferences}/<slug>.md. Name, description,
// type, candidate_id, promoted_at, evaluator_score and source_turn are
// required; the type fields are required for their type (see SchemaErrors).
type Record struct {
	Name           string  `yaml:"name"`
	Description    string  `yaml:"description"`
	Type           string  `yaml:"type"`
	CandidateID    string  `yaml:"candidate_id"`
	PromotedAt     string  `yaml:"promoted_at"`
	EvaluatorScore float64 `yaml:"evaluator_score"`
	SourceTurn     int     `yaml:"source_turn"`
	TriggerSource  string  `yaml:"trigger_source,omitempty"`
	Detector       string  `yaml:"detector,omitempty"`
	SessionID      string  `yaml:"session_id,omitempty"`
	// correction
	OriginalClaim  string `yaml:"original_claim,omitempty"`
	UserCorrection string `yaml:"user_correction,omitempty"`
	Prevention     string `yaml:"prevention,omitempty"`
	// pattern
	Topic       string `yaml:"topic,omitempty"`
	Occurrences int    `yaml:"occurrences,omitempty"`
	// preference
	Scope string `yaml:"scope,omitempty"`
	// ProjectID tags the record in global-memory mode.
	ProjectID string `yaml:"project_id,omitempty"`
	Edited    bool   `yaml:"edited,omitempty"`
}

// ErrNoFrontmatter is returned by ParseRecord for a file without a
// "---"-delimited YAML frontmatter.
var ErrNoFrontmatter = errors.New("no frontmatter")

// yamlFormat is the only frontmatter format memory records use, decoded by
// the maintained YAML package (adrg/frontmatter's default is yaml.v2).
var yamlFormat = frontmatter.NewFormat("---", "---", yaml.Unmarshal)

// ParseFrontmatter splits a note into its YAML frontmatter, decoded into v,
// and the body after it. It never panics on hostile input.
func ParseFrontmatter(data []byte, v any) (body []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			body, err = nil, fmt.Errorf("parse frontmatter: %v", r)
		}
	}()
	rest, err := frontmatter.MustParse(bytes.NewReader(data), v, yamlFormat)
	if errors.Is(err, frontmatter.ErrNotFound) {
		return nil, ErrNoFrontmatter
	}
	if err != nil {
		return nil, fmt.Errorf("parse frontmatter: %w", err)
	}
	return rest, nil
}

// ParseRecord reads a memory record: its frontmatter and its body.
func ParseRecord(data []byte) (Record, string, error) {
	var r Record
	body, err := ParseFrontmatter(data, &r)
	if err != nil {
		return Record{}, "", err
	}
	return r, string(body), nil
}

// RenderRecord writes a record: frontmatter (every value on one line, so no
// line of it can be mistaken for the closing "---"), then the body.
func RenderRecord(r Record, body string) string {
	r = r.oneLine()
	out, err := yaml.Marshal(r)
	if err != nil { // a struct of strings and numbers always marshals
		panic(fmt.Sprintf("marshal memory record: %v", err))
	}
	return "---\n" + string(out) + "---\n" + body
}

func (r Record) oneLine() Record {
	for _, p := range []*string{&r.Name, &r.Description, &r.Type, &r.CandidateID, &r.PromotedAt, &r.TriggerSource, &r.Detector,
		&r.SessionID, &r.OriginalClaim, &r.UserCorrection, &r.Prevention, &r.Topic, &r.Scope, &r.ProjectID} {
		*p = oneLine(strings.ToValidUTF8(*p, "\uFFFD"))
	}
	return r
}

// requiredKeys are the frontmatter keys every memory record has (SPEC §6).
var requiredKeys = []string{"name", "description", "type", "candidate_id", "promoted_at", "evaluator_score", "source_turn"}

// typeKeys are the extra keys each type requires.
var typeKeys = map[string][]string{
	TypeCorrection: {"user_correction", "prevention"},
	TypePattern:    {"topic", "occurrences"},
	TypePreference: {"scope"},
	TypeTacit:      nil,
}

var candidateIDRE = lazyre.New(`^[0-9a-f]{8,64}$`)

// SchemaErrors checks a record file's frontmatter against the schema: the
// required keys, their types, the type-specific keys, and, with
// wantProject, a project_id. dir is the kind directory the file sits in
// (tacit, corrections, preferences) or "" to skip the routing check.
func SchemaErrors(data []byte, dir string, wantProject bool) []string {
	var raw map[string]any
	if _, err := ParseFrontmatter(data, &raw); err != nil {
		return []string{err.Error()}
	}
	var errs []string
	str := func(k string) (string, bool) {
		v, ok := raw[k]
		if !ok || v == nil {
			return "", false
		}
		switch x := v.(type) {
		case string:
			return x, true
		case time.Time:
			return x.Format(time.RFC3339), true
		}
		return fmt.Sprint(v), true
	}
	for _, k := range requiredKeys {
		if v, ok := raw[k]; !ok || v == nil || fmt.Sprint(v) == "" {
			errs = append(errs, "missing "+k)
		}
	}
	typ, _ := str("type")
	extra, known := typeKeys[typ]
	if typ != "" && !known {
		errs = append(errs, fmt.Sprintf("type %q is not one of tacit, correction, pattern, preference", typ))
	}
	for _, k := range extra {
		if v, ok := raw[k]; !ok || v == nil || fmt.Sprint(v) == "" {
			errs = append(errs, fmt.Sprintf("missing %s (required for type %s)", k, typ))
		}
	}
	if d, ok := str("description"); ok {
		if n := utf8.RuneCountInString(d); n > 150 || strings.ContainsAny(d, "\n\r") {
			errs = append(errs, fmt.Sprintf("description must be one line of 1–150 characters (has %d)", n))
		}
	}
	if id, ok := str("candidate_id"); ok && !candidateIDRE().MatchString(id) {
		errs = append(errs, fmt.Sprintf("candidate_id %q is not a lowercase hex id", id))
	}
	if v, ok := raw["evaluator_score"]; ok && v != nil {
		f, isNum := number(v)
		if !isNum || f < 0 || f > 1 {
			errs = append(errs, fmt.Sprintf("evaluator_score %v is not a number between 0.0 and 1.0", v))
		}
	}
	if v, ok := raw["source_turn"]; ok && v != nil {
		if f, isNum := number(v); !isNum || f < 0 || f != float64(int(f)) {
			errs = append(errs, fmt.Sprintf("source_turn %v is not a turn index", v))
		}
	}
	if v, ok := raw["promoted_at"]; ok && v != nil {
		if _, isTime := v.(time.Time); !isTime {
			if _, err := time.Parse(time.RFC3339, fmt.Sprint(v)); err != nil {
				errs = append(errs, fmt.Sprintf("promoted_at %q is not an ISO 8601 timestamp with offset", fmt.Sprint(v)))
			}
		}
	}
	if typ == TypePreference {
		if s, _ := str("scope"); s != "" && s != ScopeSession && s != ScopeProject && s != ScopeUser {
			errs = append(errs, fmt.Sprintf("scope %q is not one of session, project, user", s))
		}
	}
	if typ == TypePattern {
		if v, ok := raw["occurrences"]; ok && v != nil {
			if f, isNum := number(v); !isNum || f < 1 {
				errs = append(errs, fmt.Sprintf("occurrences %v is not a positive count", v))
			}
		}
	}
	if wantProject {
		if p, _ := str("project_id"); p == "" {
			errs = append(errs, "missing project_id (global memory is on: every record names its project)")
		}
	}
	if dir != "" && known {
		want := "tacit"
		switch typ {
		case TypeCorrection:
			want = "corrections"
		case TypePreference:
			want = "preferences"
		}
		if dir != want {
			errs = append(errs, fmt.Sprintf("a %s record belongs in %s/, not %s/", typ, want, dir))
		}
	}
	return errs
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
