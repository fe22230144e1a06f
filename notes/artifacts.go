package notes

import (
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"go.yaml.in/yaml/v3"
)

// ParseArtifacts reads wrap's --artifacts input: a YAML or JSON mapping with
// the fields of seed 000's "Scribe Dispatch" prompt (mode, timestamp, git_diff,
// changed_files, loop_report, test_results, witness_verdicts, context_hint,
// plus loop, session_end, trivial, done, next, urgent, result), or that prompt
// itself as the markdown an agent writes. Keys are matched case-insensitively
// with spaces or dashes for underscores; "N/A" means absent.
func ParseArtifacts(data []byte) (WrapInput, error) {
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err == nil && raw != nil && !looksLikeMarkdown(data) {
		return fromMap(raw)
	}
	if in, ok := parseDispatchMarkdown(string(data)); ok {
		return in, nil
	}
	var probe any
	if err := yaml.Unmarshal(data, &probe); err != nil {
		return WrapInput{}, &UsageError{Msg: fmt.Sprintf("artifacts are neither a YAML/JSON mapping nor a Scribe Dispatch prompt: %v", err)}
	}
	return WrapInput{}, &UsageError{Msg: "artifacts must be a YAML/JSON mapping of fields (context_hint, changed_files, …) or a Scribe Dispatch prompt"}
}

func looksLikeMarkdown(data []byte) bool {
	s := strings.TrimSpace(string(data))
	return strings.HasPrefix(s, "## Scribe Dispatch") || strings.HasPrefix(s, "**Mode**")
}

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(k)
}

var artifactAliases = map[string]string{
	"hint": "context_hint", "context": "context_hint", "tests": "test_results", "test": "test_results",
	"witness": "witness_verdicts", "diff": "git_diff", "files": "changed_files", "loop_exit": "loop",
	"questions": "open_questions", "summary": "context_hint",
}

func fromMap(raw map[string]any) (WrapInput, error) {
	var in WrapInput
	for k, v := range raw {
		key := normKey(k)
		if a, ok := artifactAliases[key]; ok {
			key = a
		}
		switch key {
		case "mode":
			in.Mode = scalar(v)
		case "timestamp":
			// informational: scribe stamps entries with its own clock and zone
		case "git_diff":
			in.DiffSummary = scalar(v)
		case "changed_files":
			in.ChangedFiles = list(v)
		case "loop_report":
			in.LoopReport = scalar(v)
		case "test_results":
			in.Tests = scalar(v)
		case "witness_verdicts":
			in.Witness = strings.Join(list(v), "; ")
		case "context_hint":
			in.Hint = scalar(v)
		case "loop":
			in.Loop = strings.ToLower(scalar(v))
		case "session_end":
			in.SessionEnd = truthy(v)
		case "trivial":
			in.Trivial = truthy(v)
		case "done":
			in.Done = list(v)
		case "next":
			in.Next = list(v)
		case "urgent":
			in.Urgent = scalar(v)
		case "result":
			in.Result = strings.ToLower(scalar(v))
		case "open_questions":
			in.Questions = list(v)
		case "traps":
			in.Traps = list(v)
		case "base":
			in.Base = scalar(v)
		}
	}
	return in, validateInput(in)
}

func validateInput(in WrapInput) error {
	switch in.Loop {
	case "", "keep", "discard":
	default:
		return &UsageError{Msg: fmt.Sprintf("loop must be keep or discard, not %q", in.Loop)}
	}
	switch in.Result {
	case "", "shipped", "partial", "reverted":
	default:
		return &UsageError{Msg: fmt.Sprintf("result must be shipped, partial or reverted, not %q", in.Result)}
	}
	if _, _, err := ParseModes(in.Mode); err != nil {
		return err
	}
	return nil
}

// ValidateInput checks a WrapInput assembled from flags.
func ValidateInput(in WrapInput) error { return validateInput(in) }

// isNA reports values that mean "nothing": the seed prompt's "N/A", its
// "see below" pointer, and an unfilled {placeholder}.
func isNA(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "", "n/a", "na", "none", "-", "see below", "see below.", `"see below"`:
		return true
	}
	return strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}")
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		if isNA(x) {
			return ""
		}
		return strings.TrimSpace(x)
	case []any:
		return strings.Join(list(x), "; ")
	default:
		return strings.TrimSpace(fmt.Sprint(x))
	}
}

func list(v any) []string {
	var out []string
	switch x := v.(type) {
	case nil:
	case []any:
		for _, e := range x {
			if s := scalar(e); s != "" {
				out = append(out, s)
			}
		}
	default:
		s := scalar(x)
		if s == "" {
			return nil
		}
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
			if p := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "- ")); p != "" && !isNA(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "yes", "true", "y", "1":
			return true
		}
	}
	return false
}

var (
	boldField   = lazyre.New(`^\*\*([^*]+)\*\*:\s*(.*)$`)
	bulletField = lazyre.New(`^[-*]\s+([A-Za-z][A-Za-z ]+):\s*(.*)$`)
)

// parseDispatchMarkdown reads the "## Scribe Dispatch" prompt of seed 000.
func parseDispatchMarkdown(s string) (WrapInput, bool) {
	raw := map[string]any{}
	var hint []string
	inHint := false
	found := false
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			inHint = strings.EqualFold(strings.TrimSpace(strings.TrimLeft(t, "#")), "context hint")
			found = found || strings.Contains(strings.ToLower(t), "scribe dispatch")
			continue
		}
		if inHint {
			if t != "" {
				hint = append(hint, t)
			}
			continue
		}
		if m := boldField().FindStringSubmatch(t); m != nil {
			raw[m[1]] = m[2]
			found = true
		} else if m := bulletField().FindStringSubmatch(t); m != nil {
			raw[m[1]] = m[2]
		}
	}
	if !found {
		return WrapInput{}, false
	}
	if len(hint) > 0 {
		raw["context_hint"] = strings.Join(hint, " ")
	}
	if m, ok := raw["Mode"].(string); ok && strings.Contains(m, "|") {
		delete(raw, "Mode") // the template's placeholder, not a choice
	}
	in, err := fromMap(raw)
	if err != nil {
		return WrapInput{}, false
	}
	return in, true
}

// WrapInput is everything a session hands to wrap: the fields of seed 000's
// "Scribe Dispatch" prompt plus wrap's own switches.
type WrapInput struct {
	Loop       string   `json:"loop,omitempty" yaml:"loop"` // keep | discard
	SessionEnd bool     `json:"session_end,omitempty" yaml:"session_end"`
	Trivial    bool     `json:"trivial,omitempty" yaml:"trivial"`
	Hint       string   `json:"context_hint,omitempty" yaml:"context_hint"`
	Tests      string   `json:"test_results,omitempty" yaml:"test_results"`
	Witness    string   `json:"witness_verdicts,omitempty" yaml:"witness_verdicts"`
	LoopReport string   `json:"loop_report,omitempty" yaml:"loop_report"`
	Urgent     string   `json:"urgent,omitempty" yaml:"urgent"`
	Result     string   `json:"result,omitempty" yaml:"result"` // shipped | partial | reverted
	Done       []string `json:"done,omitempty" yaml:"done"`
	Next       []string `json:"next,omitempty" yaml:"next"`
	Questions  []string `json:"open_questions,omitempty" yaml:"open_questions"`
	Traps      []string `json:"traps,omitempty" yaml:"traps"`
	// ChangedFiles and DiffSummary, when given, replace reading the repo.
	ChangedFiles []string `json:"changed_files,omitempty" yaml:"changed_files"`
	DiffSummary  string   `json:"git_diff,omitempty" yaml:"git_diff"`
	Mode         string   `json:"mode,omitempty" yaml:"mode"`
	Base         string   `json:"base,omitempty" yaml:"base"`

	DryRun bool `json:"-" yaml:"-"`
}
