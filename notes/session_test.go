package notes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeSessionID(t *testing.T) {
	for in, want := range map[string]string{
		"7f3c2a10-5b6e-4d8f-9a01-2c3d4e5f6a71": "7f3c2a10-5b6e-4d8f-9a01-2c3d4e5f6a71",
		"../../etc/passwd":                     "_.._etc_passwd",
		"a/b":                                  "a_b",
		"..":                                   "",
		"":                                     "",
		"/":                                    "",
		".hidden":                              "hidden",
	} {
		got, ok := SanitizeSessionID(in)
		if got != want || ok != (want != "") {
			t.Errorf("SanitizeSessionID(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if strings.Contains(got, "/") || got == ".." {
			t.Errorf("%q is not one path segment", got)
		}
	}
	long, _ := SanitizeSessionID(strings.Repeat("a", 1000))
	if len(long) > 128 {
		t.Errorf("id of %d bytes; cap is 128", len(long))
	}
}

func TestSessionRoundTripAndBounds(t *testing.T) {
	s := Session{ID: "s1", Status: SessionOpen}
	for i := 0; i < 100; i++ {
		s.AddSummary(strings.Repeat("é", 1000))
		s.AddSummary("turn " + string(rune('a'+i%26)))
	}
	if len(s.Summaries) > MaxSessionSummaries {
		t.Fatalf("%d summaries kept; bound is %d", len(s.Summaries), MaxSessionSummaries)
	}
	s.AddFollowup(SessionFollowup{Text: "add jitter", Status: FollowupPending})
	s.AddFollowup(SessionFollowup{Text: "Add jitter", Status: FollowupPending})
	s.AddCommit(SessionCommit{SHA: "abc", Subject: "x", Files: []string{"a.go"}})
	s.AddCommit(SessionCommit{SHA: "abc", Subject: "x"})
	back, err := ParseSession(s.Render())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Followups) != 1 || len(back.Pending()) != 1 || len(back.Commits) != 1 || back.Files[0] != "a.go" {
		t.Fatalf("round trip: %+v", back)
	}
	if _, err := ParseSession([]byte("status: open\n")); err == nil {
		t.Fatal("a record without id parsed")
	}
}

func TestFitContextCutsByPriorityNeverMidCharacter(t *testing.T) {
	secs := []ContextSection{
		{Name: "bridge note", Text: strings.Repeat("노트 한 줄입니다\n", 20)},
		{Name: "awaiting a person", Text: "2 follow-ups need routing"},
		{Name: "memory index", Text: strings.Repeat("- memory line\n", 50)},
	}
	whole := FitContext(secs, 1<<20)
	if strings.Contains(whole, "Left out") {
		t.Fatalf("a big budget left something out:\n%s", whole)
	}
	for _, budget := range []int{300, 500, 800, 1000} {
		got := FitContext(secs, budget)
		if len(got) > budget || !utf8.ValidString(got) {
			t.Fatalf("budget %d: %d bytes, valid UTF-8 %v", budget, len(got), utf8.ValidString(got))
		}
		if !strings.Contains(got, "Left out to stay within") || !strings.Contains(got, "memory index") {
			t.Fatalf("budget %d: does not say what was left out:\n%s", budget, got)
		}
	}
}
