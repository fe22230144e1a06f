package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/notes"
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
// (6a4edf1): every dedup and merge decision since must be the same. They
// were taken again once, when the file's text gained its markdownlint line
// and escaping (md14b): the items, the audit and the mentions read hashed
// the same before and after that merge, only the rendered text differed.
var goldenDigests = map[string]string{
	"files/2000":    "d3359f7f8a3149f61dabb444bd55ab457d9bd4b39defd044a94c657f32326d2b",
	"files/10000":   "078ba4253043890ee56b0ba36e53b7109eda0cc83561e5dc03124db8a9514309",
	"vault/10000":   "e2a404b2c36c3fad2b7b396becd246f392194d6dc21a7218e246c96270da9eb3",
	"english/10000": "084445e3e92817146d22b92b8fe1de2968a048663a221fce7674a860b8c05b9e",
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

// editCorpus changes srcs the ways a vault changes between regenerations,
// on a copy: a journal entry appended (a new item, a near-duplicate of an
// open one, a "### Done" naming one), a box ticked, a line edited, a file
// gone, a file new, a file's time moved.
// d is srcs' dashboard.
func editCorpus(t testing.TB, srcs []followups.SourceFile, d followups.Dashboard, round int) []followups.SourceFile {
	t.Helper()
	out := slices.Clone(srcs)
	open := d.Items[(round*37)%len(d.Items)]
	other := d.Items[(round*53+7)%len(d.Items)]
	entry := notes.Entry{Time: time.Date(2026, 11, 1+round, 9, 0, 0, 0, time.UTC), Summary: fmt.Sprintf("edit %d", round), Result: notes.ResultShipped,
		Next: []string{fmt.Sprintf("(p%03d) brand new follow-up number %d", round, round), "(" + open.Project + ") " + strings.ToUpper(open.Text[:1]) + open.Text[1:] + "s"},
		Done: []string{other.Text}}
	for i, s := range out {
		switch {
		case s.Kind == followups.SourceJournal:
			out[i].Text = s.Text + entry.Render() + "\n"
		case i == 1+round%7:
			out[i].Text = strings.Replace(s.Text, "- [ ] ", "- [x] ", 1)
		case i == 9+round%5:
			out[i].Text = strings.Replace(s.Text, "e", "E", 3)
		case i == 15+round:
			out[i].Time = s.Time.Add(-72 * time.Hour)
		}
	}
	out = slices.Delete(out, 20+round, 21+round)
	return append(out, followups.SourceFile{Kind: followups.SourceTodos, Path: fmt.Sprintf("projects/new%d/todos.md", round), Project: fmt.Sprintf("new%d", round),
		Time: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), Text: "# new\n\n## Next Session\n\n- " + open.Text + "\n- something else entirely\n"})
}

// TestCachedRegenerateMatchesCold: a regeneration with the cache — warm
// from the same sources, read back from its encoding, or left by the
// sources before an edit — gives exactly the dashboard one without it
// gives, for every corpus and edit; at another threshold too (the small
// corpus).
func TestCachedRegenerateMatchesCold(t *testing.T) {
	for _, c := range goldenCorpora {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			srcs := c.sources()
			cache := followups.NewCache("test")
			opts := followups.MergeOptions{Cap: 15, Cache: cache}
			d := followups.Regenerate(srcs, opts)
			if got := dashboardDigest(t, d); got != goldenDigests[c.String()] {
				t.Fatalf("cold cache: digest %s, want %s", got, goldenDigests[c.String()])
			}
			if !cache.Changed() {
				t.Error("a filled cache is not Changed")
			}
			opts.Cache = followups.DecodeCache(cache.Encode(), "test")
			if got := dashboardDigest(t, followups.Regenerate(srcs, opts)); got != goldenDigests[c.String()] {
				t.Fatalf("decoded cache: digest %s, want %s", got, goldenDigests[c.String()])
			}
			if opts.Cache.Changed() {
				t.Error("the same sources changed the cache")
			}
			for round := range 3 {
				edited := editCorpus(t, srcs, d, round)
				d = followups.Regenerate(edited, followups.MergeOptions{Cap: 15})
				want := dashboardDigest(t, d)
				if got := dashboardDigest(t, followups.Regenerate(edited, opts)); got != want {
					t.Fatalf("edit %d with the cache of the sources before: digest %s, want %s", round, got, want)
				}
				opts.Cache = followups.DecodeCache(opts.Cache.Encode(), "test")
				srcs = edited
			}
			if c.n > 2000 {
				return // at 0.7, 10,000 follow-ups are a long join
			}
			loose := followups.MergeOptions{Cap: 15, Similarity: 0.7}
			want := dashboardDigest(t, followups.Regenerate(srcs, loose))
			loose.Cache = opts.Cache
			if got := dashboardDigest(t, followups.Regenerate(srcs, loose)); got != want {
				t.Fatalf("threshold 0.7 with a cache of 0.85: digest %s, want %s", got, want)
			}
		})
	}
}
