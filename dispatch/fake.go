package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/skills"
)

// Fake is the deterministic built-in runner, the default: its reply is
// derived from the prompt alone (same prompt, same bytes), in the output
// shape the prompt's contract states ("Output shape: …"), so the whole loop
// works offline and its tests are reproducible. It never reads a file.
type Fake struct {
	// Model is only reported; the fake has no models.
	Model string
}

// Generate returns the fake reply for prompt.
func (f Fake) Generate(ctx context.Context, prompt string) (string, error) {
	out, _, err := f.GenerateUsage(ctx, prompt)
	return out, err
}

var shapeRE = lazyre.New(`(?m)^` + regexp.QuoteMeta(skills.ShapeLine) + `(\w+)\s*$`)

// GenerateUsage returns the fake reply with a token estimate (bytes / 4).
func (f Fake) GenerateUsage(ctx context.Context, prompt string) (string, Usage, error) {
	if err := ctx.Err(); err != nil {
		return "", Usage{}, err
	}
	sum := sha256.Sum256([]byte(prompt))
	h := hex.EncodeToString(sum[:])
	shape := skills.ShapeDraft
	if m := shapeRE().FindStringSubmatch(prompt); m != nil {
		shape = skills.Shape(m[1])
	}
	var out string
	switch shape {
	case skills.ShapeReview:
		out = "verdict: clean\n\n## Findings\n\nNone. (fake runner review " + h[:8] + ")\n\n## Introduced candidates\n\nNone.\n"
	case skills.ShapeBridge:
		out = between(prompt, "<bridge-note>", "</bridge-note>")
	case skills.ShapeJournal:
		out = "Changes recorded"
		if e := between(prompt, "<journal-entry>", "</journal-entry>"); e != "" {
			first, _, _ := strings.Cut(e, "\n")
			if _, summary, ok := strings.Cut(first, " — "); ok && strings.TrimSpace(summary) != "" {
				out = strings.TrimSpace(summary)
			}
		}
	case skills.ShapeCandidates:
		out = "[]"
	case skills.ShapeScore:
		out = `{"correctness": 0.5, "clarity": 0.5, "citations": 0.5, "safety": 0.5, "completeness": 0.5}`
	default:
		out = fakeDraft(sum[:], h)
	}
	u := Usage{InputTokens: (len(prompt) + 3) / 4, OutputTokens: (len(out) + 3) / 4, Model: f.model()}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	return out, u, nil
}

func (f Fake) model() string {
	if f.Model != "" {
		return f.Model
	}
	return "fake"
}

func between(s, open, closeTag string) string {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	inner, _, _ := strings.Cut(rest, closeTag)
	return strings.TrimSpace(inner) + "\n"
}

var (
	fakeOpenings = []string{"The ferry bell", "Rain on the quay", "A lamp in the window", "The tide table",
		"Salt on the railings", "The harbour clock", "A letter left unopened", "Fog over the water"}
	fakeMiddles = []string{"rang twice and then thought better of it", "kept its own count of the hours",
		"said more than anyone on the pier", "had been wrong since spring", "waited the way old things wait",
		"made the crossing feel longer than it was", "belonged to nobody and everybody", "was the only honest witness"}
	fakeSyllables = []string{"ve", "ra", "mol", "tes", "kar", "lin", "dro", "sa", "nev", "or", "ith", "ma"}
)

// fakeDraft is a short prose body plus one introduced candidate, all picked
// by the prompt's hash.
func fakeDraft(sum []byte, h string) string {
	var b strings.Builder
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "%s %s.", fakeOpenings[int(sum[i])%len(fakeOpenings)], fakeMiddles[int(sum[i+3])%len(fakeMiddles)])
		if i < 2 {
			b.WriteString(" ")
		}
	}
	name := ""
	for i := 6; i < 9; i++ {
		name += fakeSyllables[int(sum[i])%len(fakeSyllables)]
	}
	name = strings.ToUpper(name[:1]) + name[1:]
	fmt.Fprintf(&b, "\n\n(Drafted by the fake runner from prompt %s.)\n\n## Introduced candidates\n\n- %s — a name the fake runner introduced\n", h[:12], name)
	return b.String()
}
