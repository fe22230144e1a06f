package secrets

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Test secrets are assembled from pieces so this file itself does not trip a
// secret scanner. None is real.
var (
	awsKey    = "AKIA" + "QYLPMN5HJ3WXZ7RT"
	githubPAT = "ghp_" + "k3Xq9ZrT7mWv2LpN8sYb4HdJc6FgA1eR5uQo"
	slackBot  = "xoxb-" + "2847561093-5831902746315-" + "pQ7rT2vX9kLmN4sZ8wYbC1dF"
	genericV  = "Zq7" + "xK2mP9vR4tW8nB3cL6hJ"
	// privateKey is a syntactically plausible, random PEM block.
	privateKey = "-----BEGIN RSA " + "PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEAu3kZq7xK2mP9vR4tW8nB3cL6hJ5dF1gY0sA2eQ4wT7yU9iO3\n" +
		"pLmN8bV6cX1zK4jH7gF2dS5aQ9wE3rT6yU0iO8pL1kJ4hG7fD2sA5zX8cV3bN6mQ\n" +
		"r9tY2uI5oP8lK1jH4gF7dS0aZ3xC6vB9nM2qW5eR8tY1uI4oP7lK0jH3gF6dS9aZ\n" +
		"-----END RSA " + "PRIVATE KEY-----"
)

func marker(rule string) string { return "[REDACTED:" + rule + "]" }

// redactTests are Redact's cases; TestDetectMatchesGitleaks reads their
// inputs too.
var redactTests = []struct {
	name  string
	in    string
	want  string
	rules []string // rule per finding, in order
	lines []int
}{
	{
		name:  "aws access key",
		in:    "export AWS_ACCESS_KEY_ID=" + awsKey + "\nls\n",
		want:  "export AWS_ACCESS_KEY_ID=" + marker("aws-access-token") + "\nls\n",
		rules: []string{"aws-access-token"},
		lines: []int{1},
	},
	{
		name:  "github pat",
		in:    "first line\ngit clone https://" + githubPAT + "@github.com/o/r.git\nlast line",
		want:  "first line\ngit clone https://" + marker("github-pat") + "@github.com/o/r.git\nlast line",
		rules: []string{"github-pat"},
		lines: []int{2},
	},
	{
		name:  "generic api key assignment",
		in:    "config:\n  api_key = \"" + genericV + "\"\n",
		want:  "config:\n  api_key = \"" + marker("generic-api-key") + "\"\n",
		rules: []string{"generic-api-key"},
		lines: []int{2},
	},
	{
		name:  "private key block",
		in:    "before\n" + privateKey + "\nafter\n",
		want:  "before\n" + marker("private-key") + "\nafter\n",
		rules: []string{"private-key"},
		lines: []int{2},
	},
	{
		name:  "slack bot token",
		in:    "SLACK_TOKEN: " + slackBot,
		want:  "SLACK_TOKEN: " + marker("slack-bot-token"),
		rules: []string{"slack-bot-token"},
		lines: []int{1},
	},
	{
		name: "no secrets unchanged",
		in:   "func main() {\n\tfmt.Println(\"hello\") // key = value\n}\n\ttabs\r\nand CRLF\r\n",
		want: "func main() {\n\tfmt.Println(\"hello\") // key = value\n}\n\ttabs\r\nand CRLF\r\n",
	},
	{
		name:  "non-utf8 input",
		in:    "\xff\xfe bad \xc3\x28 bytes\ntoken " + githubPAT + " \x80\n\xed\xa0\x80",
		want:  "\xff\xfe bad \xc3\x28 bytes\ntoken " + marker("github-pat") + " \x80\n\xed\xa0\x80",
		rules: []string{"github-pat"},
		lines: []int{2},
	},
	{
		name: "repeated secret",
		in:   "a " + githubPAT + "\nb\nc " + githubPAT + " and " + githubPAT + "\n",
		want: "a " + marker("github-pat") + "\nb\nc " + marker("github-pat") +
			" and " + marker("github-pat") + "\n",
		rules: []string{"github-pat", "github-pat", "github-pat"},
		lines: []int{1, 3, 3},
	},
	{
		name:  "gitleaks allow comment does not exempt",
		in:    "pat " + githubPAT + " # gitleaks:allow\n",
		want:  "pat " + marker("github-pat") + " # gitleaks:allow\n",
		rules: []string{"github-pat"},
		lines: []int{1},
	},
	{
		name:  "base64 encoded secret",
		in:    "blob: " + base64.StdEncoding.EncodeToString([]byte("tok="+githubPAT)) + "\nnext\n",
		want:  "blob: " + marker("github-pat") + "\nnext\n",
		rules: []string{"github-pat"},
		lines: []int{1},
	},
	{
		name:  "two secrets, one line",
		in:    "k=" + awsKey + " t=" + githubPAT,
		want:  "k=" + marker("aws-access-token") + " t=" + marker("github-pat"),
		rules: []string{"aws-access-token", "github-pat"},
		lines: []int{1, 1},
	},
}

func TestRedact(t *testing.T) {
	t.Parallel()
	r := NewRedactor()
	for _, tt := range redactTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, findings := r.Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact() text\n got: %q\nwant: %q", got, tt.want)
			}
			var rules []string
			var lines []int
			for _, f := range findings {
				rules = append(rules, f.RuleID)
				lines = append(lines, f.Line)
			}
			if strings.Join(rules, ",") != strings.Join(tt.rules, ",") {
				t.Errorf("Redact() rules = %v, want %v", rules, tt.rules)
			}
			if len(lines) != len(tt.lines) {
				t.Fatalf("Redact() lines = %v, want %v", lines, tt.lines)
			}
			for i := range lines {
				if lines[i] != tt.lines[i] {
					t.Errorf("Redact() lines = %v, want %v", lines, tt.lines)
					break
				}
			}
		})
	}
}

var untouchedText = "keep me \x00\xff\n" + privateKey + "\n  also keep\ttabs  \nsecret " + githubPAT + "\n\nend"

// TestRedactLinesUntouched checks that a line without a secret survives byte
// for byte, whatever surrounds it.
func TestRedactLinesUntouched(t *testing.T) {
	t.Parallel()
	got, _ := Redact(untouchedText)
	for _, line := range []string{"keep me \x00\xff", "  also keep\ttabs  ", "", "end"} {
		if !strings.Contains(got, "\n"+line+"\n") && !strings.HasPrefix(got, line+"\n") && !strings.HasSuffix(got, "\n"+line) {
			t.Errorf("line %q changed; output %q", line, got)
		}
	}
}

var redactSeeds = []string{
	"", "plain text\n", "\xff\xfe\x00",
	"export AWS_ACCESS_KEY_ID=" + awsKey,
	"api_key = \"" + genericV + "\"",
	privateKey, slackBot + " " + slackBot, githubPAT + githubPAT,
	"token: " + base64.StdEncoding.EncodeToString([]byte(githubPAT)),
}

// FuzzRedact checks that redaction never panics, removes every secret the
// detector reports, leaves nothing a second pass would find, and keeps clean
// input as is. Seeds are added in code, not kept in testdata/fuzz, so that
// no secret-shaped literal is ever committed.
func FuzzRedact(f *testing.F) {
	for _, s := range redactSeeds {
		f.Add(s)
	}
	r := NewRedactor()
	full := reference(f)
	f.Fuzz(func(t *testing.T, in string) {
		out, findings := r.Redact(in)
		if len(findings) == 0 && out != in {
			t.Fatalf("no findings but text changed:\n in: %q\nout: %q", in, out)
		}
		for _, raw := range full.DetectString(in) {
			if raw.Secret != "" && strings.Contains(in, raw.Secret) && strings.Contains(out, raw.Secret) {
				t.Fatalf("%s secret %q survived in %q", raw.RuleID, raw.Secret, out)
			}
		}
		again, more := r.Redact(out)
		if len(more) != 0 {
			t.Fatalf("second pass found %v in %q", more, out)
		}
		if again != out {
			t.Fatalf("second pass changed %q to %q", out, again)
		}
	})
}

// windowsText is 40 lines of text with four secrets between them: a token,
// a private key block, a base64-encoded token and an AWS key.
func windowsText() string {
	var b strings.Builder
	for i := range 40 {
		b.WriteString("line of ordinary text number ")
		b.WriteString(strings.Repeat("x", i))
		b.WriteByte('\n')
		switch i {
		case 7:
			b.WriteString("token " + githubPAT + "\n")
		case 19:
			b.WriteString(privateKey + "\n")
		case 25:
			b.WriteString("blob: " + base64.StdEncoding.EncodeToString([]byte("t="+slackBot)) + "\n")
		case 30:
			b.WriteString("export AWS_ACCESS_KEY_ID=" + awsKey + "\n")
		}
	}
	return b.String()
}

// TestScanWindows checks that cutting a text into windows loses no secret:
// not one straddling a cut, nor a private key block longer than the overlap,
// nor an encoded one.
func TestScanWindows(t *testing.T) {
	t.Parallel()
	var det detector
	in := windowsText()
	want := merge(locate(nil, in, region{0, len(in)}, det.detect(in), map[string]bool{}))
	if len(want) != 4 {
		t.Fatalf("whole-text scan found %d ranges %v, want 4", len(want), want)
	}
	for _, size := range []int{16, 64, 100, 257, 1000} {
		got := merge(scan(nil, det.detect, in, region{0, len(in)}, size, 48, map[string]bool{}))
		if out, _ := apply(in, got); !strings.Contains(out, "\nblob: "+marker("slack-bot-token")+"\n") {
			t.Errorf("size %d: encoded secret not replaced exactly: %q", size, out)
		}
		if len(got) != len(want) {
			t.Errorf("size %d: got %d ranges %v, want %v", size, len(got), got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("size %d: range %d = %v, want %v", size, i, got[i], want[i])
			}
		}
	}
}
