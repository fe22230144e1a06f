package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-scribe/git-scribe/followups"
)

// goldenCorpus is one benchVault corpus the dashboard is pinned on.
type goldenCorpus struct {
	name   string
	n      int
	names  bool
	suffix []string
}

var goldenCorpora = []goldenCorpus{
	{"files", 2000, true, []string{".go"}},
	{"files", 10000, true, []string{".go"}},
	{"vault", 10000, true, nil},
	{"english", 10000, false, nil},
}

func (c goldenCorpus) String() string { return fmt.Sprintf("%s/%d", c.name, c.n) }

func (c goldenCorpus) sources() []followups.SourceFile {
	return benchVault(c.n, 200, c.names, c.suffix...)
}

// dashboardDigest hashes everything a regeneration decides: the file's
// text, every item and the audit as --json prints them (the merges among
// them), and every mention read.
func dashboardDigest(t testing.TB, d followups.Dashboard) string {
	t.Helper()
	h := sha256.New()
	for _, v := range []any{d, d.Mentions} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	h.Write([]byte(d.Render()))
	return hex.EncodeToString(h.Sum(nil))
}

// goldenDigests are the digests of the dashboards the algorithm computed
// before the parse cache and the incremental similarity join
// (6a4edf1): every dedup and merge decision since must be the same.
var goldenDigests = map[string]string{
	"files/2000":    "650c20562ffcb878bae7207a32635974e8f1dd2b58c3f376d34a7d740fc47bc9",
	"files/10000":   "36b347f3e08d8151d59b3147b04b5b096cadd987cc2040ec9e2439e363793045",
	"vault/10000":   "180129a5e9e981d3863b530fceef2218921d1291831bba33769600e23fb23b0c",
	"english/10000": "d7e7b5ef01ea6cdc1cecf19fb41b5e9f1673fe2eb6dd2e13ea5441406253f3bd",
}

// goldenText is the dashboard's file and merges audit in full for the
// small corpus, so that a change shows what changed, not only that
// something did.
func goldenText(t testing.TB, d followups.Dashboard) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(d.Render())
	b.WriteString("\n--- audit (as --json prints it) ---\n")
	j, err := json.MarshalIndent(d.Audit, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(j)
	b.WriteString("\n")
	return b.Bytes()
}

// TestRegenerateGolden pins the dashboard of each benchmark corpus against
// the one the algorithm before the cache computed: the same items, merges,
// resolutions, order and text, byte for byte. SCRIBE_UPDATE_GOLDEN=1
// prints the digests and rewrites the text golden (only for a deliberate
// change of a decision).
func TestRegenerateGolden(t *testing.T) {
	update := os.Getenv("SCRIBE_UPDATE_GOLDEN") == "1"
	for _, c := range goldenCorpora {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			d := followups.Regenerate(c.sources(), followups.MergeOptions{Cap: 15})
			got := dashboardDigest(t, d)
			if update {
				t.Logf("%q: %q,", c.String(), got)
			} else if want := goldenDigests[c.String()]; got != want {
				t.Errorf("dashboard digest %s, want %s: a dedup, merge or order decision changed", got, want)
			}
			if c.n != 2000 {
				return
			}
			path := filepath.Join("testdata", "activestatus-"+c.name+"-2000.golden")
			text := goldenText(t, d)
			if update {
				if err := os.WriteFile(path, text, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(text, want) {
				t.Errorf("dashboard and audit differ from %s:\n%s", path, firstDiff(string(want), string(text)))
			}
		})
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := range max(len(wl), len(gl)) {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, w, g)
		}
	}
	return "(same lines)"
}
