package vault

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/notes"
)

func TestReadWrapInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	artifacts := filepath.Join(dir, "dispatch.yaml")
	if err := os.WriteFile(artifacts, []byte("context_hint: from artifacts\ntests: 3 passed\nnext: [a]\nloop: discard\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "loop.md")
	if err := os.WriteFile(report, []byte("iter 1: ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	given := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, g := range names {
				if g == n {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name    string
		o       InputOptions
		want    notes.WrapInput
		hook    bool
		wantErr string
	}{
		{
			name: "flags a person gave win; lists are appended",
			o: InputOptions{Artifacts: artifacts, Set: given("hint", "next", "loop"),
				Flags: notes.WrapInput{Hint: "from flags", Tests: "ignored: not given", Next: []string{"b"}, Loop: "keep", DryRun: true}},
			want: notes.WrapInput{Hint: "from flags", Tests: "3 passed", Next: []string{"a", "b"}, Loop: "keep", DryRun: true},
		},
		{
			name: "artifacts on stdin, with the loop report",
			o:    InputOptions{Artifacts: "-", Stdin: strings.NewReader("hint: piped\n"), LoopReport: report},
			want: notes.WrapInput{Hint: "piped", LoopReport: "iter 1: ok\n"},
		},
		{
			name: "a SessionEnd hook fills the hint from the agent's last message",
			o:    InputOptions{Hook: true, Stdin: strings.NewReader(`{"hook_event_name":"SessionEnd","last_assistant_message":"Parser streams now. Fuzz corpus added. Docs next.","transcript_path":"/t.jsonl"}`)},
			want: notes.WrapInput{Hint: "Parser streams now. Fuzz corpus added.", SessionEnd: true},
			hook: true,
		},
		{
			name: "an empty hook is a hook",
			o:    InputOptions{Hook: true, Stdin: strings.NewReader("  \n")},
			hook: true,
		},
		{name: "hook input that is not JSON", o: InputOptions{Hook: true, Stdin: strings.NewReader("{")}, wantErr: "hook input is not JSON"},
		{name: "artifacts and hook both on stdin", o: InputOptions{Hook: true, Artifacts: "-", Stdin: strings.NewReader("{}")}, wantErr: "both want stdin"},
		{name: "missing artifacts", o: InputOptions{Artifacts: filepath.Join(dir, "none.yaml")}, wantErr: "read artifacts"},
		{name: "missing loop report", o: InputOptions{LoopReport: filepath.Join(dir, "none.md")}, wantErr: "read loop report"},
		{name: "invalid loop from flags", o: InputOptions{Set: given("loop"), Flags: notes.WrapInput{Loop: "maybe"}}, wantErr: "loop must be keep or discard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, hook, err := ReadWrapInput(tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in, tt.want) {
				t.Errorf("input =\n%+v\nwant\n%+v", in, tt.want)
			}
			if (hook != nil) != tt.hook {
				t.Errorf("hook = %v, want one: %v", hook, tt.hook)
			}
		})
	}
}
