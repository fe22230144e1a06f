package secrets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/utils"
)

// connectionStrings are the corpus's own samples: gitleaks has no rule for
// a password in a URL's user information.
var connectionStrings = []string{
	"DATABASE_URL=postgres://app:" + "Pg5ecretPw9x" + "@db.internal:5432/prod",
	"postgresql://u:" + "p4ssw0rdValue" + "@localhost/db?sslmode=disable",
	"MONGO_URI=mongodb+srv://admin:" + "M0ngoS3cret77" + "@cluster0.ab1cd.mongodb.net/test",
	"mysql://root:" + "My5qlRootPw1" + "@127.0.0.1:3306/app",
	"REDIS_URL=redis://:" + "R3disAuthTok3n" + "@cache.example.com:6379/0",
	"rediss://default:" + "UpstashT0ken99" + "@eu1-able-owl.upstash.io:6379",
	"CELERY_BROKER=amqp://guest:" + "Rabb1tMqPass" + "@rabbit:5672/vhost",
	"amqps://svc:" + "AmqpS3cretPw" + "@b-1234.mq.us-east-1.amazonaws.com:5671",
}

// gitleaksTruePositives extracts the true-positive samples ("tps") of every
// rule of the gitleaks module in the module cache: string literals,
// concatenations of them, and the module's own sample generators
// (utils.GenerateSampleSecret(s)). Expressions it cannot evaluate are
// skipped: random samples (secrets.NewSecret) need a generator this module
// does not depend on.
func gitleaksTruePositives(t testing.TB) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/zricethezav/gitleaks/v8").Output()
	if err != nil {
		t.Skipf("gitleaks module not found: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "cmd", "generate", "config", "rules")
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(files) == 0 {
		t.Skipf("no rule sources under %s", dir)
	}
	var tps []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "tps" {
				return true
			}
			tps = append(tps, evalStrings(as.Rhs[0])...)
			return true
		})
	}
	return tps
}

// evalStrings evaluates e as a list of strings (see gitleaksTruePositives).
func evalStrings(e ast.Expr) []string {
	switch x := e.(type) {
	case *ast.CompositeLit:
		var out []string
		for _, el := range x.Elts {
			out = append(out, evalStrings(el)...)
		}
		return out
	case *ast.CallExpr:
		switch callName(x) {
		case "append":
			var out []string
			for _, a := range x.Args[1:] {
				out = append(out, evalStrings(a)...)
			}
			return out
		case "utils.GenerateSampleSecrets":
			if a, b, ok := twoStrings(x); ok {
				return utils.GenerateSampleSecrets(a, b)
			}
			return nil
		}
	}
	if s, ok := evalString(e); ok {
		return []string{s}
	}
	return nil
}

func evalString(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := evalString(x.X)
		b, ok2 := evalString(x.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return evalString(x.X)
	case *ast.CallExpr:
		name := callName(x)
		switch {
		case name == "utils.GenerateSampleSecret":
			if a, b, ok := twoStrings(x); ok {
				return utils.GenerateSampleSecret(a, b), true
			}
		}
	}
	return "", false
}

func twoStrings(c *ast.CallExpr) (string, string, bool) {
	if len(c.Args) != 2 {
		return "", "", false
	}
	a, ok1 := evalString(c.Args[0])
	b, ok2 := evalString(c.Args[1])
	return a, b, ok1 && ok2
}

func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if pkg, ok := f.X.(*ast.Ident); ok {
			return pkg.Name + "." + f.Sel.Name
		}
	}
	return ""
}

// TestSecretsCorpus runs gitleaks' own true-positive samples and the
// connection strings through the redactor: every secret the detector
// finds in a sample is gone from the redacted text (0 leaks), across at
// least 30 rule types.
func TestSecretsCorpus(t *testing.T) {
	t.Parallel()
	samples := append(gitleaksTruePositives(t), connectionStrings...)
	det := reference(t)
	types := map[string]int{}
	var leaks, detected int
	for _, s := range samples {
		fs := det.DetectString(s)
		if len(fs) == 0 {
			continue // not a secret for the default rules alone (needs a path, a composite rule…)
		}
		detected++
		out, _ := Redact(s)
		for _, f := range fs {
			types[f.RuleID]++
			for _, secret := range []string{f.Secret, f.Match} {
				if len(secret) >= 6 && strings.Contains(out, secret) && !strings.Contains(secret, "[REDACTED:") {
					leaks++
					t.Errorf("rule %s: %q survives redaction of %q: %q", f.RuleID, secret, s, out)
					break
				}
			}
		}
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("%d samples, %d with a finding, %d rule types, %d leaks", len(samples), detected, len(types), leaks)
	if len(types) < 30 {
		t.Errorf("only %d rule types in the corpus (%s), want at least 30", len(types), strings.Join(names, ", "))
	}
	if types["connection-string-password"] < len(connectionStrings) {
		t.Errorf("connection strings found %d times, want %d", types["connection-string-password"], len(connectionStrings))
	}
}
