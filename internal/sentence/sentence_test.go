package sentence

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"Bumped Go to 1.26 and fixed the build. Tests pass.", []string{"Bumped Go to 1.26 and fixed the build.", "Tests pass."}},
		{"Released v2.0.1 today", []string{"Released v2.0.1 today"}},
		{"Edited main.go and go.mod. Done!", []string{"Edited main.go and go.mod.", "Done!"}},
		{"Use a tool, e.g. gofmt, then i.e. vet. Next.", []string{"Use a tool, e.g. gofmt, then i.e. vet.", "Next."}},
		{"Lists, sets etc. are fine. Dr. Who agreed.", []string{"Lists, sets etc. are fine.", "Dr. Who agreed."}},
		{"Made in the U.S. by us. Ok", []string{"Made in the U.S. by us.", "Ok"}},
		{"Really?! Yes... maybe. \"Quoted.\" (Bracketed.) End", []string{"Really?!", "Yes...", "maybe.", "\"Quoted.\"", "(Bracketed.)", "End"}},
		{"Pi is 3.14.", []string{"Pi is 3.14."}},
		{"Ends with main.go.", []string{"Ends with main.go."}},
		{"다음 세션에 하자。그리고 테스트！", []string{"다음 세션에 하자。", "그리고 테스트！"}},
		{"line one\nline two. three", []string{"line one\nline two.", "three"}},
		{"  ", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Split(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFirst(t *testing.T) {
	t.Parallel()
	if got := First("Bumped Go to 1.26 and the linter. More."); got != "Bumped Go to 1.26 and the linter." {
		t.Errorf("First = %q", got)
	}
	if got := FirstN("One.  Two\n  words. Three.", 2); got != "One. Two words." {
		t.Errorf("FirstN = %q", got)
	}
	if got := FirstN("Only one", 2); got != "Only one" {
		t.Errorf("FirstN = %q", got)
	}
}

func TestFirstEnd(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Bumped Go to 1.26 and the linter. More.": "Bumped Go to 1.26 and the linter",
		"Set it in CI. Deploy works.":             "Set it in CI",
		"No terminator at all":                    "No terminator at all",
		"Asked (why?) Then":                       "Asked (why",
		"":                                        "",
	} {
		if got := in[:FirstEnd(in)]; got != want {
			t.Errorf("FirstEnd(%q) cuts %q, want %q", in, got, want)
		}
	}
}
