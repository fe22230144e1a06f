package notes

import (
	"reflect"
	"testing"
)

// TestSessionCloneIsDeep: every slice of a clone, the commits' file lists
// too, has its own backing array — a field added to Session later without
// a line in Clone fails here.
func TestSessionCloneIsDeep(t *testing.T) {
	s := Session{ID: "s", Commits: []SessionCommit{{SHA: "a", Files: []string{"x"}}}, Files: []string{"f"},
		Tests: []string{"t"}, Summaries: []string{"s"}, Followups: []SessionFollowup{{Text: "f"}}, Signals: []string{"g"}}
	sv := reflect.ValueOf(s)
	for i := 0; i < sv.NumField(); i++ {
		if f := sv.Field(i); f.Kind() == reflect.Slice && f.Len() == 0 {
			t.Fatalf("the test's session leaves %s empty: fill it", sv.Type().Field(i).Name)
		}
	}
	c := s.Clone()
	if !reflect.DeepEqual(c, s) {
		t.Fatalf("clone differs: %+v", c)
	}
	cv := reflect.ValueOf(c)
	for i := 0; i < sv.NumField(); i++ {
		if f := sv.Field(i); f.Kind() == reflect.Slice && f.Pointer() == cv.Field(i).Pointer() {
			t.Errorf("Clone shares %s", sv.Type().Field(i).Name)
		}
	}
	c.Commits[0].Files[0] = "changed"
	c.AddCommit(SessionCommit{SHA: "b"})
	if s.Commits[0].Files[0] != "x" || len(s.Commits) != 1 {
		t.Errorf("changing the clone changed the original: %+v", s.Commits)
	}
}
