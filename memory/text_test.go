package memory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
)

func defaultKeywords() Keywords {
	d := config.Defaults().Memory
	return Keywords{EN: d.CorrectionsEN, KR: d.CorrectionsKR}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Use tabs, not spaces!", "use-tabs-not-spaces"},
		{"../../etc/passwd", "etc-passwd"},
		{"  --weird__name--  ", "weird-name"},
		{"지수 백오프", ""},
		{"API v2 → v3", "api-v2-v3"},
		{strings.Repeat("a", 100), strings.Repeat("a", 60)},
		{".git", "git"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := Slug(tt.in); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWordsKorean(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{"테스트를 추가하고 테스트는 고쳐 주세요", "테스트 추가 테스트 고쳐"},
		{"재시도 간격을 봐 주세요", "재시도 간격"},
		{"The retry backoff is flaky", "retry backoff flaky"},
	}
	for _, tt := range tests {
		if got := strings.Join(words(tt.in), " "); got != tt.want {
			t.Errorf("words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOverlapScore(t *testing.T) {
	t.Parallel()
	tabs := Comparable{Name: "Use tabs", Content: "Always use tabs for indentation in Go files.", Type: TypeCorrection}
	tests := []struct {
		name     string
		other    Comparable
		min, max float64
		band     string
	}{
		{"identical", tabs, 0.99, 1.0, BandHigh},
		{"reworded", Comparable{Name: "Use tabs", Content: "Always use tabs for indentation in Go source files.", Type: TypeCorrection}, DuplicateScore, 1, BandHigh},
		{"reversal is no duplicate", Comparable{Name: "Use tabs", Content: "Never use tabs for indentation in Go files.", Type: TypeCorrection}, 0.4, DuplicateScore - 0.01, ""},
		{"unrelated", Comparable{Name: "Deploy", Content: "Deploys go through the staging cluster first.", Type: TypeTacit}, 0, 0.39, BandLow},
		{"korean inflection", Comparable{Name: "탭", Content: "들여쓰기는 탭으로 해 주세요", Type: TypeCorrection}, 0, 0.39, BandLow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := Compare(tabs, tt.other)
			sc := o.Score()
			if sc < tt.min || sc > tt.max {
				t.Errorf("score %.3f (%+v), want %.2f–%.2f", sc, o, tt.min, tt.max)
			}
			if tt.band != "" && Band(sc) != tt.band {
				t.Errorf("band %s, want %s", Band(sc), tt.band)
			}
		})
	}
	kr1 := Comparable{Content: "들여쓰기는 탭으로 해 주세요", Type: TypeCorrection}
	kr2 := Comparable{Content: "들여쓰기는 탭으로 해줘", Type: TypeCorrection}
	if o := Compare(kr1, kr2); o.Shape < 0.55 {
		t.Errorf("Korean rewording: shape %.2f, want ≥ 0.55 (%+v)", o.Shape, o)
	}
	if w := weightLexical + weightShape + weightTitle + weightKind + weightPolarity; w < 0.999 || w > 1.001 {
		t.Errorf("weights sum to %.3f", w)
	}
}

func TestVerdict(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		score float64
		want  Verdict
	}{{0, VerdictRed}, {0.40, VerdictRed}, {0.41, VerdictYellow}, {0.79, VerdictYellow}, {0.80, VerdictGreen}, {1, VerdictGreen}} {
		if got := VerdictOf(tt.score); got != tt.want {
			t.Errorf("VerdictOf(%.2f) = %s, want %s", tt.score, got, tt.want)
		}
	}
}

func TestCorrections(t *testing.T) {
	t.Parallel()
	k := defaultKeywords()
	tests := []struct {
		name   string
		turns  []Turn
		groups []string // instruction×count
	}{
		{"english twice", []Turn{
			{0, RoleUser, "Fix the upload."},
			{1, RoleAssistant, "I used a fixed delay."},
			{2, RoleUser, "No, that's wrong. Use exponential backoff, not a fixed delay."},
			{3, RoleAssistant, "Done with a fixed delay of 10s."},
			{4, RoleUser, "Wrong again — use exponential backoff, not a fixed delay!"},
		}, []string{"Use exponential backoff, not a fixed delay×2"}},
		{"korean twice", []Turn{
			{0, RoleUser, "틀렸어요. 들여쓰기는 탭으로 해 주세요."},
			{1, RoleAssistant, "스페이스로 바꿨습니다."},
			{2, RoleUser, "또 잘못했네요, 들여쓰기는 탭으로 해 주세요."},
		}, []string{"들여쓰기는 탭으로 해 주세요×2"}},
		{"different corrections stay apart", []Turn{
			{0, RoleUser, "That's wrong: the port is 8080."},
			{1, RoleUser, "Incorrect, use pnpm instead of npm."},
		}, []string{"The port is 8080×1", "Use pnpm instead of npm×1"}},
		{"no correction", []Turn{{0, RoleUser, "Looks right to me, ship it."}}, nil},
		{"assistant never corrects", []Turn{{0, RoleAssistant, "No, that's wrong, I apologise."}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, g := range k.Corrections(tt.turns) {
				got = append(got, fmt.Sprintf("%s×%d", g.Instruction, len(g.Turns)))
			}
			if strings.Join(got, "|") != strings.Join(tt.groups, "|") {
				t.Errorf("got %q, want %q", got, tt.groups)
			}
		})
	}
}

func TestTopics(t *testing.T) {
	t.Parallel()
	turns := []Turn{
		{0, RoleUser, "The retry backoff is flaky."},
		{1, RoleAssistant, "retry backoff retry backoff retry backoff"},
		{2, RoleUser, "Also the retry backoff needs a cap."},
		{3, RoleUser, "Log the retry backoff attempts."},
		{4, RoleUser, "Unrelated: update the changelog."},
	}
	got := Topics(turns, 3)
	if len(got) != 1 || got[0].Term != "retry backoff" || len(got[0].Turns) != 3 {
		t.Fatalf("Topics = %+v, want retry backoff in 3 user turns (assistant turns do not count)", got)
	}
}

func TestCandidateRoutingAndSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c         Candidate
		dir, slug string
	}{
		{Candidate{ID: "0123456789ab", Detector: DetectorCorrection, Type: TypeCorrection, Name: "Use tabs"}, "corrections", "use-tabs"},
		{Candidate{ID: "0123456789ab", Detector: DetectorPreference, Type: TypePreference, Scope: ScopeUser, Name: "Short answers"}, "preferences", "short-answers"},
		{Candidate{ID: "0123456789ab", Detector: DetectorPreference, Type: TypePreference, Name: "Unscoped"}, "tacit", "unscoped"},
		{Candidate{ID: "0123456789ab", Detector: DetectorPattern, Type: TypePattern, Name: "Recurring topic: 재시도 간격"}, "tacit", "recurring-topic-01234567"},
		{Candidate{ID: "0123456789ab", Detector: DetectorTacit, Type: TypeTacit, Name: "알고 보니"}, "tacit", "tacit-01234567"},
	}
	for _, tt := range tests {
		if d, s := tt.c.Dir(), tt.c.Slug(); d != tt.dir || s != tt.slug {
			t.Errorf("%q: dir %s slug %s, want %s %s", tt.c.Name, d, s, tt.dir, tt.slug)
		}
	}
}
