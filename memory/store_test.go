package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/transcript"
)

func readSession(t *testing.T, name string) []Turn {
	t.Helper()
	tr, err := transcript.ReadFile(filepath.Join("testdata", "transcripts", name))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stats.Corrupt != 1 {
		t.Fatalf("%s: want the one corrupt line skipped, stats %+v", name, tr.Stats)
	}
	return TurnsOf(tr)
}

func collectSession(t *testing.T, ts *testStore, name, trigger string) CollectResult {
	t.Helper()
	snap, p, err := ts.Intake(readSession(t, name), trigger, "session-"+name, name, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil || !strings.HasPrefix(p, ts.Repo.ScribeDir()) {
		t.Fatalf("snapshot %s not under the git dir: %v", p, err)
	}
	res, err := ts.Collect(context.Background(), snap, Pipeline{Analyzers: BuiltinAnalyzers(ts.Keywords())})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byDetector(cs []Candidate) map[string][]Candidate {
	m := map[string][]Candidate{}
	for _, c := range cs {
		m[c.Detector] = append(m[c.Detector], c)
	}
	return m
}

func TestCollectTranscripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		correction string
		topic      string
		tacit      string
	}{
		{"en_session.jsonl", "Use exponential backoff with jitter, not a fixed delay", "retry backoff", "turns out the upstream API rate-limits us"},
		{"kr_session.jsonl", "지수 백오프에 지터를 넣어서 구현해 주세요", "재시도 간격", "알고 보니 업스트림 API가"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			ts := newTestStore(t)
			before, n := ts.userWork(), ts.commits()
			res := collectSession(t, ts, tt.file, TriggerManual)
			if !res.Fired || len(res.Failed) != 0 {
				t.Fatalf("collect: %+v", res)
			}
			got := byDetector(res.Queued)
			if c := got[DetectorCorrection]; len(c) != 1 || c[0].Content != tt.correction || c[0].Occurrences != 2 || c[0].Dir() != "corrections" {
				t.Errorf("correction candidates %+v", c)
			}
			found := false
			for _, c := range got[DetectorPattern] {
				found = found || (c.Topic == tt.topic && c.Occurrences == 3)
			}
			if !found {
				t.Errorf("no pattern candidate for %q in %+v", tt.topic, got[DetectorPattern])
			}
			if c := got[DetectorTacit]; len(c) != 1 || !strings.Contains(c[0].Content, tt.tacit) {
				t.Errorf("tacit candidates %+v", c)
			}
			for _, c := range res.Queued {
				if c.EvaluatorScore != 0 || c.OverlapBand != BandLow || c.Trigger != TriggerManual {
					t.Errorf("%s: score %.2f band %s trigger %s, want 0.0 Low manual (no judge, no memory)", c.ID, c.EvaluatorScore, c.OverlapBand, c.Trigger)
				}
			}
			q, warns := ts.Queue()
			if len(q) != len(res.Queued) || len(warns) != 0 {
				t.Errorf("queue %d (%v), want %d", len(q), warns, len(res.Queued))
			}
			if ts.userWork() != before || ts.commits() != n || ts.Exists(".claude") {
				t.Error("collect wrote to the repository")
			}
			again := collectSession(t, ts, tt.file, TriggerSessionWrap)
			if len(again.Queued) != 0 {
				t.Errorf("a second collect queued %d again", len(again.Queued))
			}
		})
	}
}

func TestConditionalTriggers(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	calm := []Turn{{0, RoleUser, "Please add a README section."}, {1, RoleAssistant, "Added."}}
	for _, trig := range []string{TriggerUserCorrection, TriggerPatternRepeat} {
		snap, _, err := ts.Intake(calm, trig, "calm", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ts.Collect(context.Background(), snap, Pipeline{Analyzers: BuiltinAnalyzers(ts.Keywords())})
		if err != nil || res.Fired || len(res.Queued) != 0 {
			t.Errorf("%s fired on a calm session: %+v %v", trig, res, err)
		}
	}
	snap, _, _ := ts.Intake(readSession(t, "en_session.jsonl"), TriggerUserCorrection, "s", "", 0)
	if ok, _ := Fired(snap, TriggerUserCorrection, ts.Keywords()); !ok {
		t.Error("user_correction did not fire on a correction")
	}
	if ok, _ := Fired(snap, TriggerPatternRepeat, ts.Keywords()); !ok {
		t.Error("pattern_repeat did not fire on a topic raised three times")
	}
}

func TestIntakeWindow(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	var turns []Turn
	for i := range 80 {
		turns = append(turns, Turn{Index: i, Role: RoleUser, Text: "turn with ghp_secretsecretsecretsecretsecretsecret"})
	}
	snap, p, err := ts.Intake(turns, TriggerManual, "../../evil", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Turns) != 50 || snap.TurnRange != [2]int{30, 79} {
		t.Errorf("window: %d turns %v", len(snap.Turns), snap.TurnRange)
	}
	if filepath.Dir(p) != filepath.Join(ts.RuntimeDir(), "sessions") {
		t.Errorf("hostile session id escaped: %s", p)
	}
	data, _ := os.ReadFile(p)
	if strings.Contains(string(data), "ghp_secret") {
		t.Error("the snapshot kept a secret")
	}
}

func TestAnalyzerFailures(t *testing.T) {
	t.Parallel()
	good := fixedAnalyzer{det: DetectorTacit, out: []Candidate{cand(TypeTacit, "Cache keys", "The cache key includes the locale, so flush per locale.")}}
	goodToo := fixedAnalyzer{det: DetectorPreference, out: []Candidate{{Type: TypePreference, Name: "Short answers", Description: "d", Content: "I prefer short answers with code first.", Scope: ScopeUser}}}
	tests := []struct {
		name      string
		as        []Analyzer
		queued    int
		failed    int
		wantWarns string
	}{
		{"all fine", []Analyzer{good, goodToo}, 2, 0, ""},
		{"one fails: merge the rest", []Analyzer{good, goodToo, fixedAnalyzer{det: DetectorPattern, fail: true}}, 2, 1, "merged the others"},
		{"a panic is a failure", []Analyzer{good, panicky{}}, 1, 1, "panic"},
		{"two fail: empty queue", []Analyzer{good, goodToo, fixedAnalyzer{det: DetectorPattern, fail: true}, fixedAnalyzer{det: DetectorCorrection, fail: true}}, 0, 2, "nothing queued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := newTestStore(t)
			snap, _, _ := ts.Intake([]Turn{{0, RoleUser, "hello"}}, TriggerManual, "s", "", 0)
			res, err := ts.Collect(context.Background(), snap, Pipeline{Analyzers: tt.as})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Queued) != tt.queued || len(res.Failed) != tt.failed {
				t.Errorf("queued %d failed %v, want %d %d", len(res.Queued), res.Failed, tt.queued, tt.failed)
			}
			if tt.wantWarns != "" && !strings.Contains(strings.Join(res.Warnings, "\n"), tt.wantWarns) {
				t.Errorf("warnings %q lack %q", res.Warnings, tt.wantWarns)
			}
		})
	}
}

type panicky struct{}

func (panicky) Detector() string { return DetectorPattern }
func (panicky) Analyze(context.Context, Snapshot) ([]Candidate, error) {
	panic("boom")
}

type constJudge struct {
	score float64
	err   error
}

func (j constJudge) Score(context.Context, Candidate) (float64, error) { return j.score, j.err }

func TestValidator(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	dup := []Analyzer{
		fixedAnalyzer{det: DetectorCorrection, out: []Candidate{cand(TypeCorrection, "Tabs", "Always use tabs for indentation in Go files.")}},
		fixedAnalyzer{det: DetectorTacit, out: []Candidate{cand(TypeCorrection, "Tabs", "Always use tabs for indentation in Go source files.")}},
	}
	snap, _, _ := ts.Intake([]Turn{{0, RoleUser, "x"}}, TriggerManual, "s", "", 0)
	res, err := ts.Collect(context.Background(), snap, Pipeline{Analyzers: dup, Judge: constJudge{score: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Queued) != 1 || res.Queued[0].Detector != DetectorCorrection || res.Queued[0].EvaluatorScore != 0.9 {
		t.Fatalf("within-batch dedup / judge: %+v dropped %+v", res.Queued, res.Dropped)
	}
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0].Reason, "duplicate in this batch") {
		t.Errorf("dropped %+v", res.Dropped)
	}
	// A memory on the same subject: overlap band against it.
	ts.Write(".claude/memory/tacit/indent.md", RenderRecord(Record{Name: "Indentation", Description: "d", Type: TypeTacit, CandidateID: "aaaaaaaaaaaa",
		PromotedAt: "2026-01-01T00:00:00+00:00", SourceTurn: 1}, "# Indentation\n\nGo files use tabs for indentation, gofmt enforces it.\n"))
	near := []Analyzer{fixedAnalyzer{det: DetectorTacit, out: []Candidate{cand(TypeTacit, "Indentation", "Go files use tabs for indentation; gofmt enforces it.")}}}
	res, _ = ts.Collect(context.Background(), snap, Pipeline{Analyzers: near})
	if len(res.Queued) != 0 || len(res.Dropped) != 1 || res.Dropped[0].Reason != "duplicate of .claude/memory/tacit/indent.md" {
		t.Errorf("want a duplicate of the memory dropped, got %+v %+v", res.Queued, res.Dropped)
	}
	other := []Analyzer{fixedAnalyzer{det: DetectorTacit, out: []Candidate{cand(TypeTacit, "Indentation width", "Indentation in Go code is tabs because gofmt rewrites spaces.")}}}
	res, _ = ts.Collect(context.Background(), snap, Pipeline{Analyzers: other, Judge: constJudge{err: errors.New("judge offline")}})
	if len(res.Queued) != 1 {
		t.Fatalf("related candidate: %+v %+v", res.Queued, res.Dropped)
	}
	if c := res.Queued[0]; c.OverlapWith != ".claude/memory/tacit/indent.md" || c.OverlapBand != BandModerate || c.EvaluatorScore != 0 {
		t.Errorf("overlap %s %.2f with %q, score %.2f", c.OverlapBand, c.OverlapScore, c.OverlapWith, c.EvaluatorScore)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "judge offline") {
		t.Errorf("judge failure not reported: %q", res.Warnings)
	}
	// A broken memory file is reported, not fatal.
	ts.Write(".claude/memory/tacit/broken.md", "no frontmatter\n")
	res, _ = ts.Collect(context.Background(), snap, Pipeline{Analyzers: []Analyzer{fixedAnalyzer{det: DetectorTacit, out: []Candidate{cand(TypeTacit, "New", "Something new entirely about release trains.")}}}})
	if len(res.Queued) != 1 || !strings.Contains(strings.Join(res.Warnings, "\n"), "broken.md") {
		t.Errorf("broken memory: %+v %q", res.Queued, res.Warnings)
	}
}

func TestGateFlow(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	ts.Write("CLAUDE.md", "# mine\n")
	ts.Write("wip.txt", "uncommitted\n")
	ts.GitTrim("add", "CLAUDE.md")
	before := ts.userWork()
	res := collectSession(t, ts, "en_session.jsonl", TriggerSessionWrap)
	corr := byDetector(res.Queued)[DetectorCorrection][0]
	tacit := byDetector(res.Queued)[DetectorTacit][0]
	n := ts.commits()

	// Queue order is creation then id; answer by id.
	show, _, _ := ts.Presentable()
	answers := map[string]string{corr.ID: "y", tacit.ID: ""}
	var script []string
	for _, c := range show {
		a, ok := answers[c.ID]
		if !ok {
			a = "s"
		}
		script = append(script, a)
	}
	ask := &scriptedAsker{answers: script}
	gr, err := ts.RunGate(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	if gr.Status != "committed" || len(gr.Promoted) != 1 || len(gr.Rejected) != 1 || len(gr.Skipped) != len(show)-2 {
		t.Fatalf("gate: %+v", gr)
	}
	if ts.commits() != n+1 {
		t.Fatalf("want exactly one commit, got %d", ts.commits()-n)
	}
	msg := ts.GitTrim("log", "-1", "--format=%B")
	for _, want := range []string{"progress: memory +1 -1 (compound)", "Scribe-Mode: compound", "Scribe-Confirmed: yes", "Scribe-Candidates: "} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	p := gr.Promoted[0].Path
	if !strings.HasPrefix(p, ".claude/memory/corrections/") {
		t.Errorf("a user correction promoted to %s", p)
	}
	data := ts.Read(p)
	if errs := SchemaErrors([]byte(data), "corrections", false); len(errs) > 0 {
		t.Errorf("schema: %v\n%s", errs, data)
	}
	rec, body, _ := ParseRecord([]byte(data))
	if rec.CandidateID != corr.ID || rec.PromotedAt != "2026-01-02T03:04:05+00:00" || rec.TriggerSource != TriggerSessionWrap || !strings.HasPrefix(body, "# "+rec.Name+"\n") {
		t.Errorf("record %+v\n%s", rec, body)
	}
	ix := ParseIndex(ts.Read(".claude/memory/MEMORY.md"))
	if len(ix.Entries) != 1 || ix.Entries[0].Path != strings.TrimPrefix(p, ".claude/memory/") || len(ix.Malformed) != 0 {
		t.Errorf("index %+v", ix)
	}
	rej := ".claude/memory/corrections/_rejected/" + tacit.ID + ".md"
	if !ts.Exists(rej) || !strings.Contains(ts.Read(".claude/memory/corrections/_rejected/_rejections.log"), "\trejected\t"+tacit.ID+"\ttacit\t") {
		t.Error("rejection history not written")
	}
	if got := ts.GitTrim("show", "--name-only", "--format=", "HEAD"); strings.Count(got, "\n")+1 != 4 {
		t.Errorf("commit touches %q, want the record, the index, the rejection and the log", got)
	}
	if ts.userWork() != before {
		t.Error("the user's staged/unstaged/untracked work changed")
	}
	if q, _ := ts.Queue(); len(q) != len(show)-2 {
		t.Errorf("queue after gate: %d, want the %d skipped", len(q), len(show)-2)
	}
	if st := ts.DetectorStates(); st[0].ConsecutiveRejections != 1 || st[1].ConsecutiveRejections != 0 {
		t.Errorf("detector streaks %+v", st)
	}

	// Collect again: the rejected and the promoted ones are not proposed.
	again := collectSession(t, ts, "en_session.jsonl", TriggerSessionWrap)
	reasons := map[string]string{}
	for _, d := range again.Dropped {
		reasons[d.ID] = d.Reason
	}
	if !strings.HasPrefix(reasons[tacit.ID], "rejected before") || !strings.HasPrefix(reasons[corr.ID], "already promoted") || len(again.Queued) != 0 {
		t.Errorf("re-collect: queued %d, reasons %v", len(again.Queued), reasons)
	}

	// The skipped ones are presented again.
	ask2 := &scriptedAsker{answers: []string{"s", "s", "s", "s", "s"}[:len(show)-2]}
	gr2, _ := ts.RunGate(context.Background(), ask2)
	if len(ask2.asked) != len(show)-2 || gr2.Status != "nothing" || ts.commits() != n+1 {
		t.Errorf("second gate asked %d, status %s", len(ask2.asked), gr2.Status)
	}
}

func TestGateEditAndCollision(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	c := cand(TypeTacit, "Release trains", "Releases leave every Tuesday.")
	slugPath := ".claude/memory/tacit/release-trains.md"
	ts.Write(slugPath, "# Mine\n\nmy own note, committed\n")
	ts.GitTrim("add", "-A")
	ts.GitTrim("commit", "-q", "-m", "my note")
	ts.Write(".claude/memory/tacit/release-trains-"+CandidateID(TypeTacit, c.Content)[:8]+".md", "untracked, also mine\n")
	snap, _, _ := ts.Intake([]Turn{{0, RoleUser, "x"}}, TriggerManual, "s", "", 0)
	if _, err := ts.Collect(context.Background(), snap, Pipeline{Analyzers: []Analyzer{fixedAnalyzer{det: DetectorTacit, out: []Candidate{c}}}}); err != nil {
		t.Fatal(err)
	}
	gr, err := ts.RunGate(context.Background(), &scriptedAsker{answers: []string{"e:Releases leave every Tuesday at 10:00 KST; token ghp_secretsecretsecretsecretsecretsecret"}})
	if err != nil || gr.Status != "committed" {
		t.Fatalf("%+v %v", gr, err)
	}
	id := CandidateID(TypeTacit, c.Content)
	want := ".claude/memory/tacit/release-trains-" + id + ".md"
	if gr.Promoted[0].Path != want {
		t.Errorf("collision: promoted to %s, want %s", gr.Promoted[0].Path, want)
	}
	if ts.Read(slugPath) != "# Mine\n\nmy own note, committed\n" || ts.Read(".claude/memory/tacit/release-trains-"+id[:8]+".md") != "untracked, also mine\n" {
		t.Error("an existing file was overwritten")
	}
	rec, body, _ := ParseRecord([]byte(ts.Read(want)))
	if !rec.Edited || !strings.Contains(body, "at 10:00 KST") || strings.Contains(body, "ghp_secret") || !strings.Contains(body, "[REDACTED:github-pat]") {
		t.Errorf("edited record %+v\n%s", rec, body)
	}
}

func TestDisableAfterThreeRejections(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	var cs []Candidate
	for _, s := range []string{"alpha rollout", "bravo metrics", "charlie cache", "delta queue"} {
		cs = append(cs, cand(TypeTacit, s, "The "+s+" needs a careful look before release day."))
	}
	pref := Candidate{Type: TypePreference, Name: "Short", Description: "d", Content: "I prefer short answers.", Scope: ScopeUser}
	snap, _, _ := ts.Intake([]Turn{{0, RoleUser, "x"}}, TriggerManual, "s", "", 0)
	as := []Analyzer{fixedAnalyzer{det: DetectorTacit, out: cs}, fixedAnalyzer{det: DetectorPreference, out: []Candidate{pref}}}
	if _, err := ts.Collect(context.Background(), snap, Pipeline{Analyzers: as}); err != nil {
		t.Fatal(err)
	}
	// An approval ends a streak; three rejections in a row disable.
	show, _, _ := ts.Presentable()
	var script []string
	tacitSeen := 0
	for _, c := range show {
		if c.Detector == DetectorPreference {
			script = append(script, "s")
			continue
		}
		tacitSeen++
		script = append(script, "n")
	}
	ask := &scriptedAsker{answers: script}
	gr, err := ts.RunGate(context.Background(), ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(gr.Disabled) != 1 || gr.Disabled[0].Detector != DetectorTacit || !gr.Disabled[0].DisabledUntil.Equal(ts.now.Add(7*24*time.Hour)) {
		t.Fatalf("disabled %+v", gr.Disabled)
	}
	if len(gr.Rejected) != 3 || len(gr.Held) != 1 || len(ask.notices) != 1 || !strings.Contains(ask.notices[0], "reactivate tacit") {
		t.Errorf("rejected %d held %d notices %q", len(gr.Rejected), len(gr.Held), ask.notices)
	}
	if until, off := ts.DisabledUntil(DetectorTacit); !off || until.IsZero() {
		t.Error("tacit not disabled")
	}
	// Disabled: collect skips it, the gate holds its candidates.
	res, _ := ts.Collect(context.Background(), snap, Pipeline{Analyzers: []Analyzer{fixedAnalyzer{det: DetectorTacit, out: []Candidate{cand(TypeTacit, "echo", "Echo is new and different from everything.")}}}})
	if len(res.Disabled) != 1 || len(res.Queued) != 0 {
		t.Errorf("collect with a disabled detector: %+v", res)
	}
	show, held, _ := ts.Presentable()
	if len(held) != 1 || len(show) != 1 || show[0].Detector != DetectorPreference {
		t.Errorf("presentable %d held %d", len(show), len(held))
	}
	// Seven days later it is back by itself; reactivate lifts it at once.
	ts.now = ts.now.Add(7*24*time.Hour + time.Second)
	if _, off := ts.DisabledUntil(DetectorTacit); off {
		t.Error("still disabled after 7 days")
	}
	ts.now = ts.now.Add(-2 * 24 * time.Hour)
	was, err := ts.Reactivate(DetectorTacit)
	if err != nil || !was {
		t.Fatalf("reactivate: %v %v", was, err)
	}
	if _, off := ts.DisabledUntil(DetectorTacit); off {
		t.Error("reactivate did not lift it")
	}
	if _, err := ts.Reactivate("gossip"); err == nil {
		t.Error("reactivating an unknown detector")
	}
	// A streak is reset by an approval.
	for _, a := range []Action{ActionRejected, ActionRejected, ActionApproved, ActionRejected, ActionRejected} {
		if _, now, _ := ts.noteDecision(DetectorCorrection, a); now {
			t.Fatal("disabled although an approval broke the streak")
		}
	}
}

func TestPendingRecovery(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	c := cand(TypeTacit, "Flaky clock", "The CI clock drifts; compare durations, not timestamps.")
	r := cand(TypeTacit, "Noise", "Something nobody wants to remember about lunch.")
	snap, _, _ := ts.Intake([]Turn{{0, RoleUser, "x"}}, TriggerManual, "s", "", 0)
	ts.Collect(context.Background(), snap, Pipeline{Analyzers: []Analyzer{fixedAnalyzer{det: DetectorTacit, out: []Candidate{c, r}}}})
	show, _, _ := ts.Presentable()
	var script []string
	for _, s := range show {
		if s.Name == "Noise" {
			script = append(script, "n")
		} else {
			script = append(script, "y")
		}
	}
	n := ts.commits()
	ts.Store.commit = func(context.Context, gitops.CommitRequest) (gitops.CommitResult, error) {
		return gitops.CommitResult{}, errors.New("write .claude/memory/tacit/flaky-clock.md: no space left on device")
	}
	gr, err := ts.RunGate(context.Background(), &scriptedAsker{answers: script})
	if err != nil {
		t.Fatal(err)
	}
	if gr.Status != "queued" || !strings.Contains(gr.Reason, "no space left") || ts.commits() != n || ts.PendingCount() != 1 {
		t.Fatalf("simulated failure: %+v, pending %d", gr, ts.PendingCount())
	}
	if q, _ := ts.Queue(); len(q) != 0 {
		t.Errorf("decided candidates still queued: %d", len(q))
	}
	// Still failing: stays pending.
	if rep := ts.LandPending(context.Background()); rep.Landed != 0 || rep.Waiting != 1 {
		t.Errorf("retry while failing: %+v", rep)
	}
	// Next run, the disk has room again.
	ts.Store.commit = nil
	rep := ts.LandPending(context.Background())
	if rep.Landed != 1 || rep.Waiting != 0 || ts.PendingCount() != 0 || ts.commits() != n+1 {
		t.Fatalf("recovery: %+v", rep)
	}
	if msg := ts.GitTrim("log", "-1", "--format=%s"); msg != "progress: memory +1 -1 (compound)" {
		t.Errorf("subject %q", msg)
	}
	if !ts.Exists(".claude/memory/tacit/flaky-clock.md") {
		t.Error("the pending memory was not written")
	}
	// Landing again changes nothing (idempotent).
	if _, err := ts.commitDecisions(context.Background(), []Decision{{Candidate: withID(c), Action: ActionApproved}}, ConfirmedYes); err != nil || ts.commits() != n+1 {
		t.Errorf("re-landing made a commit: %v", err)
	}
}

func withID(c Candidate) Candidate {
	c.ID = CandidateID(c.Type, c.Content)
	c.Detector = DetectorTacit
	return c
}

func TestPendingWhenIndexLocked(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	lock := filepath.Join(ts.Repo.GitDir, "index.lock")
	os.WriteFile(lock, nil, 0o644)
	res, err := ts.AddRule(context.Background(), "Always run go vet.")
	if err != nil || res.Status != "queued" || !strings.Contains(res.Reason, "index.lock") {
		t.Fatalf("%+v %v", res, err)
	}
	gr, err := ts.ApplyDecisions(context.Background(), []Decision{{Candidate: withID(cand(TypeTacit, "Locked", "Written after the lock is gone.")), Action: ActionApproved}})
	if err != nil || gr.Status != "queued" {
		t.Fatalf("%+v %v", gr, err)
	}
	os.Remove(lock)
	rep := ts.LandPending(context.Background())
	if rep.Landed != 2 || !strings.Contains(ts.Read("CLAUDE.md"), "- Always run go vet.") || !ts.Exists(".claude/memory/tacit/locked.md") {
		t.Errorf("after the lock: %+v", rep)
	}
}

func TestIndexSuggestionAndGlobal(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	ts.Config.Memory.Global = true
	var long strings.Builder
	long.WriteString("# Memory\n")
	for i := range 205 {
		long.WriteString("<!-- filler " + string(rune('a'+i%26)) + " -->\n")
	}
	ts.Write(".claude/memory/MEMORY.md", long.String())
	ts.GitTrim("add", "-A")
	ts.GitTrim("commit", "-q", "-m", "big index")
	gr, err := ts.ApplyDecisions(context.Background(), []Decision{{Candidate: withID(cand(TypeTacit, "Global", "Tagged with its project.")), Action: ActionApproved}})
	if err != nil || gr.Status != "committed" {
		t.Fatal(gr, err)
	}
	if gr.IndexLines != 207 || !strings.Contains(gr.Suggestion, "more than 200") {
		t.Errorf("index %d suggestion %q", gr.IndexLines, gr.Suggestion)
	}
	if !strings.HasPrefix(ts.Read(".claude/memory/MEMORY.md"), long.String()) {
		t.Error("MEMORY.md lines were removed")
	}
	rec, _, _ := ParseRecord([]byte(ts.Read(gr.Promoted[0].Path)))
	if rec.ProjectID != "demo" {
		t.Errorf("project_id %q", rec.ProjectID)
	}
	if errs := SchemaErrors([]byte(ts.Read(gr.Promoted[0].Path)), "tacit", true); len(errs) > 0 {
		t.Error(errs)
	}
}

func TestAddRuleCommit(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	claude := "# Project\n\nIntro.\n\n## Notes\n- keep\n"
	ts.Write("CLAUDE.md", claude)
	ts.GitTrim("add", "-A")
	ts.GitTrim("commit", "-q", "-m", "claude")
	res, err := ts.AddRule(context.Background(), "Never commit ghp_secretsecretsecretsecretsecretsecret again.")
	if err != nil || res.Status != "added" {
		t.Fatal(res, err)
	}
	got := ts.Read("CLAUDE.md")
	if !strings.HasPrefix(got, claude) || !strings.HasSuffix(got, "## Project Rules\n\n- Never commit [REDACTED:github-pat] again.\n") {
		t.Errorf("CLAUDE.md:\n%s", got)
	}
	msg := ts.GitTrim("log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "progress: project rule added\n") || !strings.Contains(msg, "Scribe-Confirmed: yes") || !strings.Contains(msg, "Scribe-Mode: rule") || strings.Contains(msg, "ghp_") {
		t.Errorf("message:\n%s", msg)
	}
	n := ts.commits()
	again, _ := ts.AddRule(context.Background(), "never commit [REDACTED:github-pat] again")
	if again.Status != "exists" || ts.commits() != n {
		t.Errorf("re-adding: %+v", again)
	}
}

func TestRecordTrap(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	tr := Trap{Title: "Frozen clock", Pattern: "p", Lesson: "l", AppliesTo: "a", Scope: ScopeProject, Flavor: FlavorVerificationFailure}
	res, err := ts.RecordTrap(context.Background(), tr)
	if err != nil || res.Status != "recorded" || res.Path != ".claude/sonmat/frozen-clock.md" || res.Commit == nil {
		t.Fatalf("%+v %v", res, err)
	}
	if msg := ts.GitTrim("log", "-1", "--format=%B"); !strings.Contains(msg, "Scribe-Confirmed: yes") || !strings.HasPrefix(msg, "progress: trap recorded: Frozen clock") {
		t.Errorf("message %q", msg)
	}
	same, _ := ts.RecordTrap(context.Background(), tr)
	if same.Status != "exists" {
		t.Errorf("same trap again: %+v", same)
	}
	tr.Pattern = "a different pattern"
	other, _ := ts.RecordTrap(context.Background(), tr)
	if other.Status != "recorded" || !strings.HasPrefix(other.Path, ".claude/sonmat/frozen-clock-") || ts.Read(".claude/sonmat/frozen-clock.md") == ts.Read(other.Path) {
		t.Errorf("collision: %+v", other)
	}
	// Universal: outside the repository, never committed, never overwritten.
	n := ts.commits()
	tr.Scope = ScopeUniversal
	u, err := ts.RecordTrap(context.Background(), tr)
	if err != nil || u.Status != "recorded" || u.Path != filepath.Join(ts.UniversalDir, "trap_frozen-clock.md") || ts.commits() != n {
		t.Fatalf("universal: %+v %v", u, err)
	}
	os.Symlink("/etc/passwd", filepath.Join(ts.UniversalDir, "trap_other.md"))
	tr.Title = "Other"
	u2, err := ts.RecordTrap(context.Background(), tr)
	if err != nil || u2.Path == filepath.Join(ts.UniversalDir, "trap_other.md") {
		t.Errorf("wrote through a symlink: %+v %v", u2, err)
	}
}

// TestRecordTrapOldLayout: a trap an older scribe recorded on one line per
// section is the same trap as its wrapped record now: recording it again
// writes nothing, in the repository or the universal directory.
func TestRecordTrapOldLayout(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	long := "Tests froze time in UTC while production ran in KST, so the date arithmetic near midnight broke and nobody noticed for a week."
	tr := Trap{Title: "Frozen clock", Pattern: long, Lesson: long, AppliesTo: long, Scope: ScopeProject, Flavor: FlavorVerificationFailure}
	old := "# Trap: Frozen clock\n\n## Pattern\n\n" + long + "\n\n## Lesson\n\n" + long + "\n\n## Applies to\n\n" + long +
		"\n\n<!-- scribe: flavor=verification_failure scope=project -->\n"
	if old == tr.Render() {
		t.Fatal("the record is not wrapped")
	}
	ts.Commit("an older scribe's trap", map[string]string{".claude/sonmat/frozen-clock.md": old})
	n := ts.commits()
	if res, err := ts.RecordTrap(context.Background(), tr); err != nil || res.Status != "exists" || ts.commits() != n {
		t.Errorf("project trap in the old layout: %+v %v", res, err)
	}
	tr.Scope = ScopeUniversal
	os.MkdirAll(ts.UniversalDir, 0o755)
	os.WriteFile(filepath.Join(ts.UniversalDir, "trap_frozen-clock.md"), []byte(strings.ReplaceAll(old, "scope=project", "scope=universal")), 0o644)
	if res, err := ts.RecordTrap(context.Background(), tr); err != nil || res.Status != "exists" {
		t.Errorf("universal trap in the old layout: %+v %v", res, err)
	}
	if ents, _ := os.ReadDir(ts.UniversalDir); len(ents) != 1 {
		t.Errorf("a second universal record was written: %v", ents)
	}
}

func TestNoAnswerWritesNothing(t *testing.T) {
	t.Parallel()
	ts := newTestStore(t)
	collectSession(t, ts, "kr_session.jsonl", TriggerManual)
	n := ts.commits()
	q, _ := ts.Queue()
	gr, err := ts.RunGate(context.Background(), &scriptedAsker{})
	if err != nil || gr.Status != "refused" || len(gr.Left) != len(q) || ts.commits() != n || ts.Exists(".claude") {
		t.Fatalf("%+v %v", gr, err)
	}
	if after, _ := ts.Queue(); len(after) != len(q) {
		t.Error("the queue was not kept")
	}
	for _, st := range ts.DetectorStates() {
		if st.ConsecutiveRejections != 0 {
			t.Error("a rejection nobody made was counted")
		}
	}
}
