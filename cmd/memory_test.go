package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The prompt flows run with injected streams and CanPrompt forced on, so
// every answer (y, N, Enter, e, s, Rephrase, end of input) is scripted; one
// end-to-end script (testdata/scripts/compound_done_when.txtar) drives the
// real binary through a pseudo-terminal with script(1).

const enTranscript = "../memory/testdata/transcripts/en_session.jsonl"
const krTranscript = "../memory/testdata/transcripts/kr_session.jsonl"

// memRepo is a throw-away repository with an identity of its own.
func memRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Ada Author"}, {"config", "user.email", "ada@example.com"},
		{"config", "commit.gpgSign", "false"}} {
		chkGit(t, dir, "", args...)
	}
	chkWrite(t, dir, "CLAUDE.md", "# Demo\n\nIntro stays byte-identical.\n")
	chkWrite(t, dir, "wip.txt", "untracked work\n")
	chkGit(t, dir, "", "add", "CLAUDE.md")
	chkGit(t, dir, "", "commit", "-q", "-m", "initial")
	return dir
}

type memRun struct {
	code        int
	out, errOut string
}

// runMem runs git-scribe in dir with stdin; prompt forces CanPrompt; env
// adds to the process environment (HOME is a temp dir unless given).
func runMem(t *testing.T, dir, stdin string, prompt bool, env []string, args ...string) memRun {
	t.Helper()
	var out, errb bytes.Buffer
	ios := NewIOStreams(strings.NewReader(stdin), &out, &errb)
	ios.SetCanPrompt(prompt)
	base := []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "NO_COLOR=1"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "XDG_CONFIG_HOME" && k != "EDITOR" && k != "VISUAL" && !strings.HasPrefix(k, "SCRIBE_") && k != "GIT_SCRIBE_ACTIVE" {
			base = append(base, kv)
		}
	}
	f := &Factory{IO: ios, Env: append(append([]string{}, env...), base...)} // the test's values win
	root := NewRootCmd(f)
	root.SetArgs(append([]string{"-C", dir}, args...))
	err := root.ExecuteContext(context.Background())
	r := memRun{out: out.String(), errOut: errb.String()}
	if err != nil {
		r.code = exitCode(err)
		r.errOut += errorText(err) + "\n"
	}
	return r
}

// fakeEditor writes an $EDITOR that replaces the file's first line with
// prefix + that line (and keeps the rest).
func fakeEditor(t *testing.T, sedExpr string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "editor.sh")
	script := "#!/bin/sh\nsed -e '" + sedExpr + "' \"$1\" > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func headCount(t *testing.T, dir string) string {
	return chkGit(t, dir, "", "rev-list", "--count", "HEAD")
}

func userWork(t *testing.T, dir string) string {
	return chkGit(t, dir, "", "status", "--porcelain=v2", "--untracked-files=all") + chkGit(t, dir, "", "diff", "--cached") + chkGit(t, dir, "", "diff")
}

func TestRuleProposeDialog(t *testing.T) {
	t.Parallel()
	const rule = "Always run go vet before saying done."
	tests := []struct {
		name     string
		stdin    string
		prompt   bool
		args     []string
		code     int
		written  string // the rule expected in CLAUDE.md, "" for none
		inOut    []string
		declined bool
	}{
		{"yes", "y\n", true, nil, 0, rule, []string{"Project rule detected: " + rule, "Add to CLAUDE.md? [Yes / No / Rephrase]", "committed"}, false},
		{"Yes spelled out", "Yes\n", true, nil, 0, rule, nil, false},
		{"no", "n\n", true, nil, 1, "", []string{"not added"}, true},
		{"bare Enter is no", "\n", true, nil, 1, "", nil, true},
		{"rephrase then yes", "r\nAlways run go vet and go test before saying done.\ny\n", true, nil, 0, "Always run go vet and go test before saying done.",
			[]string{"New wording: ", "Project rule detected: Always run go vet and go test"}, false},
		{"rephrase then no", "rephrase\nSomething else.\nno\n", true, nil, 1, "", nil, true},
		{"unknown answer asks again", "maybe\ny\n", true, nil, 0, rule, []string{"please answer Yes, No, Rephrase"}, false},
		{"input ends", "", true, nil, 1, "", nil, false},
		{"non-interactive refuses", "y\n", false, nil, 1, "", []string{"Project rule detected: " + rule}, false},
		{"non-interactive --confirmed", "", false, []string{"--confirmed"}, 0, rule, []string{"added to CLAUDE.md"}, false},
		{"--json refuses without --confirmed", "y\n", true, []string{"--json"}, 1, "", []string{`"status": "refused"`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := memRepo(t)
			before := userWork(t, dir)
			r := runMem(t, dir, tt.stdin, tt.prompt, nil, append([]string{"rule", "propose", rule}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", r.code, tt.code, r.out, r.errOut)
			}
			for _, w := range tt.inOut {
				if !strings.Contains(r.out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.out)
				}
			}
			claude := chkGit(t, dir, "", "show", "HEAD:CLAUDE.md")
			if tt.written == "" {
				if headCount(t, dir) != "1" || strings.Contains(claude, "Project Rules") {
					t.Errorf("something was written:\n%s", claude)
				}
				if tt.code == 1 && !tt.declined && !strings.Contains(r.errOut, "--confirmed") {
					t.Errorf("the refusal does not say how to confirm: %s", r.errOut)
				}
			} else {
				want := "# Demo\n\nIntro stays byte-identical.\n\n## Project Rules\n\n- " + tt.written
				if claude != want || headCount(t, dir) != "2" {
					t.Errorf("CLAUDE.md at HEAD:\n%q\nwant\n%q", claude, want)
				}
				if msg := chkGit(t, dir, "", "log", "-1", "--format=%B"); !strings.HasPrefix(msg, "progress: project rule added") || !strings.Contains(msg, "Scribe-Confirmed: yes") {
					t.Errorf("commit message %q", msg)
				}
			}
			if got := userWork(t, dir); got != before {
				t.Errorf("user work changed:\n%s\n%s", before, got)
			}
			if tt.declined && !strings.Contains(r.errOut, "declined") {
				t.Errorf("a declined rule does not say so: %s", r.errOut)
			}
		})
	}
}

func TestRuleDetect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file   string
		direct string
		repeat string
	}{
		{enTranscript, "Always run go vet before you say done.", "Use exponential backoff with jitter, not a fixed delay."},
		{krTranscript, "항상 커밋 전에 gofmt를 실행해요.", "지수 백오프에 지터를 넣어서 구현해 주세요"},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			t.Parallel()
			dir := memRepo(t)
			abs, _ := filepath.Abs(tt.file)
			r := runMem(t, dir, "", false, nil, "rule", "detect", "--transcript", abs, "--json")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.errOut)
			}
			var got struct {
				Rules []struct {
					Rule, Kind, Status string
					Count              int
				}
			}
			if err := json.Unmarshal([]byte(r.out), &got); err != nil {
				t.Fatal(err, r.out)
			}
			if len(got.Rules) != 2 || got.Rules[0].Rule != tt.direct || got.Rules[0].Kind != "direct" ||
				got.Rules[1].Rule != tt.repeat || got.Rules[1].Kind != "repeated_correction" || got.Rules[1].Count != 2 || got.Rules[1].Status != "new" {
				t.Fatalf("rules %+v", got.Rules)
			}
			// On a terminal each is proposed once: yes to the first, no to the second.
			r = runMem(t, dir, "y\nn\n", true, nil, "rule", "detect", "--transcript", abs)
			if r.code != 0 || strings.Count(r.out, "Project rule detected:") != 2 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.errOut)
			}
			// Again: one is in CLAUDE.md, the other declined before; nothing is asked.
			r = runMem(t, dir, "", true, nil, "rule", "detect", "--transcript", abs)
			if r.code != 0 || strings.Contains(r.out, "Add to CLAUDE.md?") || !strings.Contains(r.out, "in claude md") || !strings.Contains(r.out, "declined before") {
				t.Fatalf("second detect: exit %d\n%s", r.code, r.out)
			}
			if headCount(t, dir) != "2" {
				t.Errorf("want exactly one rule commit")
			}
		})
	}
}

// gateRepo is a repository with the English session's candidates queued.
func gateRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := memRepo(t)
	abs, _ := filepath.Abs(enTranscript)
	r := runMem(t, dir, "", false, nil, "compound", "collect", "--transcript", abs, "--json")
	if r.code != 0 {
		t.Fatalf("collect: %d %s", r.code, r.errOut)
	}
	var res struct {
		Queued []struct {
			ID       string `json:"candidate_id"`
			Detector string
		}
	}
	json.Unmarshal([]byte(r.out), &res)
	var ids []string
	l := runMem(t, dir, "", false, nil, "compound", "list", "--json")
	var list struct {
		Queue []struct {
			ID string `json:"candidate_id"`
		}
	}
	json.Unmarshal([]byte(l.out), &list)
	for _, c := range list.Queue {
		ids = append(ids, c.ID)
	}
	if len(ids) != 4 || len(res.Queued) != 4 {
		t.Fatalf("want 4 candidates, got %v / %s", ids, r.out)
	}
	return dir, ids
}

func TestCompoundGateDialog(t *testing.T) {
	t.Parallel()
	editor := fakeEditor(t, "1s/^/Edited: /")
	tests := []struct {
		name              string
		stdin             string
		prompt            bool
		code              int
		promoted, rejects int
		left              int
		errOut, out       []string
	}{
		{"y N Enter s", "y\nN\n\ns\n", true, 0, 1, 2, 1, nil, []string{"promoted", "committed", "skipped 1"}},
		{"e edits then promotes", "e\ns\ns\ns\n", true, 0, 1, 0, 3, nil, []string{"edited:\n    Edited: "}},
		{"unknown answer asks again", "what\ny\ns\ns\ns\n", true, 0, 1, 0, 3, nil, []string{"please answer y"}},
		{"input ends midway", "y\n", true, 0, 1, 0, 3, []string{"input ended: 3 candidate(s) rejected for this gate"}, nil},
		{"no answer at all", "", true, 1, 0, 0, 4, []string{"[compound] non-interactive → all rejected"}, nil},
		{"non-interactive", "y\ny\ny\ny\n", false, 1, 0, 0, 4, []string{"[compound] non-interactive → all rejected\n", "--approve ID"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, _ := gateRepo(t)
			before, n := userWork(t, dir), headCount(t, dir)
			r := runMem(t, dir, tt.stdin, tt.prompt, []string{"EDITOR=" + editor}, "compound", "gate")
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.out, r.errOut)
			}
			for _, w := range tt.errOut {
				if !strings.Contains(r.errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.errOut)
				}
			}
			for _, w := range tt.out {
				if !strings.Contains(r.out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.out)
				}
			}
			decided := tt.promoted + tt.rejects
			wantCommits := n
			if decided > 0 {
				c, _ := strconv.Atoi(n)
				wantCommits = strconv.Itoa(c + 1)
				subject := chkGit(t, dir, "", "log", "-1", "--format=%s")
				if want := fmt.Sprintf("progress: memory +%d -%d (compound)", tt.promoted, tt.rejects); subject != want {
					t.Errorf("subject %q, want %q", subject, want)
				}
			}
			if got := headCount(t, dir); got != wantCommits {
				t.Errorf("%s commits, want %s", got, wantCommits)
			}
			if userWork(t, dir) != before {
				t.Error("user work changed")
			}
			l := runMem(t, dir, "", false, nil, "compound", "list", "--json")
			var list struct {
				Queue    []json.RawMessage
				Rejected int
				Memories int
			}
			json.Unmarshal([]byte(l.out), &list)
			if len(list.Queue) != tt.left || list.Rejected != tt.rejects || list.Memories != tt.promoted {
				t.Errorf("after the gate: queue %d rejected %d memories %d", len(list.Queue), list.Rejected, list.Memories)
			}
			if tt.name == "e edits then promotes" {
				out := chkGit(t, dir, "", "show", "HEAD", "--format=")
				if !strings.Contains(out, "+Edited: ") || !strings.Contains(out, "+edited: true") {
					t.Errorf("edited text not stored:\n%s", out)
				}
			}
			if decided > 0 {
				c := runMem(t, dir, "", false, nil, "check")
				if c.code != 0 {
					t.Errorf("check after the gate: %d\n%s%s", c.code, c.out, c.errOut)
				}
			}
		})
	}
}

func TestCompoundExplicitDecisionsAndDisable(t *testing.T) {
	t.Parallel()
	dir := memRepo(t)
	// Three sessions' worth of tacit candidates, rejected by flag one by one.
	var tacit []string
	for i, s := range []string{"alpha", "bravo", "charlie", "delta"} {
		p := filepath.Join(t.TempDir(), "s.txt")
		os.WriteFile(p, []byte("User: Note that the "+s+" deploy needs a manual cache flush first.\n\nAssistant: ok\n"), 0o644)
		r := runMem(t, dir, "", false, nil, "compound", "collect", "--transcript", p, "--session", fmt.Sprint("s", i), "--json")
		var res struct {
			Queued []struct {
				ID string `json:"candidate_id"`
			}
		}
		json.Unmarshal([]byte(r.out), &res)
		if len(res.Queued) != 1 {
			t.Fatalf("collect %s: %s %s", s, r.out, r.errOut)
		}
		tacit = append(tacit, res.Queued[0].ID)
	}
	if r := runMem(t, dir, "", false, nil, "compound", "gate", "--approve", "nope"); r.code != 2 {
		t.Errorf("unknown id: exit %d", r.code)
	}
	for i := range 3 {
		r := runMem(t, dir, "", false, nil, "compound", "gate", "--reject", tacit[i])
		if r.code != 0 || !strings.Contains(r.out, "rejected "+tacit[i]) {
			t.Fatalf("reject %d: %d %s %s", i, r.code, r.out, r.errOut)
		}
		if i == 2 && !strings.Contains(r.errOut, "detector tacit disabled until") {
			t.Errorf("third rejection did not disable: %s", r.errOut)
		}
	}
	l := runMem(t, dir, "", false, nil, "compound", "list")
	if !strings.Contains(l.out, "detector tacit disabled until") || !strings.Contains(l.out, "held (detector disabled)") {
		t.Errorf("list:\n%s", l.out)
	}
	if g := runMem(t, dir, "y\n", true, nil, "compound", "gate"); g.code != 0 || !strings.Contains(g.out, "no candidate to decide (1 held") {
		t.Errorf("gate with the detector disabled: %d %s", g.code, g.out)
	}
	if r := runMem(t, dir, "", false, nil, "compound", "reactivate", "gossip"); r.code != 2 {
		t.Errorf("reactivate unknown: %d", r.code)
	}
	if r := runMem(t, dir, "", false, nil, "compound", "reactivate", "tacit"); r.code != 0 || !strings.Contains(r.out, "detector tacit reactivated") {
		t.Errorf("reactivate: %d %s %s", r.code, r.out, r.errOut)
	}
	g := runMem(t, dir, "y\n", true, nil, "compound", "gate")
	if g.code != 0 || !strings.Contains(g.out, "promoted "+tacit[3]) {
		t.Errorf("after reactivate: %d %s %s", g.code, g.out, g.errOut)
	}
	if c := runMem(t, dir, "", false, nil, "check"); c.code != 0 {
		t.Errorf("check: %s %s", c.out, c.errOut)
	}
}

// stubGh puts a gh on PATH that records its arguments.
func stubGh(t *testing.T) (pathEnv, log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "gh.log")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n--\\n' \"$a\"; done > " + log + "\necho https://github.com/acme/feedback/issues/7\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), log
}

func TestTrapPropose(t *testing.T) {
	t.Parallel()
	trapArgs := func(dir string) []string {
		return []string{"trap", "propose", "--title", "Retry test passed on a frozen clock",
			"--pattern", "The test in " + dir + "/retry_test.go froze time; ada@example.com never saw the jitter from db.acme.internal",
			"--context", "Retry loops with jitter", "--catch-signal", "Run the retry tests once with a real clock"}
	}
	t.Run("yes, then submit with a second yes", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		chkWrite(t, dir, ".scribe.yaml", "memory:\n  feedback_repo: acme/feedback\n")
		pathEnv, log := stubGh(t)
		r := runMem(t, dir, "y\ny\n", true, []string{pathEnv}, append(trapArgs(dir), "--submit")...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.errOut)
		}
		rec := chkGit(t, dir, "", "show", "HEAD:.claude/sonmat/retry-test-passed-on-a-frozen-clock.md")
		for _, gone := range []string{dir, "ada@", "acme.internal", "retry_test.go"} {
			if strings.Contains(rec, gone) || strings.Contains(r.out, gone) {
				t.Errorf("%q not abstracted away:\n%s", gone, rec)
			}
		}
		// The abstractor's placeholders are escaped: the record is
		// markdown, and "<path>" would be an HTML tag (MD033).
		if !strings.HasPrefix(rec, "# Trap: Retry test passed on a frozen clock\n\n## Pattern\n\nThe test in \\<path> froze time; \\<email> never saw the jitter from \\<host>\n\n## Lesson\n") {
			t.Errorf("record:\n%s", rec)
		}
		sent, _ := os.ReadFile(log)
		want := "issue\n--\ncreate\n--\n--repo\n--\nacme/feedback\n--\n--title\n--\nTrap: Retry test passed on a frozen clock\n--\n--body\n--\n" +
			"Pattern: The test in <path> froze time; <email> never saw the jitter from <host>\n\nDiscovered via: verification failure\n\n--\n"
		if string(sent) != want {
			t.Errorf("gh got:\n%s\nwant:\n%s", sent, want)
		}
		shown := "Title: Trap: Retry test passed on a frozen clock\nPattern: The test in <path> froze time; <email> never saw the jitter from <host>\n\nDiscovered via: verification failure\n"
		if !strings.Contains(r.out, "Below is EXACTLY what will be sent") || !strings.Contains(r.out, shown) {
			t.Errorf("the exact issue text was not shown:\n%s", r.out)
		}
	})
	t.Run("second no sends nothing", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		chkWrite(t, dir, ".scribe.yaml", "memory:\n  feedback_repo: acme/feedback\n")
		pathEnv, log := stubGh(t)
		r := runMem(t, dir, "y\n\n", true, []string{pathEnv}, append(trapArgs(dir), "--submit")...)
		if _, err := os.Stat(log); r.code != 0 || err == nil || !strings.Contains(r.out, "not submitted") {
			t.Errorf("exit %d, gh ran: %v\n%s", r.code, err == nil, r.out)
		}
	})
	t.Run("edit first, edit the issue", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		chkWrite(t, dir, ".scribe.yaml", "memory:\n  feedback_repo: acme/feedback\n")
		pathEnv, log := stubGh(t)
		editor := fakeEditor(t, "s/frozen clock/mocked clock/")
		r := runMem(t, dir, "e\ny\ne\ny\n", true, []string{pathEnv, "EDITOR=" + editor}, append(trapArgs(dir), "--submit")...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.errOut)
		}
		rec := chkGit(t, dir, "", "show", "HEAD:.claude/sonmat/retry-test-passed-on-a-mocked-clock.md")
		if !strings.HasPrefix(rec, "# Trap: Retry test passed on a mocked clock") {
			t.Errorf("edited record:\n%s", rec)
		}
		sent, _ := os.ReadFile(log)
		if !strings.Contains(string(sent), "Trap: Retry test passed on a mocked clock") {
			t.Errorf("gh got:\n%s", sent)
		}
	})
	t.Run("no writes nothing", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		r := runMem(t, dir, "n\n", true, nil, trapArgs(dir)...)
		if r.code != 1 || headCount(t, dir) != "1" {
			t.Errorf("exit %d, %s commits", r.code, headCount(t, dir))
		}
	})
	t.Run("non-interactive", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		chkWrite(t, dir, ".scribe.yaml", "memory:\n  feedback_repo: acme/feedback\n")
		pathEnv, log := stubGh(t)
		r := runMem(t, dir, "y\ny\n", false, []string{pathEnv}, trapArgs(dir)...)
		if r.code != 1 || headCount(t, dir) != "1" || !strings.Contains(r.errOut, "--confirmed") {
			t.Errorf("without --confirmed: exit %d\n%s", r.code, r.errOut)
		}
		r = runMem(t, dir, "y\ny\n", false, []string{pathEnv}, append(trapArgs(dir), "--confirmed", "--submit")...)
		if _, err := os.Stat(log); r.code != 1 || err == nil || headCount(t, dir) != "2" || !strings.Contains(r.out, "Below is EXACTLY") || !strings.Contains(r.errOut, "nothing was sent") {
			t.Errorf("--confirmed --submit without a terminal: exit %d, gh ran %v\n%s\n%s", r.code, err == nil, r.out, r.errOut)
		}
	})
	t.Run("submit needs a configured repo", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		r := runMem(t, dir, "y\ny\n", true, nil, append(trapArgs(dir), "--submit")...)
		if r.code != 2 || !strings.Contains(r.errOut, "memory.feedback_repo") || headCount(t, dir) != "1" {
			t.Errorf("exit %d: %s", r.code, r.errOut)
		}
	})
	t.Run("universal goes to the configured dir", func(t *testing.T) {
		t.Parallel()
		dir := memRepo(t)
		home := t.TempDir()
		r := runMem(t, dir, "", false, []string{"HOME=" + home}, append(trapArgs(dir), "--scope", "universal", "--confirmed")...)
		want := filepath.Join(home, ".claude", "sonmat", "memory", "trap_retry-test-passed-on-a-frozen-clock.md")
		if _, err := os.Stat(want); r.code != 0 || err != nil || headCount(t, dir) != "1" {
			t.Errorf("exit %d %v\n%s", r.code, err, r.errOut)
		}
		if strings.Contains(userWork(t, dir), ".claude") {
			t.Error("a universal trap touched the repository")
		}
	})
}

func TestWrapCollects(t *testing.T) {
	t.Parallel()
	dir := memRepo(t)
	abs, _ := filepath.Abs(krTranscript)
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		chkWrite(t, dir, f, "package x\n")
	}
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "three files")
	r := runMem(t, dir, "", false, nil, "wrap", "--transcript", abs, "--hint", "retry work")
	if r.code != 0 {
		t.Fatalf("wrap: %d %s", r.code, r.errOut)
	}
	if !strings.Contains(r.errOut, "[compound] session_wrap:") || !strings.Contains(r.errOut, "[compound] non-interactive → all rejected") {
		t.Errorf("wrap did not collect, or the gate asked without a terminal:\n%s", r.errOut)
	}
	if out := chkGit(t, dir, "", "log", "--format=%s"); strings.Contains(out, "memory") {
		t.Errorf("a memory commit without a yes:\n%s", out)
	}
	// At a terminal, wrap's gate asks.
	chkWrite(t, dir, "d.go", "package x\n")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "more")
	chkWrite(t, dir, "e.go", "package x\n")
	chkWrite(t, dir, "f.go", "package x\n")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "more")
	r = runMem(t, dir, "y\ns\ns\ns\n", true, nil, "wrap", "--transcript", abs)
	if r.code != 0 || !strings.Contains(r.out, "Promote?") || !strings.Contains(chkGit(t, dir, "", "log", "-1", "--format=%s"), "progress: memory +1 -0 (compound)") {
		t.Errorf("interactive wrap: %d\n%s\n%s", r.code, r.out, r.errOut)
	}
}

func TestScriptPTY(t *testing.T) {
	// One real pseudo-terminal: script(1) runs the gate with its stdin and
	// stdout on a pty, so TTY detection itself is exercised.
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) from util-linux is not installed")
	}
	t.Parallel()
	dir, _ := gateRepo(t)
	exe := filepath.Join(t.TempDir(), "git-scribe")
	build := exec.Command("go", "build", "-o", exe, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	c := exec.Command("script", "-qec", exe+" -C "+dir+" compound gate", "/dev/null")
	c.Stdin = strings.NewReader("y\n\ns\ns\n")
	c.Env = append(os.Environ(), "NO_COLOR=1", "GIT_SCRIBE_ACTIVE=")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Promote? (recommended: N) [y/N/e/s]") || !strings.Contains(string(out), "progress: memory +1 -1 (compound)") {
		t.Errorf("pty gate:\n%s", out)
	}
}

func TestWrapIgnoresMemoryCommits(t *testing.T) {
	t.Parallel()
	dir, ids := gateRepo(t)
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		chkWrite(t, dir, f, "package x\n")
	}
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "three files")
	if r := runMem(t, dir, "", false, nil, "wrap", "--hint", "work"); r.code != 0 {
		t.Fatalf("wrap: %s", r.errOut)
	}
	if r := runMem(t, dir, "", false, nil, "compound", "gate", "--approve", ids[0], "--reject", ids[1]); r.code != 0 {
		t.Fatalf("gate: %s", r.errOut)
	}
	// The gate's commit (memory files only) is scribe's, not session work.
	r := runMem(t, dir, "", false, nil, "wrap", "--dry-run", "--json")
	var rep struct{ Status string }
	json.Unmarshal([]byte(r.out), &rep)
	if rep.Status != "nothing" {
		t.Errorf("wrap after a memory commit: %s\n%s", rep.Status, r.out)
	}
}
