package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/check"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// chkGitEnv isolates the git commands these tests run themselves.
var chkGitEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
	"GIT_AUTHOR_NAME=Ada Author", "GIT_AUTHOR_EMAIL=ada@example.com",
	"GIT_COMMITTER_NAME=Cy Committer", "GIT_COMMITTER_EMAIL=cy@example.com",
}

func chkGit(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), chkGitEnv...)
	c.Stdin = strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func chkWrite(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chkEntry(n int, next ...string) notes.Entry {
	return notes.Entry{Time: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Hour),
		Summary: "session " + string(rune('0'+n)), Scope: "cmd/", Result: notes.ResultShipped, Modes: "journal", Next: next}
}

// chkRepo builds a repository whose vault has one error (a committed edit of
// the first journal entry, line 4, below the lint directive and the title),
// one warning on a line (an untagged follow-up) and one warning about no
// file (an expired lock).
func chkRepo(t *testing.T) (dir, editCommit string) {
	t.Helper()
	dir = t.TempDir()
	chkGit(t, dir, "", "init", "-q")
	const jp = ".claude/sonmat/journal.md"
	j, a := notes.Append("", "", chkEntry(1), 50)
	j, a = notes.Append(j, a, chkEntry(2, "untagged follow-up"), 50)
	chkWrite(t, dir, jp, j)
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "progress: two\n\nScribe-Mode: journal")
	chkWrite(t, dir, jp, strings.Replace(j, "session 1", "session one", 1))
	chkGit(t, dir, "", "commit", "-q", "-am", "docs: reword, with a comma: and colon")
	editCommit = chkGit(t, dir, "", "rev-parse", "HEAD")
	h, _ := json.Marshal(gitops.Holder{Host: "ci", PID: 7, Expires: time.Now().Add(-time.Hour)})
	oid := chkGit(t, dir, string(h), "hash-object", "-w", "--stdin")
	chkGit(t, dir, "", "update-ref", gitops.LockRefPrefix+"wrap", oid)
	_ = a
	return dir, editCommit
}

// chkRun runs git-scribe through Main, as the binary does.
func chkRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckFormats(t *testing.T) {
	dir, edit := chkRepo(t)

	t.Run("json", func(t *testing.T) {
		code, out, errOut := chkRun(t, "-C", dir, "check", "--format", "json")
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
		}
		var rep struct {
			Findings []struct {
				RuleID   string `json:"rule_id"`
				Severity string `json:"severity"`
				File     string `json:"file"`
				Line     int    `json:"line"`
				Message  string `json:"message"`
				Fix      string `json:"fix"`
				Commit   string `json:"commit"`
			} `json:"findings"`
			Summary struct {
				Errors   *int `json:"errors"`
				Warnings *int `json:"warnings"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("json: %v\n%s", err, out)
		}
		if rep.Summary.Errors == nil || *rep.Summary.Errors != 1 || rep.Summary.Warnings == nil || *rep.Summary.Warnings != 2 || len(rep.Findings) != 3 {
			t.Fatalf("summary/findings wrong:\n%s", out)
		}
		var sawEdit bool
		for _, f := range rep.Findings {
			if f.RuleID == "" || f.Severity == "" || f.Message == "" || f.Fix == "" {
				t.Errorf("incomplete finding %+v", f)
			}
			if f.RuleID == "SCR001" {
				sawEdit = f.File == ".claude/sonmat/journal.md" && f.Line == 4 && f.Commit == edit && f.Severity == "error"
			}
		}
		if !sawEdit {
			t.Fatalf("no SCR001 at journal.md:4 naming %s:\n%s", edit, out)
		}
	})

	t.Run("github", func(t *testing.T) {
		code, out, _ := chkRun(t, "-C", dir, "check", "--format", "github")
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1", code)
		}
		line := regexp.MustCompile(`^::(error|warning|notice) title=(SCR\d{3})(?:,file=([^,:]+),line=(\d+))?::(.+)$`)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("want 3 annotations, got:\n%s", out)
		}
		for _, l := range lines {
			if !line.MatchString(l) {
				t.Errorf("not an annotation: %q", l)
			}
		}
		if !strings.HasPrefix(lines[0], "::error title=SCR001,file=.claude/sonmat/journal.md,line=4::") &&
			!strings.Contains(out, "\n::error title=SCR001,file=.claude/sonmat/journal.md,line=4::") {
			t.Fatalf("no error annotation on journal.md:4:\n%s", out)
		}
		if !strings.Contains(out, "::warning title=SCR006::") {
			t.Fatalf("file-less warning should have no file property:\n%s", out)
		}
	})

	t.Run("sarif", func(t *testing.T) {
		code, out, _ := chkRun(t, "-C", dir, "check", "--format", "sarif")
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1", code)
		}
		var log map[string]any
		if err := json.Unmarshal([]byte(out), &log); err != nil {
			t.Fatalf("sarif: %v", err)
		}
		if log["version"] != "2.1.0" || !strings.Contains(log["$schema"].(string), "sarif") {
			t.Fatalf("version/$schema: %v %v", log["version"], log["$schema"])
		}
		runs := log["runs"].([]any)
		if len(runs) != 1 {
			t.Fatalf("runs: %d", len(runs))
		}
		run := runs[0].(map[string]any)
		driver := run["tool"].(map[string]any)["driver"].(map[string]any)
		if driver["name"] != "git-scribe" || driver["informationUri"] == "" {
			t.Fatalf("driver %v", driver)
		}
		rules := driver["rules"].([]any)
		if len(rules) != len(check.Rules()) {
			t.Fatalf("driver rules: %d", len(rules))
		}
		ruleIDs := map[string]bool{}
		for _, r := range rules {
			rm := r.(map[string]any)
			ruleIDs[rm["id"].(string)] = true
			if rm["shortDescription"].(map[string]any)["text"] == "" {
				t.Errorf("rule %v lacks a description", rm["id"])
			}
		}
		results := run["results"].([]any)
		if len(results) != 3 {
			t.Fatalf("results: %d", len(results))
		}
		var located bool
		for _, r := range results {
			rm := r.(map[string]any)
			id, _ := rm["ruleId"].(string)
			level, _ := rm["level"].(string)
			text, _ := rm["message"].(map[string]any)["text"].(string)
			if !ruleIDs[id] || (level != "error" && level != "warning" && level != "note") || text == "" {
				t.Errorf("bad result %v", rm)
			}
			locs, _ := rm["locations"].([]any)
			for _, l := range locs {
				pl := l.(map[string]any)["physicalLocation"].(map[string]any)
				uri := pl["artifactLocation"].(map[string]any)["uri"]
				region, _ := pl["region"].(map[string]any)
				if uri == "" {
					t.Errorf("location without uri: %v", pl)
				}
				if id == "SCR001" && uri == ".claude/sonmat/journal.md" && region["startLine"] == float64(4) {
					located = true
				}
			}
		}
		if !located {
			t.Fatalf("no SCR001 result at journal.md line 4:\n%s", out)
		}
	})

	t.Run("text", func(t *testing.T) {
		code, out, _ := chkRun(t, "-C", dir, "check")
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1", code)
		}
		want := regexp.MustCompile(`(?m)^\.claude/sonmat/journal\.md:4: error SCR001 journal entry .* was edited in commit [0-9a-f]{12} .*\(fix: .+\)$`)
		if !want.MatchString(out) || !strings.Contains(out, "vault hygiene: 1 error, 2 warnings") {
			t.Fatalf("text output:\n%s", out)
		}
		if !regexp.MustCompile(`(?m)^warning SCR006 lock refs/scribe/locks/wrap`).MatchString(out) {
			t.Fatalf("file-less finding:\n%s", out)
		}
	})

	t.Run("rule filter and since", func(t *testing.T) {
		code, out, _ := chkRun(t, "-C", dir, "check", "--rule", "SCR011", "--json")
		if code != ExitOK || !strings.Contains(out, `"SCR011"`) || strings.Contains(out, `"SCR001"`) {
			t.Fatalf("--rule SCR011: exit %d\n%s", code, out)
		}
		code, out, _ = chkRun(t, "-C", dir, "check", "--rule", "SCR001", "--since", "HEAD")
		if code != ExitOK || !strings.Contains(out, "clean") {
			t.Fatalf("--since HEAD: exit %d\n%s", code, out)
		}
	})
}

func TestCheckCleanAndUsage(t *testing.T) {
	dir := t.TempDir()
	chkGit(t, dir, "", "init", "-q")
	j, _ := notes.Append("", "", chkEntry(1, "(proj) tagged"), 50)
	chkWrite(t, dir, ".claude/sonmat/journal.md", j)
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "progress: one\n\nScribe-Mode: journal")

	for _, format := range []string{"text", "json", "github", "sarif"} {
		code, out, errOut := chkRun(t, "-C", dir, "check", "--format", format)
		if code != ExitOK {
			t.Fatalf("%s: exit %d on a clean vault\n%s%s", format, code, out, errOut)
		}
		switch format {
		case "json":
			var rep check.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Findings == nil || len(rep.Findings) != 0 {
				t.Fatalf("json clean: %v\n%s", err, out)
			}
		case "github":
			if out != "" {
				t.Fatalf("github clean: %q", out)
			}
		case "sarif":
			var log sarifLog
			if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 || log.Runs[0].Results == nil {
				t.Fatalf("sarif clean: %v\n%s", err, out)
			}
		}
	}

	for _, args := range [][]string{
		{"check", "--format", "xml"},
		{"check", "--rule", "SCR999"},
		{"check", "--since", "no-such-rev"},
		{"check", "extra-arg"},
	} {
		code, _, errOut := chkRun(t, append([]string{"-C", dir}, args...)...)
		if code != ExitUsage || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	code, _, errOut := chkRun(t, "-C", t.TempDir(), "check")
	if code != ExitUsage || !strings.Contains(errOut, "not a git repository") {
		t.Errorf("outside a repository: exit %d, %q", code, errOut)
	}
}

func TestCheckHelpListsRules(t *testing.T) {
	code, out, _ := chkRun(t, "check", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, r := range check.Rules() {
		if !strings.Contains(out, r.ID()) || !strings.Contains(out, r.Name()) {
			t.Errorf("--help lacks %s %s", r.ID(), r.Name())
		}
	}
}

func TestGitHubEscaping(t *testing.T) {
	var b bytes.Buffer
	rep := check.Report{Findings: []check.Finding{{RuleID: "SCR001", Severity: check.SeverityError, File: "a,b:c.md", Line: 2,
		Message: "50% done\nnext line", Fix: "x"}}}
	if err := writeGitHub(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "::error title=SCR001,file=a%2Cb%3Ac.md,line=2::50%25 done%0Anext line — fix: x\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}
