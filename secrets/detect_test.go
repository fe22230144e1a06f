package secrets

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedData holds real transcripts nobody on this project wrote
// (../shared/testdata/README.md); CI checks ../shared out beside this repo.
const sharedData = "../../shared/testdata"

// edgeTexts reach corners of gitleaks' detector that no sample of its own
// does.
var edgeTexts = []string{
	// A line generic-api-key's "AND" allowlist (paths, and a regex on the
	// line) would allow, but a text has no path.
	`SRC_API_KEY = "Zq81mKx0p4Ty7Wn3Lr5"`,
	// A secret whose entropy is the rule's threshold exactly (2 bits): not
	// above it, so no finding.
	`adobe_client = "abcdabcdabcdabcdabcdabcdabcdabcd"`,
	// A decoded finding is allowed by the decoded line, not the encoded one.
	"blob: " + base64.StdEncoding.EncodeToString([]byte("RUN --mount=type=secret,id=x api_key = \"Zq81mKx0p4Ty7Wn3Lr5\"\n")),
	"blob: " + base64.StdEncoding.EncodeToString([]byte("api_key = \"Zq81mKx0p4Ty7Wn3Lr5\"\n")),
	// Matches ending in, starting after and running over newlines, CRLF.
	"api_key = \"Zq81mKx0p4Ty7Wn3Lr5\"\n\n",
	"\napi_key = Zq81mKx0p4Ty7Wn3Lr5\r\nnext\r\n",
	"x\n" + awsKey + "\n" + githubPAT,
}

// testTexts are the texts the package's tests redact.
func testTexts() []string {
	texts := []string{untouchedText, windowsText(), diffText(8<<10, true), diffText(8<<10, false)}
	texts = append(texts, edgeTexts...)
	for _, tt := range redactTests {
		texts = append(texts, tt.in)
	}
	for _, tt := range connStrTests {
		texts = append(texts, tt.in)
	}
	texts = append(texts, notConnStrings...)
	texts = append(texts, placeholders...)
	texts = append(texts, redactSeeds...)
	return texts
}

// TestDetectMatchesGitleaks is the proof that the detector over the
// generated rules is gitleaks' own: every text the tests use, and the
// shared real transcripts — line by line, and in the windows Redact cuts
// them into (Redact never passes a longer text) — have the same findings
// (rule, lines and columns, secret, match, line, tags) from both. The
// corpus of gitleaks' own true positives is compared in
// TestLazyRulesFindWhatAllRulesFind.
func TestDetectMatchesGitleaks(t *testing.T) {
	t.Parallel()
	ref := reference(t)
	var det detector
	t.Run("test texts", func(t *testing.T) {
		t.Parallel()
		found := 0
		for _, s := range testTexts() {
			found += sameFindings(t, &det, ref, s)
		}
		if found < 30 {
			t.Fatalf("only %d findings: the comparison tests little", found)
		}
	})
	if _, err := os.Stat(sharedData); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s not present: the real transcripts are not compared", sharedData)
	}
	err := filepath.WalkDir(sharedData, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s := string(data)
			for _, line := range strings.SplitAfter(s, "\n") {
				sameFindings(t, &det, ref, line)
			}
			for start := 0; start < len(s); {
				from, end := window(s, start, len(s), windowSize, windowOverlap)
				sameFindings(t, &det, ref, s[from:end])
				start = end
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzDetectMatchesGitleaks compares the detector with gitleaks' on any
// text, and on a short one base64-encoded after it (the decoding passes),
// starting from gitleaks' own true positives, the connection strings and
// the tests' texts.
func FuzzDetectMatchesGitleaks(f *testing.F) {
	for _, s := range gitleaksTruePositives(f) {
		f.Add(s)
	}
	for _, s := range append(connectionStrings, testTexts()...) {
		f.Add(s)
	}
	ref := reference(f)
	var det detector
	f.Fuzz(func(t *testing.T, s string) {
		sameFindings(t, &det, ref, s)
		if len(s) < 1<<10 {
			sameFindings(t, &det, ref, s+"\nblob: "+base64.StdEncoding.EncodeToString([]byte(s)))
		}
	})
}
