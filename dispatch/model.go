package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/skills"
)

// Layout is where dispatch's inputs and outputs live, repo-relative.
type Layout struct {
	Contracts string
	Packs     string
	Drafts    string
	Reviews   string
}

// LayoutOf reads the layout from the configured paths.
func LayoutOf(p config.Paths) Layout {
	return Layout{Contracts: clean(p.Contracts), Packs: clean(p.ContextPacks), Drafts: clean(p.Drafts), Reviews: clean(p.Reviews)}
}

func clean(p string) string { return strings.Trim(path.Clean("/"+p), "/") }

// under reports whether rel is inside dir.
func under(rel, dir string) bool { return dir != "" && strings.HasPrefix(rel, dir+"/") }

// Card is a note whose frontmatter says `type: card`.
type Card struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Readiness is the card's own word for its state ("ready", "draft", …).
	Readiness string `json:"readiness"`
	Ready     bool   `json:"ready"`
	// TemplateSet overrides the vault's template_set for this card.
	TemplateSet string   `json:"template_set,omitempty"`
	Context     []string `json:"context,omitempty"`
}

// Name is the card's file name without ".md".
func (c Card) Name() string { return strings.TrimSuffix(path.Base(c.Path), ".md") }

// ParseCard reads a card; ok is false when the note is not a card.
// Readiness is `readiness: ready` (or `status: ready`, or `ready: true`).
func ParseCard(rel, text string) (Card, bool, error) {
	fm, body, err := ParseFrontmatter(text)
	if errors.Is(err, ErrNoFrontmatter) {
		return Card{}, false, nil
	}
	if err != nil {
		if strings.Contains(strings.ToLower(text[:min(len(text), 400)]), "card") {
			return Card{}, false, fmt.Errorf("%s: %w", rel, err)
		}
		return Card{}, false, nil
	}
	if !strings.EqualFold(fm.String("type"), "card") {
		return Card{}, false, nil
	}
	c := Card{Path: rel, Kind: fm.String("kind"), TemplateSet: fm.String("template_set")}
	if c.Kind == "" {
		c.Kind = "piece"
	}
	c.Readiness = fm.String("readiness")
	if c.Readiness == "" {
		c.Readiness = fm.String("status")
	}
	if c.Readiness == "" && fm.Bool("ready") {
		c.Readiness = "ready"
	}
	c.Ready = strings.EqualFold(c.Readiness, "ready")
	c.Title = fm.String("title")
	if c.Title == "" {
		c.Title = firstH1(body)
	}
	if c.Title == "" {
		c.Title = c.Name()
	}
	c.Context, _ = fm.List("context")
	return c, true, nil
}

func firstH1(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// Fill modes a contract may name; only fill is built (refactor is deferred
// until the loop earns it).
const ModeFill = "fill"

// Contract is a card's dispatch spec: a note under the contracts dir with
// `type: contract`.
type Contract struct {
	Path string `json:"path"`
	// CardRef is what the contract says its card is (a path, a [[link]] or
	// a name); empty means the card with the contract's file name.
	CardRef string `json:"card_ref,omitempty"`
	Mode    string `json:"mode"`
	// AgentProfile is the skill a fill runs (default body_fill).
	AgentProfile string `json:"agent_profile"`
	OutputTarget string `json:"output_target"`
	// ReviewAfter, when HasReviewAfter, narrows or reorders the lanes.
	ReviewAfter    []string `json:"review_after,omitempty"`
	HasReviewAfter bool     `json:"-"`
	Variants       int      `json:"variants,omitempty"`
	TemplateSet    string   `json:"template_set,omitempty"`
	Context        []string `json:"context,omitempty"`
	// Notes is the contract's body: the author's notes for the fill.
	Notes string `json:"-"`
}

// MaxVariants bounds variants: N.
const MaxVariants = 9

var (
	laneRE    = lazyre.New(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	unsafeRel = lazyre.New(`[*?\[\]\\\x00-\x1f]`)
)

// ParseContract reads a contract note. The output target defaults to
// <drafts>/<contract file name>; it must be a .md path inside the drafts dir.
func ParseContract(rel, text string, lay Layout) (Contract, error) {
	fm, body, err := ParseFrontmatter(text)
	if err != nil {
		return Contract{}, fmt.Errorf("contract %s: %w", rel, err)
	}
	if !strings.EqualFold(fm.String("type"), "contract") {
		return Contract{}, fmt.Errorf("contract %s: frontmatter has no `type: contract`", rel)
	}
	c := Contract{Path: rel, CardRef: wikiTarget(fm.String("card")), Mode: strings.ToLower(fm.String("mode")),
		AgentProfile: fm.String("agent_profile"), OutputTarget: fm.String("output_target"),
		TemplateSet: fm.String("template_set"), Notes: strings.TrimSpace(body)}
	if c.Mode == "" {
		c.Mode = ModeFill
	}
	if c.AgentProfile == "" {
		c.AgentProfile = skills.BodyFill
	}
	if c.OutputTarget == "" {
		c.OutputTarget = path.Join(lay.Drafts, path.Base(rel))
	}
	c.OutputTarget = wikiTarget(c.OutputTarget)
	if !strings.HasSuffix(c.OutputTarget, ".md") {
		c.OutputTarget += ".md"
	}
	if err := gitops.CheckRelPath(c.OutputTarget); err != nil {
		return Contract{}, fmt.Errorf("contract %s: output_target: %w", rel, err)
	}
	if !under(c.OutputTarget, lay.Drafts) || unsafeRel().MatchString(c.OutputTarget) || variantRE().MatchString(path.Base(c.OutputTarget)) {
		return Contract{}, fmt.Errorf("contract %s: output_target %q must be a plain .md path under %s/ (no glob characters, no \" (vN)\" tag)", rel, c.OutputTarget, lay.Drafts)
	}
	if ra, ok := fm.List("review_after"); ok {
		c.HasReviewAfter = true
		for _, lane := range ra {
			lane = strings.ToLower(strings.TrimPrefix(lane, skills.ReviewPrefix))
			if !laneRE().MatchString(lane) {
				return Contract{}, fmt.Errorf("contract %s: review_after lane %q: use lower-case names like canon, voice, mechanics", rel, lane)
			}
			if !slices.Contains(c.ReviewAfter, lane) {
				c.ReviewAfter = append(c.ReviewAfter, lane)
			}
		}
	}
	n, _, err := fm.Int("variants")
	if err != nil {
		return Contract{}, fmt.Errorf("contract %s: %w", rel, err)
	}
	if n < 0 || n > MaxVariants {
		return Contract{}, fmt.Errorf("contract %s: variants %d: use 0 to %d", rel, n, MaxVariants)
	}
	if n > 1 {
		c.Variants = n
	}
	c.Context, _ = fm.List("context")
	return c, nil
}

// variantRE matches a "(vN)"-tagged draft name.
var variantRE = lazyre.New(`^(.*) \(v([1-9][0-9]*)\)\.md$`)

// VariantPath is the "(vN)"-tagged sibling of a draft target.
func VariantPath(target string, n int) string {
	return strings.TrimSuffix(target, ".md") + " (v" + strconv.Itoa(n) + ").md"
}

// ReviewPath is where the lane's review of a draft lands: the draft's path
// under the drafts dir, mirrored under reviews/<lane>/.
func (lay Layout) ReviewPath(draft, lane string) string {
	return path.Join(lay.Reviews, lane, strings.TrimPrefix(draft, lay.Drafts+"/"))
}

// PackPath is where a card's frozen context pack lives: the card's path
// mirrored under the packs dir.
func (lay Layout) PackPath(card string) string { return path.Join(lay.Packs, card) }

// ShaPath is the sha256 sidecar of a pack ("<pack>.sha256", in sha256sum's format).
func ShaPath(pack string) string { return strings.TrimSuffix(pack, ".md") + ".sha256" }

// Artifact is a landed draft or review, as far as dispatch needs to know.
type Artifact struct {
	Path    string `json:"path"`
	Lane    string `json:"lane,omitempty"`
	Draft   string `json:"draft,omitempty"`
	PackSHA string `json:"pack_sha,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// Snapshot is the vault as dispatch sees it, read from the work tree's
// files (tracked and untracked, not ignored) — never from stored state.
type Snapshot struct {
	Cards     []Card
	Contracts []Contract
	Drafts    map[string]bool
	Reviews   []Artifact
	// Files is every markdown path listed, for resolving references.
	Files    map[string]bool
	Warnings []string
}

// maxNoteBytes caps a note dispatch reads.
const maxNoteBytes = 1 << 20

// Scan reads the vault. extra are files a deferred pass already produced
// (they count as existing).
func Scan(ctx context.Context, repo *gitops.Repo, lay Layout, extra map[string][]byte) (*Snapshot, error) {
	out, err := repo.Git(ctx, "ls-files", "-z", "-c", "-o", "--exclude-standard", "--deduplicate", "--", "*.md")
	if err != nil {
		return nil, fmt.Errorf("list vault notes: %w", err)
	}
	s := &Snapshot{Drafts: map[string]bool{}, Files: map[string]bool{}}
	var rels []string
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel != "" && strings.HasSuffix(rel, ".md") {
			rels = append(rels, rel)
		}
	}
	for rel := range extra {
		if strings.HasSuffix(rel, ".md") && !slices.Contains(rels, rel) {
			rels = append(rels, rel)
		}
	}
	slices.Sort(rels)
	for _, rel := range rels {
		var text string
		if data, ok := extra[rel]; ok {
			text = string(data)
		} else {
			data, exists, err := readNote(repo, rel)
			if err != nil {
				s.Warnings = append(s.Warnings, err.Error())
				continue
			}
			if !exists {
				continue // deleted in the work tree
			}
			text = data
		}
		s.Files[rel] = true
		switch {
		case under(rel, lay.Drafts):
			s.Drafts[rel] = true
		case under(rel, lay.Reviews):
			s.Reviews = append(s.Reviews, parseReview(rel, text, lay))
		case under(rel, lay.Packs):
		case under(rel, lay.Contracts):
			c, err := ParseContract(rel, text, lay)
			if err != nil {
				s.Warnings = append(s.Warnings, err.Error()+"; the contract is ignored")
				continue
			}
			s.Contracts = append(s.Contracts, c)
		default:
			c, ok, err := ParseCard(rel, text)
			if err != nil {
				s.Warnings = append(s.Warnings, err.Error())
			}
			if ok {
				s.Cards = append(s.Cards, c)
			}
		}
	}
	return s, nil
}

func readNote(repo *gitops.Repo, rel string) (string, bool, error) {
	abs, err := repo.Abs(rel)
	if err != nil {
		return "", false, err
	}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", false, nil // a symlink or special file is never followed
	}
	if fi.Size() > maxNoteBytes {
		return "", false, fmt.Errorf("%s is %d bytes, over dispatch's %d-byte note limit; skipped", rel, fi.Size(), maxNoteBytes)
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", rel, err)
	}
	return string(data), true, nil
}

func parseReview(rel, text string, lay Layout) Artifact {
	a := Artifact{Path: rel}
	if lane, _, ok := strings.Cut(strings.TrimPrefix(rel, lay.Reviews+"/"), "/"); ok {
		a.Lane = lane
	}
	fm, _, err := ParseFrontmatter(text)
	if err != nil {
		return a
	}
	if d := wikiTarget(fm.String("draft")); d != "" {
		if !strings.HasSuffix(d, ".md") {
			d += ".md"
		}
		a.Draft = d
	}
	a.PackSHA, a.Verdict = fm.String("pack_sha"), fm.String("verdict")
	return a
}

// resolve finds the note a reference names: an exact path, the path plus
// ".md", or a unique file name.
func (s *Snapshot) resolve(ref string) (string, error) {
	ref = strings.TrimPrefix(wikiTarget(ref), "./")
	if ref == "" {
		return "", errors.New("empty reference")
	}
	for _, cand := range []string{ref, ref + ".md"} {
		if s.Files[cand] {
			return cand, nil
		}
	}
	base := path.Base(ref)
	if !strings.HasSuffix(base, ".md") {
		base += ".md"
	}
	var hits []string
	for f := range s.Files {
		if path.Base(f) == base {
			hits = append(hits, f)
		}
	}
	slices.Sort(hits)
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("%q names no note in the vault", ref)
	}
	return "", fmt.Errorf("%q is ambiguous: %s; use the full path", ref, strings.Join(hits, ", "))
}

// maxFileBytes caps any file dispatch reads whole (packs, sidecars, sources).
const maxFileBytes = 4 << 20

// readFile reads a repo-relative regular file from the work tree; ok is
// false when it does not exist. Symlinks are refused, never followed.
func readFile(repo *gitops.Repo, rel string) ([]byte, bool, error) {
	abs, err := repo.Abs(rel)
	if err != nil {
		return nil, false, err
	}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file (a symlink?); dispatch never follows links", rel)
	}
	if fi.Size() > maxFileBytes {
		return nil, false, fmt.Errorf("%s is %d bytes, over dispatch's %d-byte limit", rel, fi.Size(), maxFileBytes)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", rel, err)
	}
	return data, true, nil
}
