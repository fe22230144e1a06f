package dispatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/skills"
)

// Job kinds.
const (
	JobFill   = "fill"
	JobReview = "review"
)

// Job is one agent run a pass would fire.
type Job struct {
	Kind  string `json:"kind"`
	Card  string `json:"card"`
	Skill string `json:"skill"`
	Lane  string `json:"lane,omitempty"`
	// Variant is 1-based for variant fills (and their reviews); Variants is N.
	Variant  int    `json:"variant,omitempty"`
	Variants int    `json:"variants,omitempty"`
	Target   string `json:"target"`
	// Draft is the draft a review reads.
	Draft string `json:"draft,omitempty"`
	// AfterFill marks a review of a draft this same pass fills.
	AfterFill bool   `json:"after_fill,omitempty"`
	Route     Route  `json:"route"`
	Why       string `json:"why"`
	// Unavailable says why the route's runner cannot run here (no claude
	// CLI on PATH, no base URL); such a job would not fire.
	Unavailable string `json:"unavailable,omitempty"`
}

// State is a card's derived state, computed from files only.
type State struct {
	ReadyForFill bool `json:"ready_for_fill"`
	HasDraft     bool `json:"has_draft"`
	Reviewed     bool `json:"reviewed"`
}

// CardPlan is what a pass would do for one card, and why.
type CardPlan struct {
	Card     Card     `json:"card"`
	Contract string   `json:"contract,omitempty"`
	State    State    `json:"state"`
	Drafts   []string `json:"drafts,omitempty"`
	Lanes    []string `json:"lanes,omitempty"`
	Pack     string   `json:"pack,omitempty"`
	// Freeze says the pass freezes the card's pack first (none exists yet).
	Freeze    bool     `json:"freeze,omitempty"`
	PackStale []string `json:"pack_stale,omitempty"`
	Jobs      []Job    `json:"jobs"`
	// Note says why nothing fires for the card.
	Note string `json:"note,omitempty"`

	contract *Contract
	pack     *Pack
	set      string
}

// Plan is what a pass would fire.
type Plan struct {
	Cards []CardPlan `json:"cards"`
	// Jobs counts the agent runs; Unavailable those of them whose runner
	// cannot run here.
	Jobs        int `json:"jobs"`
	Unavailable int `json:"unavailable"`
	// Pending are outputs of a deferred pass, landed by the next run.
	Pending  []string `json:"pending,omitempty"`
	Warnings []string `json:"warnings"`

	snap *Snapshot
}

// ErrNoCard means a card named on the command line matches no card (or
// several).
var ErrNoCard = errors.New("no card")

// Lanes returns a template set's default review lanes.
func Lanes(set string) ([]string, error) {
	switch strings.ToLower(set) {
	case "", "fiction":
		return []string{"canon", "voice"}, nil
	case "gamedev":
		return []string{"canon", "voice", "mechanics"}, nil
	}
	return nil, fmt.Errorf("unknown template_set %q: use fiction (canon, voice) or gamedev (canon, voice, mechanics)", set)
}

// Plan computes the next pass without running anything. only, when given,
// limits it to those cards (paths or names).
func (d *Dispatcher) Plan(ctx context.Context, only ...string) (*Plan, error) {
	pend, err := d.loadPending()
	if err != nil {
		return nil, err
	}
	snap, err := Scan(ctx, d.o.Repo, d.lay, pend.files())
	if err != nil {
		return nil, err
	}
	p := &Plan{snap: snap, Cards: []CardPlan{}, Warnings: append([]string{}, snap.Warnings...)}
	for _, r := range pend {
		for f := range r.Files {
			p.Pending = append(p.Pending, f)
		}
	}
	slices.Sort(p.Pending)
	want := map[string]bool{}
	for _, ref := range only {
		c, err := snap.card(ref)
		if err != nil {
			return nil, err
		}
		want[c] = true
	}
	byCard, warns := d.contractsByCard(snap)
	p.Warnings = append(p.Warnings, warns...)
	for _, card := range snap.Cards {
		if len(want) > 0 && !want[card.Path] {
			continue
		}
		cp := d.planCard(snap, card, byCard[card.Path])
		if cp.Note != "" && strings.HasPrefix(cp.Note, "skipped:") {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s %s", card.Path, cp.Note))
		}
		if w := d.canonWarning(snap, cp); w != "" {
			p.Warnings = append(p.Warnings, w)
		}
		p.Jobs += len(cp.Jobs)
		p.Cards = append(p.Cards, cp)
	}
	d.markUnavailable(p)
	return p, nil
}

// markUnavailable flags the jobs whose runner cannot run here, with one
// warning per runner. Injected runners (tests) are always available.
func (d *Dispatcher) markUnavailable(p *Plan) {
	if d.o.NewRunner != nil {
		return
	}
	why := map[string]error{}
	count := map[string]int{}
	var order []string
	for i := range p.Cards {
		for j := range p.Cards[i].Jobs {
			job := &p.Cards[i].Jobs[j]
			k := job.Route.Key()
			if _, seen := why[k]; !seen {
				why[k] = RunnerAvailable(job.Route, d.o.Env)
				order = append(order, k)
			}
			if err := why[k]; err != nil {
				job.Unavailable = err.Error()
				p.Unavailable++
				count[k]++
			}
		}
	}
	for _, k := range order {
		if err := why[k]; err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%d agent run(s) cannot fire: %v", count[k], err))
		}
	}
}

// card finds a card by path, path without ".md", or file name.
func (s *Snapshot) card(ref string) (string, error) {
	ref = strings.TrimPrefix(wikiTarget(ref), "./")
	var hits []string
	for _, c := range s.Cards {
		if c.Path == ref || strings.TrimSuffix(c.Path, ".md") == ref || c.Name() == strings.TrimSuffix(ref, ".md") {
			hits = append(hits, c.Path)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("%w matches %q (a card is a note with `type: card` in its frontmatter)", ErrNoCard, ref)
	}
	return "", fmt.Errorf("%w: %q matches several cards: %s; name one by its path", ErrNoCard, ref, strings.Join(hits, ", "))
}

// contractsByCard matches contracts to cards: by the contract's card field,
// else by file name.
func (d *Dispatcher) contractsByCard(s *Snapshot) (map[string]*Contract, []string) {
	out := map[string]*Contract{}
	var warns []string
	names := map[string][]string{}
	for _, c := range s.Cards {
		names[c.Name()] = append(names[c.Name()], c.Path)
	}
	for i := range s.Contracts {
		ct := &s.Contracts[i]
		var card string
		if ct.CardRef != "" {
			c, err := s.card(ct.CardRef)
			if err != nil {
				warns = append(warns, fmt.Sprintf("contract %s: card: %v; the contract is ignored", ct.Path, err))
				continue
			}
			card = c
		} else {
			base := strings.TrimSuffix(path.Base(ct.Path), ".md")
			switch hits := names[base]; len(hits) {
			case 1:
				card = hits[0]
			case 0:
				warns = append(warns, fmt.Sprintf("contract %s names no card (add `card: <path>`); the contract is ignored", ct.Path))
				continue
			default:
				warns = append(warns, fmt.Sprintf("contract %s matches several cards by name (%s); add `card: <path>`", ct.Path, strings.Join(hits, ", ")))
				continue
			}
		}
		if prev, dup := out[card]; dup {
			warns = append(warns, fmt.Sprintf("card %s has two contracts, %s and %s; %s is used", card, prev.Path, ct.Path, prev.Path))
			continue
		}
		out[card] = ct
	}
	return out, warns
}

// drafts lists a contract's existing drafts: the untagged target first,
// then "(vN)" variants in order.
func (s *Snapshot) drafts(target string) (untagged bool, variants []string) {
	untagged = s.Drafts[target]
	stem := strings.TrimSuffix(target, ".md")
	type v struct {
		n    int
		path string
	}
	var vs []v
	for f := range s.Drafts {
		if m := variantRE().FindStringSubmatch(f); m != nil && m[1] == stem {
			n, _ := strconv.Atoi(m[2])
			vs = append(vs, v{n, f})
		}
	}
	slices.SortFunc(vs, func(a, b v) int { return a.n - b.n })
	for _, x := range vs {
		variants = append(variants, x.path)
	}
	return untagged, variants
}

// reviewed reports whether a review naming draft and lane exists.
func (s *Snapshot) reviewed(lay Layout, draft, lane string) bool {
	if s.Files[lay.ReviewPath(draft, lane)] {
		return true
	}
	for _, r := range s.Reviews {
		if r.Lane == lane && r.Draft == draft {
			return true
		}
	}
	return false
}

func (d *Dispatcher) planCard(s *Snapshot, card Card, ct *Contract) CardPlan {
	cp := CardPlan{Card: card, Jobs: []Job{}, contract: ct}
	if ct == nil {
		if card.Ready {
			cp.Note = fmt.Sprintf("skipped: ready, but no contract under %s/ (writing one is authoring intent; scribe never writes it)", d.lay.Contracts)
		} else {
			cp.Note = "not ready (readiness: " + orDash(card.Readiness) + ")"
		}
		return cp
	}
	cp.Contract = ct.Path
	if ct.Mode != ModeFill {
		cp.Note = fmt.Sprintf("skipped: contract mode %q is not supported (only fill)", ct.Mode)
		return cp
	}
	untagged, variants := s.drafts(ct.OutputTarget)
	if untagged {
		cp.Drafts = append(cp.Drafts, ct.OutputTarget)
	}
	cp.Drafts = append(cp.Drafts, variants...)
	cp.State.HasDraft = len(cp.Drafts) > 0

	cp.set = firstNonEmpty(ct.TemplateSet, card.TemplateSet, d.o.Config.TemplateSet)
	lanes, err := Lanes(cp.set)
	if err != nil {
		cp.Note = "skipped: " + err.Error()
		return cp
	}
	if ct.HasReviewAfter {
		lanes = ct.ReviewAfter
	}
	cp.Lanes = lanes
	for _, lane := range lanes {
		if err := d.checkSkill(skills.ReviewPrefix + lane); err != nil {
			cp.Note = "skipped: " + err.Error()
			return cp
		}
	}
	// Reviews fire per variant until the writer's untagged rework lands;
	// then only the newest (untagged) draft is reviewed.
	toReview := variants
	if untagged {
		toReview = []string{ct.OutputTarget}
	}
	missing := 0
	for _, draft := range toReview {
		for _, lane := range lanes {
			if !s.reviewed(d.lay, draft, lane) {
				missing++
				cp.Jobs = append(cp.Jobs, Job{Kind: JobReview, Card: card.Path, Skill: skills.ReviewPrefix + lane, Lane: lane,
					Variant: variantOf(draft), Target: d.lay.ReviewPath(draft, lane), Draft: draft,
					Route: d.o.Routing.Route(skills.ReviewPrefix+lane, 0),
					Why:   fmt.Sprintf("draft %s has no %s review", draft, lane)})
			}
		}
	}
	cp.State.Reviewed = cp.State.HasDraft && missing == 0
	cp.State.ReadyForFill = card.Ready && !cp.State.HasDraft
	switch {
	case cp.State.ReadyForFill:
		if err := d.checkSkill(ct.AgentProfile); err != nil {
			cp.Note = "skipped: " + err.Error()
			cp.Jobs = nil
			return cp
		}
		n := max(ct.Variants, 1)
		for v := 1; v <= n; v++ {
			target, variant, variants := ct.OutputTarget, 0, 0
			why := "ready_for_fill: the card is ready and " + ct.OutputTarget + " does not exist"
			if ct.Variants > 1 {
				target, variant, variants = VariantPath(ct.OutputTarget, v), v, n
				why = fmt.Sprintf("ready_for_fill: variant %d of %d", v, n)
			}
			cp.Jobs = append(cp.Jobs, Job{Kind: JobFill, Card: card.Path, Skill: ct.AgentProfile, Variant: variant, Variants: variants,
				Target: target, Route: d.o.Routing.Route(ct.AgentProfile, variant), Why: why})
			for _, lane := range lanes {
				cp.Jobs = append(cp.Jobs, Job{Kind: JobReview, Card: card.Path, Skill: skills.ReviewPrefix + lane, Lane: lane,
					Variant: variant, Target: d.lay.ReviewPath(target, lane), Draft: target, AfterFill: true,
					Route: d.o.Routing.Route(skills.ReviewPrefix+lane, 0), Why: "reviews fire when the draft lands"})
			}
		}
	case !card.Ready && !cp.State.HasDraft:
		cp.Note = "not ready (readiness: " + orDash(card.Readiness) + ")"
	case cp.State.Reviewed:
		cp.Note = "done: drafted and reviewed"
	}
	if len(cp.Jobs) == 0 {
		return cp
	}
	cp.Pack = d.lay.PackPath(card.Path)
	pk, err := loadPack(d.o.Repo, card, cp.Pack)
	switch {
	case errors.Is(err, ErrPackNotFrozen):
		cp.Freeze = true
	case err != nil:
		cp.Note = "skipped: " + err.Error()
		cp.Jobs = []Job{}
		return cp
	default:
		cp.pack = &pk
		cp.PackStale = pk.Stale
	}
	return cp
}

// LaneCanon is the review lane that checks a draft against canon.
const LaneCanon = "canon"

// canonWarning says when a card's canon review would fire with no canon to
// check against: none of its pack's sources is a canon note (frontmatter
// `type: canon`, or a note under a canon/ directory). The review still
// fires — the writer may want its introduced-candidates list — but its
// verdict means little.
func (d *Dispatcher) canonWarning(s *Snapshot, cp CardPlan) string {
	fires := false
	for _, j := range cp.Jobs {
		fires = fires || (j.Kind == JobReview && j.Lane == LaneCanon)
	}
	if !fires {
		return ""
	}
	var sources []string
	if cp.pack != nil {
		for _, src := range cp.pack.Sources {
			sources = append(sources, src.Path)
		}
	} else if srcs, err := packSources(s, cp.Card, cp.contract); err == nil {
		sources = srcs
	}
	for _, src := range sources {
		if isCanon(d.o.Repo.WorkTree, src) {
			return ""
		}
	}
	return fmt.Sprintf("%s: the canon review has no canon to check against: its context pack holds no canon note "+
		"(type: canon, or a note under canon/); add one to the card's or contract's context: list, "+
		"or leave canon out of the contract's review_after", cp.Card.Path)
}

// isCanon reports whether the note rel is canon: under a canon/ directory
// or with `type: canon` in its frontmatter.
func isCanon(root, rel string) bool {
	if slices.Contains(strings.Split(path.Dir(rel), "/"), "canon") {
		return true
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil || len(data) > maxNoteBytes {
		return false
	}
	fm, _, err := ParseFrontmatter(string(data))
	return err == nil && strings.EqualFold(fm.String("type"), "canon")
}

// checkSkill makes sure a skill exists and renders with the variables
// dispatch supplies, so a broken override is found at plan time.
func (d *Dispatcher) checkSkill(name string) error {
	sk, err := d.lib.Get(name)
	if err != nil {
		return err
	}
	vars := map[string]string{}
	for _, k := range jobVars {
		vars[k] = ""
	}
	_, err = sk.Render(vars)
	return err
}

// jobVars are the variables fill and review contracts may use.
var jobVars = []string{"card_path", "card_title", "card_kind", "contract_path", "pack_path", "pack_sha", "pack",
	"output_target", "variant", "variant_note", "template_set", "lane", "draft_path", "draft"}

func variantOf(draft string) int {
	if m := variantRE().FindStringSubmatch(path.Base(draft)); m != nil {
		n, _ := strconv.Atoi(m[2])
		return n
	}
	return 0
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
