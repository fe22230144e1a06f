package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
)

// fuRepo is a multi-project vault: api has one active task (cache).
func fuRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	chkGit(t, dir, "", "init", "-q", "-b", "main")
	chkGit(t, dir, "", "config", "user.name", "Ada Author")
	chkGit(t, dir, "", "config", "user.email", "ada@example.com")
	chkWrite(t, dir, ".claude/sonmat/journal.md", "# Journal\n\n## 2026-11-29T18:00:00+09:00 — paging\n- Result: partial\n### Next\n- (api) add paging to the users endpoint\n")
	chkWrite(t, dir, "projects/api/todos.md", "# api\n\n## Next Session\n\n- tune the eviction loop\n")
	chkWrite(t, dir, "projects/api/actives/cache/todos.md", "# cache\n\n- [ ] benchmark eviction\n")
	chkWrite(t, dir, "projects/web/todos.md", "# web\n")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "vault")
	chkWrite(t, dir, "wip.txt", "untracked work\n")
	return dir
}

type fuResult struct {
	code        int
	out, errOut string
}

// fuRun runs git-scribe in dir with stdin as a person's terminal (prompt)
// or not.
func fuRun(t *testing.T, dir, stdin string, prompt bool, args ...string) fuResult {
	t.Helper()
	var out, errb bytes.Buffer
	ios := NewIOStreams(strings.NewReader(stdin), &out, &errb)
	ios.SetCanPrompt(prompt)
	env := []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "NO_COLOR=1"}
	f := &Factory{IO: ios, Env: env}
	root := NewRootCmd(f)
	root.SetArgs(append([]string{"-C", dir}, args...))
	err := root.ExecuteContext(context.Background())
	r := fuResult{out: out.String(), errOut: errb.String()}
	if err != nil {
		r.code = exitCode(err)
		r.errOut += errorText(err) + "\n"
	}
	return r
}

func fuTranscript(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "followups", "testdata", "transcripts", "followups-en.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// One batched prompt routes every orphan: journal Next, a project's
// todos.md, an active task; one commit, the user's work untouched.
func TestFollowupsPromptRoutesInOneCommit(t *testing.T) {
	dir := fuRepo(t)
	before := userWork(t, dir)
	heads := headCount(t, dir)
	r := fuRun(t, dir, "t:api a:api/cache j:api\n", true, "followups", "extract", "--transcript", fuTranscript(t))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.out, r.errOut)
	}
	if n := strings.Count(r.errOut, "Route each"); n != 1 {
		t.Errorf("asked %d times, want one batched prompt:\n%s", n, r.errOut)
	}
	for _, want := range []string{"1. migrate the cache to the new store", "2. come back to the flaky eviction test", "3. write the release notes for 2.0"} {
		if !strings.Contains(r.errOut, want) {
			t.Errorf("prompt does not list %q:\n%s", want, r.errOut)
		}
	}
	if !strings.Contains(r.out, "routed: 3 follow-ups") {
		t.Errorf("stdout:\n%s", r.out)
	}
	if got := headCount(t, dir); got == heads {
		t.Fatalf("no commit made")
	}
	// The person's files: one branch commit of exactly them.
	if got := chkGit(t, dir, "", "log", "-1", "--format=%s"); got != "progress: route 2 follow-ups from the conversation" {
		t.Errorf("branch subject %q", got)
	}
	files := chkGit(t, dir, "", "show", "--name-only", "--format=", "HEAD")
	if files != "projects/api/actives/cache/todos.md\nprojects/api/todos.md" {
		t.Errorf("branch commit holds:\n%s", files)
	}
	// The journal route and the dashboard: scribe's record, on the vault ref.
	if got := chkGit(t, dir, "", "log", "-1", "--format=%s", "refs/scribe/vault"); got != "progress: route 1 follow-up from the conversation" {
		t.Errorf("vault subject %q", got)
	}
	vfiles := chkGit(t, dir, "", "show", "--name-only", "--format=", "refs/scribe/vault")
	for _, want := range []string{"journal.md", "ACTIVE-STATUS.md"} {
		if !strings.Contains(vfiles, want) {
			t.Errorf("vault commit misses %s:\n%s", want, vfiles)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("projects/api/todos.md"); got != "# api\n\n## Next Session\n\n- tune the eviction loop\n- [ ] migrate the cache to the new store\n" {
		t.Errorf("todos.md:\n%q", got)
	}
	if got := read("projects/api/actives/cache/todos.md"); !strings.HasSuffix(got, "- [ ] benchmark eviction\n- [ ] come back to the flaky eviction test\n") {
		t.Errorf("active task:\n%q", got)
	}
	j := notes.ParseJournal(chkGit(t, dir, "", "show", "refs/scribe/vault:journal.md"))
	last := j.Entries[len(j.Entries)-1]
	if len(j.Entries) != 2 || len(last.Next) != 1 || last.Next[0] != "(api) write the release notes for 2.0" {
		t.Errorf("journal entries %d, last Next %q", len(j.Entries), last.Next)
	}
	if !strings.HasPrefix(j.Entries[0].Raw, "## 2026-11-29T18:00:00+09:00 — paging\n") {
		t.Errorf("the existing entry changed")
	}
	if after := userWork(t, dir); after != before {
		t.Errorf("user work changed:\n%s\n---\n%s", before, after)
	}
	// Asked again: everything is durable now; no prompt, no commit.
	heads = headCount(t, dir)
	r = fuRun(t, dir, "", true, "followups", "extract", "--transcript", fuTranscript(t))
	if r.code != 0 || strings.Contains(r.errOut, "Route each") || headCount(t, dir) != heads {
		t.Errorf("second run: exit %d, prompt %v, commits %s→%s\n%s", r.code, strings.Contains(r.errOut, "Route each"), heads, headCount(t, dir), r.out)
	}
}

// A bad answer is explained and asked again; Enter skips all, which is a
// person's choice: nothing written, nothing unrouted, exit 0.
func TestFollowupsPromptReasksThenSkips(t *testing.T) {
	dir := fuRepo(t)
	heads := headCount(t, dir)
	r := fuRun(t, dir, "j t\na:nope\n\n", true, "followups", "extract", "--transcript", fuTranscript(t), "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.errOut)
	}
	if n := strings.Count(r.errOut, "cannot route:"); n != 2 {
		t.Errorf("want two explanations (count, unknown task):\n%s", r.errOut)
	}
	if !strings.Contains(r.errOut, "name one of its active tasks") && !strings.Contains(r.errOut, "no active tasks") && !strings.Contains(r.errOut, "cannot name") {
		t.Logf("stderr:\n%s", r.errOut)
	}
	if !strings.Contains(r.out, `"skipped": [`) || !strings.Contains(r.out, `"unrouted": []`) {
		t.Errorf("json:\n%s", r.out)
	}
	if headCount(t, dir) != heads {
		t.Errorf("skip wrote a commit")
	}
}

// No terminal and no decision file: nothing routed, listed, exit 1; end of
// input at the prompt is the same.
func TestFollowupsNonInteractive(t *testing.T) {
	dir := fuRepo(t)
	heads := headCount(t, dir)
	for _, prompt := range []bool{false, true} {
		r := fuRun(t, dir, "", prompt, "followups", "extract", "--transcript", fuTranscript(t))
		if r.code != ExitFindings {
			t.Errorf("prompt=%v: exit %d, want 1\n%s", prompt, r.code, r.out)
		}
		if !strings.Contains(r.out, "unrouted: 3 follow-ups potentially lost") {
			t.Errorf("prompt=%v: stdout:\n%s", prompt, r.out)
		}
	}
	if headCount(t, dir) != heads {
		t.Errorf("something was written without a person's decision")
	}
}

func TestParseRouteAnswer(t *testing.T) {
	t.Parallel()
	orphans := []followups.Candidate{{N: 1, Text: "a"}, {N: 2, Text: "b"}, {N: 3, Text: "c"}}
	tests := []struct {
		in      string
		want    string // to/project/task per orphan
		wantErr bool
	}{
		{"j t:api a:ops/logging", "journal//,todos/api/,active/ops/logging", false},
		{"s", "skip//,skip//,skip//", false},
		{"", "skip//,skip//,skip//", false},
		{"journal, todos, skip\n", "journal//,todos//,skip//", false},
		{"a:cache t J", "active//cache,todos//,journal//", false},
		{"j t", "", true},
		{"x y z", "", true},
		{"s:foo s s", "", true},
	}
	for _, tt := range tests {
		got, err := parseRouteAnswer(tt.in, orphans)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseRouteAnswer(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		var parts []string
		for i := range orphans {
			r := got[i]
			parts = append(parts, r.To+"/"+r.Project+"/"+r.Task)
		}
		if s := strings.Join(parts, ","); s != tt.want {
			t.Errorf("parseRouteAnswer(%q) = %s, want %s", tt.in, s, tt.want)
		}
	}
}

// A long follow-up with a URL and a tag is routed into a person's files
// wrapped at 80 columns and escaped (so they lint clean), and read back
// whole: the dashboard lists it once, as it was said.
func TestFollowupsRoutedLongItemReadsBack(t *testing.T) {
	dir := fuRepo(t)
	const (
		todo   = "reconcile the navigation with https://example.com/issues/42?tab=notes and keep the <nav> tag and the <div class=\"nav\"> wrapper out of the page layout because the date arithmetic near midnight broke while the tests froze time in UTC and production ran elsewhere"
		active = "benchmark the eviction of https://example.com/cache?size=large against the <table> of the old store with a cold cache and a warm one and write the numbers down for the release review in the weekly meeting with everyone who owns the old store"
	)
	if len(todo) < 240 || len(active) < 240 || len(todo) > 270 || len(active) > 270 {
		t.Fatalf("the follow-ups are %d and %d characters: want about 250", len(todo), len(active))
	}
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"Next session: `+strings.ReplaceAll(todo, `"`, `\"`)+`"}}`+"\n"+
		`{"type":"assistant","message":{"role":"assistant","content":"Noted."}}`+"\n"+
		`{"type":"user","message":{"role":"user","content":"Next session: `+active+`"}}`+"\n"+
		`{"type":"assistant","message":{"role":"assistant","content":"Noted."}}`+"\n"), 0o644)
	route := filepath.Join(t.TempDir(), "route.yaml")
	os.WriteFile(route, []byte("routes:\n  - item: \"1\"\n    to: todos\n    project: api\n  - item: \"2\"\n    to: active\n    project: api\n    task: cache\n"), 0o644)
	for _, args := range [][]string{{"followups", "extract", "--transcript", transcript, "--route", route}, {"followups", "extract", "--transcript", transcript, "--route", route}} {
		if r := fuRun(t, dir, "", false, args...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", args, r.code, r.out, r.errOut)
		}
	}
	for _, p := range []string{"projects/api/todos.md", "projects/api/actives/cache/todos.md"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, l := range strings.Split(text, "\n") {
			if markdown.Columns(l) > markdown.Width {
				t.Errorf("%s: a line over %d columns: %q", p, markdown.Width, l)
			}
		}
		if !strings.Contains(text, "<https://example.com/") || !strings.Contains(text, `\<`) || strings.Count(text, "- [ ] ") != 1+strings.Count(p, "actives") {
			t.Errorf("%s does not hold the follow-up escaped, once (routed twice):\n%s", p, text)
		}
	}
	r := fuRun(t, dir, "", false, "status", "regenerate", "--json")
	if r.code != 0 {
		t.Fatalf("status regenerate: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	var rep struct {
		Dashboard struct {
			Items []struct {
				Text string `json:"text"`
			} `json:"items"`
		} `json:"dashboard"`
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	for _, want := range []string{todo, active} {
		n := 0
		for _, it := range rep.Dashboard.Items {
			if strings.HasPrefix(want, strings.TrimSuffix(it.Text, "…")) && len(it.Text) > 100 {
				n++
			}
			if strings.Contains(it.Text, `\<`) || strings.Contains(it.Text, "<https") {
				t.Errorf("an item is shown escaped: %q", it.Text)
			}
		}
		if n != 1 {
			t.Errorf("%.40q… is listed %d times, want once:\n%s", want, n, r.out)
		}
	}
}
