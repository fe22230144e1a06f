package notes

import (
	"reflect"
	"testing"
)

func TestParseArtifacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want WrapInput
		err  bool
	}{
		{"yaml", "context_hint: Parser streams now\nchanged_files: [a.go, b.go]\ntest_results: 12 passed\nwitness_verdicts:\n  - PASS iter1\n  - WARN iter2 not-covered\nmode: all\n",
			WrapInput{Hint: "Parser streams now", ChangedFiles: []string{"a.go", "b.go"}, Tests: "12 passed", Witness: "PASS iter1; WARN iter2 not-covered", Mode: "all"}, false},
		{"json", `{"Context hint": "x", "Changed files": "a.go, b.go", "Loop report": "N/A", "loop": "keep", "done": ["Phase 1"]}`,
			WrapInput{Hint: "x", ChangedFiles: []string{"a.go", "b.go"}, Loop: "keep", Done: []string{"Phase 1"}}, false},
		{"markdown prompt", "## Scribe Dispatch\n\n**Mode**: journal\n**Timestamp**: 2026-03-01T10:00:00+09:00\n\n### Artifacts\n- Git diff: +10 -2\n- Changed files: a.go, b.go, c.go\n- Loop report: N/A\n- Test results: 3 passed\n- Witness verdicts: PASS (iter 1)\n\n### Context hint\nRefactored the parser.\nNext: docs.\n",
			WrapInput{Mode: "journal", DiffSummary: "+10 -2", ChangedFiles: []string{"a.go", "b.go", "c.go"}, Tests: "3 passed", Witness: "PASS (iter 1)", Hint: "Refactored the parser. Next: docs."}, false},
		{"template placeholder mode ignored", "## Scribe Dispatch\n**Mode**: {bridge | journal | progress | witness_log | all}\n### Context hint\nhi\n",
			WrapInput{Hint: "hi"}, false},
		{"bad loop", "loop: maybe\n", WrapInput{}, true},
		{"not a mapping", "- a\n- b\n", WrapInput{}, true},
		{"bad yaml", "a: [\n", WrapInput{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseArtifacts([]byte(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want err %v", err, tt.err)
			}
			if !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseArtifacts(f *testing.F) {
	f.Add([]byte("context_hint: x\nchanged_files: [a]\n"))
	f.Add([]byte("## Scribe Dispatch\n**Mode**: all\n- Changed files: a, b\n### Context hint\nx\n"))
	f.Add([]byte(`{"mode":"journal","done":["a",1,null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseArtifacts(data)
		if err == nil {
			if err := ValidateInput(in); err != nil {
				t.Fatalf("parsed input fails validation: %v", err)
			}
		}
	})
}
