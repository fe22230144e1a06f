package skills_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/skills"
)

func TestRender(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"name": "Mira", "kind": "scene", "x_1": "X"}
	tests := []struct {
		name, tmpl, want, err string
	}{
		{"plain", "no vars here", "no vars here", ""},
		{"dollar name", "Hello $name.", "Hello Mira.", ""},
		{"braced", "${kind}s and ${x_1}", "scenes and X", ""},
		{"escape", "costs $$5", "costs $5", ""},
		{"prose braces stay", "a {set} and {{double}} and { $name }", "a {set} and {{double}} and { Mira }", ""},
		{"dollar digit literal", "pay $5 now", "pay $5 now", ""},
		{"trailing dollar", "end$", "end$", ""},
		{"name stops at punctuation", "$name's", "Mira's", ""},
		{"unknown", "line one\n$nope here", "", "line 2: unknown variable $nope"},
		{"unknown braced", "${missing}", "", "unknown variable $missing"},
		{"malformed", "${not closed", "", "malformed placeholder"},
		{"malformed name", "${1bad}", "", "malformed placeholder"},
		{"json braces", `{"content": "$name"}`, `{"content": "Mira"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := skills.Render(tt.tmpl, vars)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Render(%q) error = %v, want %q", tt.tmpl, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Render(%q) = %q, %v; want %q", tt.tmpl, got, err, tt.want)
			}
		})
	}
}

func TestUnknownVarErrorListsKnown(t *testing.T) {
	t.Parallel()
	_, err := skills.Render("$a $zz", map[string]string{"a": "1", "b": "2"})
	var uv *skills.UnknownVarError
	if !errors.As(err, &uv) || uv.Name != "zz" || !strings.Contains(err.Error(), "$a, $b") {
		t.Fatalf("err = %v", err)
	}
}

func TestVars(t *testing.T) {
	t.Parallel()
	got := skills.Vars("$a ${b} $$c $a {d} $1 ${")
	if strings.Join(got, ",") != "a,b" {
		t.Fatalf("Vars = %v", got)
	}
}

// Every embedded default states its output shape, matches the shape the
// dispatcher parses, and renders with exactly the vars it uses.
func TestDefaults(t *testing.T) {
	t.Parallel()
	want := []string{"body_fill", "bridge", "compound_correction", "compound_pattern", "compound_preference",
		"compound_tacit", "journal", "qa_judge", "review_canon", "review_mechanics", "review_voice"}
	if got := skills.Defaults(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Defaults = %v", got)
	}
	lib := skills.Library{}
	for _, name := range want {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := lib.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Source != "embedded" || s.Shape != skills.ShapeOf(name) {
				t.Fatalf("source %q shape %q", s.Source, s.Shape)
			}
			if !strings.Contains(s.Text, skills.ShapeLine+string(s.Shape)+"\n") {
				t.Fatalf("%s does not state %q", name, skills.ShapeLine+string(s.Shape))
			}
			vars := map[string]string{}
			for _, v := range skills.Vars(s.Text) {
				vars[v] = "<" + v + ">"
			}
			out, err := s.Render(vars)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.ReplaceAll(out, "$$", ""), "${") {
				t.Fatalf("unrendered placeholder in %s", name)
			}
		})
	}
}

func TestShapeOf(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]skills.Shape{
		"body_fill": skills.ShapeDraft, "my_fill": skills.ShapeDraft, "review_canon": skills.ShapeReview,
		"review_pacing": skills.ShapeReview, "bridge": skills.ShapeBridge, "journal": skills.ShapeJournal,
		"qa_judge": skills.ShapeScore, "compound_tacit": skills.ShapeCandidates,
	} {
		if got := skills.ShapeOf(name); got != want {
			t.Errorf("ShapeOf(%s) = %s, want %s", name, got, want)
		}
	}
}

func TestOverride(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, ".agents", "skills")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "review_voice.md"), []byte("---\nnote: mine\n---\nVoice check of $draft_path.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "my_fill.md"), []byte("Write $card_title.\n"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "review_canon.md"))
	lib := skills.Library{Root: root, Dir: ".agents/skills"}

	s, err := lib.Get("review_voice")
	if err != nil || s.Source != ".agents/skills/review_voice.md" || s.Text != "Voice check of $draft_path.\n" || s.Shape != skills.ShapeReview {
		t.Fatalf("override: %+v, %v", s, err)
	}
	if s, err := lib.Get("my_fill"); err != nil || s.Shape != skills.ShapeDraft {
		t.Fatalf("custom skill: %+v, %v", s, err)
	}
	if _, err := lib.Get("review_canon"); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlink override: err = %v", err)
	}
	if s, err := lib.Get("body_fill"); err != nil || s.Source != "embedded" {
		t.Fatalf("fallback: %+v, %v", s, err)
	}
	if _, err := lib.Get("nope"); !errors.Is(err, skills.ErrUnknownSkill) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := lib.Get("../etc"); err == nil {
		t.Fatal("a path as a skill name must be refused")
	}
	if _, err := s.Render(map[string]string{}); err == nil {
		t.Fatal("rendering with a missing var must fail")
	}
}
