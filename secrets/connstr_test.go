package secrets

import (
	"strings"
	"testing"
)

// connStrTests are TestRedactConnectionStrings' cases: a password, and
// what must stay readable.
var connStrTests = func() []struct{ name, in, secret, keep string } {
	pw := "Sup3r" + "S3cretPw"
	return []struct{ name, in, secret, keep string }{
		{"postgres short", "DATABASE_URL=postgres://u:p@host/db", "u:p@", "@host/db"},
		{"postgres", "psql postgresql://app:" + pw + "@db.internal:5432/prod", pw, "db.internal:5432/prod"},
		{"mongodb srv", "uri: mongodb+srv://user:" + pw + "@cluster0.ab1cd.mongodb.net/test?retryWrites=true", pw, "cluster0.ab1cd.mongodb.net"},
		{"mysql", "mysql://root:" + pw + "@127.0.0.1:3306/app", pw, "127.0.0.1:3306/app"},
		{"redis no user", "REDIS_URL=redis://:" + pw + "@cache:6379/0", pw, "cache:6379/0"},
		{"rediss default user", "rediss://default:" + pw + "@eu1.upstash.io:6379", pw, "eu1.upstash.io"},
		{"amqp", "amqps://guest:" + pw + "@rabbit.example.com/vhost", pw, "rabbit.example.com/vhost"},
		{"at sign in password", "postgres://svc:" + pw + "@x@db/prod", pw + "@x", "@db/prod"},
		{"https basic auth", "git clone https://bob:" + pw + "@git.example.com/r.git", pw, "git.example.com/r.git"},
		{"quoted in json", `{"url":"postgres://app:` + pw + `@db/prod"}`, pw, "@db/prod"},
	}
}()

// notConnStrings are URLs without a password, or with one already redacted.
var notConnStrings = []string{"https://github.com/o/r.git", "ssh://git@github.com/o/r", "postgres://localhost/db",
	"https://x:[REDACTED:github-pat]@github.com/o/r"}

// TestRedactConnectionStrings: the password in a connection string's user
// information never passes; the scheme and host stay readable.
func TestRedactConnectionStrings(t *testing.T) {
	t.Parallel()
	for _, tt := range connStrTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, fs := Redact(tt.in)
			if strings.Contains(out, tt.secret) {
				t.Errorf("Redact(%q) = %q: the password passed", tt.in, out)
			}
			if !strings.Contains(out, tt.keep) {
				t.Errorf("Redact(%q) = %q: lost %q", tt.in, out, tt.keep)
			}
			if len(fs) == 0 {
				t.Errorf("Redact(%q): no finding", tt.in)
			}
		})
	}
	// A URL without a password, or one already redacted, is left alone.
	for _, in := range notConnStrings {
		if out, _ := Redact(in); out != in {
			t.Errorf("Redact(%q) = %q, want it unchanged", in, out)
		}
	}
}

// TestRedactPaths: a token in a file name is redacted like any text, each
// path on its own.
func TestRedactPaths(t *testing.T) {
	t.Parallel()
	in := []string{"src/main.go", "keys/" + githubPAT + ".txt", "docs/" + awsKey + "/notes.md", ""}
	out := RedactPaths(in)
	if len(out) != len(in) {
		t.Fatalf("RedactPaths returned %d paths for %d", len(out), len(in))
	}
	want := []string{"src/main.go", "keys/" + marker("github-pat") + ".txt", "docs/" + marker("aws-access-token") + "/notes.md", ""}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("RedactPaths[%d] = %q, want %q", i, out[i], want[i])
		}
	}
}
