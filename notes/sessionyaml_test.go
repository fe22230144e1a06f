package notes

import (
	"fmt"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// yamlTrickyStrings are strings at the edges of yaml.v3's style choices:
// indicators, quotes, what reads as another type, what it escapes.
var yamlTrickyStrings = []string{
	"", " ", "a", "change 27174", "fix: the parser", "a:b", "a:", ":a", ": a", "?a", "? a", "-x", "- x", "-",
	"--- a", "...", "..a", "#a", "a#b", "a #b", "a# b", "it's", "'q'", `"q"`, `back\slash`, "a  b", " lead", "trail ",
	"true", "True", "yes", "Off", "y", "null", "~", "<<", "<a", "tilde~", "1", "12", "1.5", ".5", ".inf", "-.inf",
	"+1", "1e5", "1E5", "0x1F", "0x1g", "0b101", "0o17", "017", "1_000", "1:30", "190:20:30", "2026-12-02",
	"2026-12-02T03:27:25Z", "2026-1-2 3:4:5", "2026-12-02 later", "29f52d7b9d4e7783f993efee1033120295507e71",
	"1234567890123456789012345678901234567890", "1e10000000000000000000000000000000000000", "0bc", "1.0.0", "v1.0",
	"résumé ok", "日本語のテキスト", "한국어 요약입니다", "→ arrow", "✅ done", "🎉 party", "a\tb", "a\nb", "a\r", "x\u0085y",
	"x\u2028y", "\ufeffbom", "\u00a0nbsp", "bad\xffutf8", "nul\x00", "del\x7f", "[x]", "{x}", "a,b", "a[0]", "&a", "*a",
	"!tag", "|pipe", ">gt", "%pct", "@at", "`tick`", "a: b: c", "path/to/file.go", ".claude/sonmat/bridge-note.md",
	"CLAUDE.md", "refs/heads/main", "go test ./... -run 'TestX'", "50% done", "a ? b", "ends with colon:",
}

// trickySession puts s in every string of a record.
func trickySession(s string) Session {
	at := time.Date(2026, 12, 2, 3, 27, 25, 326021603, time.UTC)
	return Session{
		ID: s, Agent: s, Status: SessionStatus(s), Branch: s, StartHead: s, Head: s,
		Started: at, Updated: at.Add(time.Minute), Ended: at.Add(time.Hour), EndReason: s,
		Stops: 3, Transcript: s, Format: s, Offset: 41006, SkippedLines: 2,
		Commits: []SessionCommit{
			{SHA: s, Subject: s, PatchID: s, Files: []string{s, "a.go"}, Added: 3, Deleted: 1},
			{SHA: "abc", Subject: s},
		},
		Files: []string{s}, Tests: []string{s, "go test"}, Summaries: []string{s},
		Followups: []SessionFollowup{{Text: s, Project: s, Quote: s, Status: FollowupStatus(s)}, {Text: "x"}},
		Signals:   []string{s}, Entry: s,
	}
}

func mustMarshal(t testing.TB, s Session) string {
	t.Helper()
	b, err := yaml.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRenderSessionIsYAMLMarshal(t *testing.T) {
	records := []Session{{}, {ID: "s1", Status: SessionOpen}, longSession(120)}
	for _, s := range yamlTrickyStrings {
		records = append(records, trickySession(s))
	}
	fast := 0
	for _, s := range records {
		want := mustMarshal(t, s)
		if got := string(s.Render()); got != want {
			t.Fatalf("Render(%q) =\n%s\nyaml.Marshal:\n%s", s.ID, got, want)
		}
		if out, ok := renderSession(s); ok {
			fast++
			if string(out) != want {
				t.Fatalf("renderSession(%q) =\n%s\nyaml.Marshal:\n%s", s.ID, out, want)
			}
		}
	}
	// The fast path is the common one: all but the records holding a tab,
	// a line break, a control character, an invalid byte or a rune yaml.v3
	// escapes.
	if fast < len(records)-12 {
		t.Fatalf("only %d of %d records rendered without yaml.v3", fast, len(records))
	}
}

// TestYAMLScalarStyles pins the styles yamlScalar decides itself, so that
// the fast path is not silently lost to yamlUnsure.
func TestYAMLScalarStyles(t *testing.T) {
	for s, want := range map[string]yamlStyle{
		"29f52d7b9d4e7783f993efee1033120295507e71": yamlPlain,
		"change 27174":         yamlPlain,
		"path/to/file.go":      yamlPlain,
		"-v2 flag":             yamlPlain,
		"한국어 요약입니다":            yamlPlain,
		"fix: the parser":      yamlSingleQuoted,
		"it's: here":           yamlSingleQuoted,
		"":                     yamlEmpty,
		"12":                   yamlUnsure,
		"1e10000000":           yamlUnsure,
		"0x1f":                 yamlUnsure,
		"2026-12-02T03:27:25Z": yamlUnsure,
		"a\nb":                 yamlOther,
		"🎉":                    yamlOther,
	} {
		if got := yamlScalar(s); got != want {
			t.Errorf("yamlScalar(%q) = %d, want %d", s, got, want)
		}
	}
}

// longSession is a record of n commits, as a long agent session leaves.
func longSession(n int) Session {
	at := time.Date(2026, 12, 2, 3, 27, 25, 326021603, time.UTC)
	s := Session{ID: "4f1c2a0e-8b7d-4c3a-9e2f-1a2b3c4d5e6f", Agent: "claude", Status: SessionOpen,
		Branch: "refs/heads/main", StartHead: "29f52d7b9d4e7783f993efee1033120295507e71",
		Started: at, Updated: at, Stops: n, Transcript: "/home/u/.claude/projects/p/s.jsonl", Format: "claude"}
	for i := range n {
		s.AddCommit(SessionCommit{SHA: fmt.Sprintf("%040x", 0xabcdef1234567+i*7919), Subject: fmt.Sprintf("fix: step %d of the parser", i),
			Files: []string{"cmd/wrap.go", fmt.Sprintf("vault/f%d.go", i)}, Added: i, Deleted: 1})
		s.AddSummary(fmt.Sprintf("Turn %d: edited the parser and ran go test ./... — all pass.", i))
	}
	return s
}

func FuzzSessionRender(f *testing.F) {
	for _, s := range yamlTrickyStrings {
		f.Add(s, "b", int64(1764645000), int32(0))
	}
	f.Add("a", "b", int64(-62135596800), int32(-3600))
	f.Add("x", "y", int64(253402300800), int32(345*60))
	f.Fuzz(func(t *testing.T, a, b string, unix int64, zone int32) {
		s := trickySession(a)
		s.Commits[1].Subject, s.Files = b, append(s.Files, b)
		s.Started = time.Unix(unix, int64(zone)&0xffff).In(time.FixedZone("", int(zone%100000)))
		s.Ended = time.Time{}
		if want := mustMarshal(t, s); string(s.Render()) != want {
			t.Fatalf("Render =\n%s\nyaml.Marshal:\n%s", s.Render(), want)
		}
		// yaml.v3 writes a year past 9999 that it cannot read back.
		if _, err := ParseSession(s.Render()); err != nil && s.ID != "" && s.Started.Year() <= 9999 {
			t.Fatalf("ParseSession(Render): %v", err)
		}
	})
}

func BenchmarkSessionRender(b *testing.B) {
	s := longSession(100)
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			s.Render()
		}
	})
	b.Run("yaml.Marshal", func(b *testing.B) {
		for b.Loop() {
			yaml.Marshal(s)
		}
	})
}
