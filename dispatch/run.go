package dispatch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/vault"
)

// Landed is one file a pass landed.
type Landed struct {
	Path       string `json:"path"`
	Kind       string `json:"kind"` // draft, review or pack
	Card       string `json:"card,omitempty"`
	Lane       string `json:"lane,omitempty"`
	Draft      string `json:"draft,omitempty"`
	Variant    int    `json:"variant,omitempty"`
	Verdict    string `json:"verdict,omitempty"`
	Skill      string `json:"skill,omitempty"`
	Agent      string `json:"agent,omitempty"`
	Model      string `json:"model,omitempty"`
	PackSHA    string `json:"pack_sha,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	Usage      Usage  `json:"usage,omitzero"`
}

// Failure is an agent run that failed; nothing of it lands.
type Failure struct {
	Job   Job    `json:"job"`
	Error string `json:"error"`
}

// RunReport is what a pass did.
type RunReport struct {
	// Status is committed, nothing, queued or failed.
	Status   string               `json:"status"`
	Reason   string               `json:"reason"`
	Commit   *gitops.CommitResult `json:"commit,omitempty"`
	Landed   []Landed             `json:"landed"`
	Failed   []Failure            `json:"failed"`
	Warnings []string             `json:"warnings"`
	// Reviews counts the review artifacts landed (watch mines after them).
	Reviews int `json:"reviews"`
	// QueueID names the deferred outputs when Status is queued.
	QueueID string `json:"queue_id,omitempty"`
}

// Failed reports whether any agent run failed.
func (r RunReport) HasFailures() bool { return len(r.Failed) > 0 }

// Verdicts a review may carry.
const (
	VerdictClean    = "clean"
	VerdictIssues   = "issues"
	VerdictBlocking = "blocking"
)

var verdictRE = lazyre.New(`(?im)^[ \t>*_#-]*verdict[ \t*_]*:[ \t*_]*([A-Za-z-]+)[ \t*_.!]*$`)

// ParseVerdict reads a review's "verdict:" line. The verdict is clean,
// issues or blocking (block, blocker and blocked read as blocking); a reply
// without a readable one is "issues" — fail toward the writer looking, never
// away. body is the reply without that line.
func ParseVerdict(out string) (verdict, body string) {
	loc := verdictRE().FindStringSubmatchIndex(out)
	if loc == nil {
		return VerdictIssues, out
	}
	word := strings.ToLower(out[loc[2]:loc[3]])
	switch word {
	case VerdictClean, VerdictIssues, VerdictBlocking:
		verdict = word
	case "block", "blocker", "blocked":
		verdict = VerdictBlocking
	default:
		verdict = VerdictIssues
	}
	end := loc[1]
	if end < len(out) && out[end] == '\n' {
		end++
	}
	return verdict, out[:loc[0]] + out[end:]
}

// CleanBody normalises an agent's reply to the body of an artifact: line
// ends to "\n", a reply wrapped whole in one code fence unwrapped, any
// frontmatter the agent wrote dropped (the dispatcher writes its own),
// surrounding blank lines trimmed.
func CleanBody(out string) string {
	s := strings.TrimSpace(strings.ReplaceAll(out, "\r\n", "\n"))
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && strings.Count(s, "```") == 2 {
		if i := strings.IndexByte(s, '\n'); i > 0 {
			s = strings.TrimSpace(s[i+1 : len(s)-3])
		}
	}
	if _, body, ok := SplitFrontmatter(s + "\n"); ok {
		s = strings.TrimSpace(body)
	}
	return s + "\n"
}

// artifactFM is the frontmatter the dispatcher writes; the agent never
// writes any.
type artifactFM struct {
	// Title names the artifact where markdown tools look for one
	// (markdownlint's MD041 takes a frontmatter title for the H1); the
	// body stays the agent's, with no heading added.
	Title     string   `yaml:"title"`
	Type      string   `yaml:"type"`
	Kind      string   `yaml:"kind"`
	Lane      string   `yaml:"lane,omitempty"`
	Verdict   string   `yaml:"verdict,omitempty"`
	Card      string   `yaml:"card"`
	Draft     string   `yaml:"draft,omitempty"`
	Variant   int      `yaml:"variant,omitempty"`
	Links     []string `yaml:"links"`
	Pack      string   `yaml:"pack"`
	PackSHA   string   `yaml:"pack_sha"`
	Agent     string   `yaml:"agent"`
	Model     string   `yaml:"model"`
	Skill     string   `yaml:"skill"`
	Generated string   `yaml:"generated"`
}

// artifactLint opens an artifact's body: markdownlint's inline
// configuration. The body is the agent's, landed verbatim, and prose keeps
// a paragraph to a line, as a writer's vault does: MD013 (line length) is
// off. It stands after the frontmatter, which markdown tools read first.
const artifactLint = "<!-- markdownlint-disable-file MD013 -->"

func renderArtifact(fm artifactFM, body string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, err
	}
	enc.Close()
	b.WriteString("---\n")
	b.WriteString(artifactLint + "\n\n")
	b.WriteString(body)
	return b.Bytes(), nil
}

// artifactBody is the body of a landed artifact as the agent wrote it:
// after the frontmatter, less the lint directive renderArtifact put first
// (and the blank line after it).
func artifactBody(text string) string {
	_, body, _ := SplitFrontmatter(text)
	first, rest, _ := strings.Cut(body, "\n")
	if !markdown.LintDirective(first) {
		return body
	}
	if r, ok := strings.CutPrefix(rest, "\r\n"); ok {
		return r
	}
	return strings.TrimPrefix(rest, "\n")
}

// outcome is one finished agent run.
type outcome struct {
	job    Job
	body   string // cleaned and redacted
	data   []byte // the artifact file
	landed Landed
	err    error
}

// Run fires one pass: it lands deferred outputs, freezes missing packs,
// runs the fills, then the review lanes (of existing drafts and of the ones
// it just filled), and lands everything that succeeded as one commit with a
// ledger entry in the journal. A second run after a complete pass
// dispatches nothing. only limits the pass to those cards.
func (d *Dispatcher) Run(ctx context.Context, only ...string) (RunReport, error) {
	rep := RunReport{Landed: []Landed{}, Failed: []Failure{}, Warnings: []string{}}
	lk, err := d.o.Repo.Acquire(ctx, "dispatch-pass", gitops.LockOptions{Timeout: 3 * time.Second, TTL: time.Hour, Purpose: "dispatch run"})
	if err != nil {
		return rep, fmt.Errorf("another dispatch pass is running: %w", err)
	}
	defer lk.Release(context.WithoutCancel(ctx))

	pend, err := d.loadPending()
	if err != nil {
		return rep, err
	}
	plan, err := d.Plan(ctx, only...)
	if err != nil {
		return rep, err
	}
	rep.Warnings = append(rep.Warnings, plan.Warnings...)
	if plan.Jobs == 0 && len(pend) == 0 {
		rep.Status, rep.Reason = "nothing", "nothing to dispatch: every ready card is drafted and every draft reviewed"
		return rep, nil
	}

	files := map[string][]byte{}
	packsRead := map[string]string{} // pack path → sha the artifacts cite
	for i := range plan.Cards {
		cp := &plan.Cards[i]
		if len(cp.Jobs) == 0 || !cp.Freeze {
			continue
		}
		pk, err := d.freeze(plan.snap, cp.Card, cp.contract)
		if err != nil {
			rep.Warnings = append(rep.Warnings, err.Error()+"; the card is skipped")
			cp.Jobs = nil
			continue
		}
		cp.pack = &pk
		files[pk.Path], files[pk.ShaPath] = pk.Data, []byte(ShaLine(pk.SHA, pk.Path))
		rep.Landed = append(rep.Landed, Landed{Path: pk.Path, Kind: "pack", Card: cp.Card.Path, PackSHA: pk.SHA})
	}

	// Fills first, then reviews: a review of a fresh draft reads what the
	// fill produced; a failed fill takes its reviews with it.
	sem := make(chan struct{}, max(d.o.Routing.Concurrency(), 1))
	var fills, reviews []*outcome
	cards := map[string]*CardPlan{}
	for i := range plan.Cards {
		cp := &plan.Cards[i]
		cards[cp.Card.Path] = cp
		for _, j := range cp.Jobs {
			o := &outcome{job: j}
			if j.Kind == JobFill {
				fills = append(fills, o)
			} else {
				reviews = append(reviews, o)
			}
		}
	}
	d.runAll(ctx, sem, fills, func(o *outcome) (string, error) { return "", nil }, cards)
	filled := map[string]*outcome{}
	for _, o := range fills {
		filled[o.job.Target] = o
	}
	existing := plan.snap
	pendFiles := pend.files()
	d.runAll(ctx, sem, reviews, func(o *outcome) (string, error) {
		if o.job.AfterFill {
			f := filled[o.job.Draft]
			if f == nil || f.err != nil {
				return "", errSkipReview
			}
			return f.body, nil
		}
		if data, ok := pendFiles[o.job.Draft]; ok {
			return artifactBody(string(data)), nil
		}
		if !existing.Drafts[o.job.Draft] {
			return "", fmt.Errorf("draft %s vanished", o.job.Draft)
		}
		data, ok, err := readFile(d.o.Repo, o.job.Draft)
		if err != nil || !ok {
			return "", fmt.Errorf("read draft %s: %v", o.job.Draft, err)
		}
		return artifactBody(string(data)), nil
	}, cards)

	for _, o := range append(fills, reviews...) {
		switch {
		case errors.Is(o.err, errSkipReview):
		case o.err != nil:
			rep.Failed = append(rep.Failed, Failure{Job: o.job, Error: o.err.Error()})
		default:
			files[o.job.Target] = o.data
			packsRead[cards[o.job.Card].pack.Path] = cards[o.job.Card].pack.SHA
			rep.Landed = append(rep.Landed, o.landed)
		}
	}
	for f, data := range pendFiles {
		if _, mine := files[f]; !mine {
			files[f] = data
		}
	}
	for _, p := range pend {
		for pk, sha := range p.Packs {
			packsRead[pk] = sha
		}
		rep.Landed = append(rep.Landed, p.Landed...)
	}
	for _, l := range rep.Landed {
		if l.Kind == "review" {
			rep.Reviews++
		}
	}
	agentRuns := 0
	for _, l := range rep.Landed {
		if l.Kind != "pack" {
			agentRuns++
		}
	}
	if agentRuns == 0 {
		rep.Landed = []Landed{}
		rep.Reviews = 0
		rep.Status, rep.Reason = "failed", fmt.Sprintf("every agent run failed (%d); nothing landed", len(rep.Failed))
		return rep, nil
	}
	entry := d.ledger(rep, len(pend))
	res, skipped, err := d.land(ctx, files, packsRead, entry, rep)
	rep.Warnings = append(rep.Warnings, skipped...)
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		mine := slices.Clone(rep.Landed)
		packs := maps.Clone(packsRead)
		strFiles := map[string]string{}
		for f, data := range files {
			strFiles[f] = string(data)
		}
		id, serr := d.savePending(ctx, pendingPass{Reason: de.Reason, Files: strFiles, Packs: packs, Landed: mine})
		if serr != nil {
			return rep, fmt.Errorf("%s, and keeping the outputs failed: %w", de.Error(), serr)
		}
		d.removePending(pend) // their files are in the new record
		rep.Status, rep.Reason, rep.QueueID = "queued", de.Reason, id
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	d.removePending(pend)
	if res.SHA == "" {
		rep.Status, rep.Reason = "nothing", "every output already exists; nothing landed"
		rep.Landed = []Landed{}
		return rep, nil
	}
	rep.Status, rep.Commit = "committed", &res
	rep.Reason = passSummary(rep.Landed)
	return rep, nil
}

var errSkipReview = errors.New("the draft's fill failed")

// runAll runs jobs concurrently under the concurrency cap. input supplies
// a review's draft body (errSkipReview skips the job quietly).
func (d *Dispatcher) runAll(ctx context.Context, sem chan struct{}, jobs []*outcome, input func(*outcome) (string, error), cards map[string]*CardPlan) {
	var wg sync.WaitGroup
	for _, o := range jobs {
		draft, err := input(o)
		if err != nil {
			o.err = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				o.err = context.Cause(ctx)
				return
			}
			defer func() { <-sem }()
			d.runJob(ctx, o, cards[o.job.Card], draft)
		}()
	}
	wg.Wait()
}

// runJob renders the job's skill, runs its route and builds the artifact.
func (d *Dispatcher) runJob(ctx context.Context, o *outcome, cp *CardPlan, draft string) {
	j := o.job
	if cp == nil || cp.pack == nil {
		o.err = fmt.Errorf("%s has no frozen pack", j.Card)
		return
	}
	pk := cp.pack
	sk, err := d.lib.Get(j.Skill)
	if err != nil {
		o.err = err
		return
	}
	vars := map[string]string{
		"card_path": cp.Card.Path, "card_title": cp.Card.Title, "card_kind": cp.Card.Kind, "contract_path": cp.Contract,
		"pack_path": pk.Path, "pack_sha": pk.SHA, "pack": strings.TrimRight(string(pk.Data), "\n"),
		"output_target": j.Target, "variant": "", "variant_note": "", "template_set": cp.set,
		"lane": j.Lane, "draft_path": j.Draft, "draft": strings.TrimSpace(draft),
	}
	if j.Variant > 0 {
		vars["variant"] = fmt.Sprint(j.Variant)
		if j.Kind == JobFill {
			vars["variant_note"] = fmt.Sprintf(" This is variant %d of %d: an independent take on the same pack; you do not see the others, and the writer picks.", j.Variant, j.Variants)
		}
	}
	prompt, err := sk.Render(vars)
	if err != nil {
		o.err = err
		return
	}
	r, err := d.runner(j.Route)
	if err != nil {
		o.err = err
		return
	}
	// Progress only for runs that take a while (SPEC §3: work over ~1 s).
	start := time.Now()
	var shown atomic.Bool
	slow := time.AfterFunc(time.Second, func() {
		shown.Store(true)
		d.progress("dispatch: %s %s → %s (%s)…", j.Kind, j.Skill, j.Target, j.Route.Describe())
	})
	out, u, err := generate(ctx, r, prompt, Limits{Timeout: j.Route.Timeout, MaxOutput: j.Route.MaxOutput})
	slow.Stop()
	dur := time.Since(start)
	if err != nil {
		o.err = fmt.Errorf("%s (%s): %w", j.Skill, j.Route.Runner, err)
		return
	}
	if shown.Load() {
		d.progress("dispatch: %s %s done in %s", j.Kind, j.Target, dur.Round(time.Millisecond))
	}
	model := firstNonEmpty(u.Model, j.Route.Model, "default")
	l := Landed{Path: j.Target, Kind: "draft", Card: j.Card, Variant: j.Variant, Skill: j.Skill, Agent: j.Route.Runner,
		Model: model, PackSHA: pk.SHA, DurationMS: dur.Milliseconds(), Usage: u}
	title := cp.Card.Title
	if j.Variant > 0 {
		title = fmt.Sprintf("%s (v%d)", title, j.Variant)
	}
	fm := artifactFM{Title: title, Type: "draft", Kind: cp.Card.Kind, Card: cp.Card.Path, Variant: j.Variant,
		Links: []string{wikiLink(cp.Card.Path), wikiLink(pk.Path)}, Pack: pk.Path, PackSHA: pk.SHA,
		Agent: j.Route.Runner, Model: model, Skill: j.Skill, Generated: notes.FormatTime(d.now())}
	body := CleanBody(out)
	if j.Kind == JobReview {
		var verdict string
		verdict, body = ParseVerdict(body)
		body = CleanBody(body)
		l.Kind, l.Lane, l.Draft, l.Verdict = "review", j.Lane, j.Draft, verdict
		fm.Title = fmt.Sprintf("%s review: %s", j.Lane, title)
		fm.Type, fm.Lane, fm.Verdict, fm.Draft = "review", j.Lane, verdict, j.Draft
		fm.Links = []string{wikiLink(j.Draft), wikiLink(cp.Card.Path), wikiLink(pk.Path)}
	}
	o.body = d.redact(body)
	o.data, err = renderArtifact(fm, o.body)
	if err != nil {
		o.err = fmt.Errorf("render %s: %w", j.Target, err)
		return
	}
	o.landed = l
}

// freeze builds a card's pack from the work tree.
func (d *Dispatcher) freeze(s *Snapshot, card Card, ct *Contract) (Pack, error) {
	srcs, err := packSources(s, card, ct)
	if err != nil {
		return Pack{}, err
	}
	return buildPack(card, d.lay.PackPath(card.Path), srcs, func(rel string) ([]byte, error) {
		data, ok, err := readFile(d.o.Repo, rel)
		if err == nil && !ok {
			err = errors.New("it does not exist")
		}
		return data, err
	})
}

// land commits the pass: new artifacts only (a path that exists at HEAD by
// now is skipped, never overwritten), frozen packs, and the ledger entry,
// under the dispatch and journal locks. Every pack an artifact cites is
// checked under the lock to still be the bytes its pack_sha names.
func (d *Dispatcher) land(ctx context.Context, files map[string][]byte, packsRead map[string]string, entry notes.Entry, rep RunReport) (gitops.CommitResult, []string, error) {
	cfg := d.o.Config
	written := map[string]bool{} // packs and sidecars this landing writes
	for f := range files {
		if under(f, d.lay.Packs) {
			written[f] = true
		}
	}
	var paths []string
	for f := range files {
		paths = append(paths, f)
	}
	for pk := range packsRead {
		if !written[pk] {
			paths = append(paths, pk)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var skipped []string
	landedFiles := 0
	req := gitops.CommitRequest{
		Paths:       paths,
		Locks:       []string{"dispatch"},
		LockOptions: gitops.LockOptions{Timeout: cfg.LockTimeout, Purpose: "dispatch run"},
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			out := map[string][]byte{}
			skipped, landedFiles = skipped[:0], 0
			for pk, sha := range packsRead {
				if written[pk] {
					if data := files[pk]; Sha256Hex(data) != sha {
						return nil, fmt.Errorf("scribe bug: pack %s frozen at %s but cited as %s", pk, Sha256Hex(data), sha)
					}
					continue
				}
				if got, ok := cur[pk]; !ok || Sha256Hex(got) != sha {
					return nil, fmt.Errorf("pack %s changed (or is not committed) since the agents read it; nothing landed — commit or re-freeze it and run again", pk)
				}
			}
			for f, data := range files {
				if old, exists := cur[f]; exists {
					if written[f] && bytes.Equal(old, data) {
						continue
					}
					if written[f] {
						return nil, fmt.Errorf("pack %s was frozen by someone else during this pass; run again", f)
					}
					skipped = append(skipped, fmt.Sprintf("%s already exists (landed meanwhile); left as it is", f))
					continue
				}
				out[f] = data
				if !written[f] {
					landedFiles++
				}
			}
			if landedFiles == 0 {
				return map[string][]byte{}, nil
			}
			return out, nil
		},
		Message: func(changed []string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "progress: dispatch %s\n\n", passSummary(rep.Landed))
			for _, l := range rep.Landed {
				switch l.Kind {
				case "draft":
					fmt.Fprintf(&b, "- draft %s (%s %s)\n", l.Path, l.Agent, l.Model)
				case "review":
					fmt.Fprintf(&b, "- review %s: %s (%s %s)\n", l.Path, l.Verdict, l.Agent, l.Model)
				case "pack":
					fmt.Fprintf(&b, "- pack %s sha256 %s\n", l.Path, l.PackSHA[:12])
				}
			}
			fmt.Fprintf(&b, "\n%s: dispatch\n", gitops.TrailerMode)
			return b.String()
		},
	}
	res, err := d.o.Repo.CommitPaths(ctx, req)
	slices.Sort(skipped)
	if err != nil || res.SHA == "" {
		return res, skipped, err
	}
	// The ledger line is scribe's own record: the vault's journal, not the
	// writer's branch (SPEC section 7, Landing).
	v := &vault.Vault{Repo: d.o.Repo, Config: cfg}
	if _, jerr := v.AppendEntry(ctx, entry, "dispatch "+passSummary(rep.Landed), "dispatch"); jerr != nil {
		res.Warnings = append(res.Warnings, "the pass landed but its journal entry could not be written: "+jerr.Error())
	}
	return res, skipped, err
}

// passSummary is "1 fill, 2 reviews" (plus packs frozen).
func passSummary(ls []Landed) string {
	var fills, revs, packs int
	for _, l := range ls {
		switch l.Kind {
		case "draft":
			fills++
		case "review":
			revs++
		case "pack":
			packs++
		}
	}
	parts := []string{plural(fills, "fill"), plural(revs, "review")}
	if packs > 0 {
		parts = append(parts, plural(packs, "pack")+" frozen")
	}
	return strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// ledger is the pass's journal entry: what ran, on which backend, how long
// and (when reported) tokens and cost; failures in full.
func (d *Dispatcher) ledger(rep RunReport, deferred int) notes.Entry {
	now := d.now()
	b := make([]byte, 4)
	rand.Read(b)
	e := notes.Entry{ID: now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b), Time: now,
		Summary: "dispatch " + passSummary(rep.Landed), Result: notes.ResultShipped, Modes: "dispatch"}
	if len(rep.Failed) > 0 {
		e.Result = notes.ResultPartial
	}
	var runs []string
	var total time.Duration
	var tokens int
	var cost float64
	var drafts, reviews int
	for _, l := range rep.Landed {
		switch l.Kind {
		case "pack":
			continue
		case "draft":
			drafts++
		case "review":
			reviews++
		}
		s := fmt.Sprintf("%s %s: %s %s %dms", l.Skill, l.Path, l.Agent, l.Model, l.DurationMS)
		if t := l.Usage.total(); t > 0 {
			s += fmt.Sprintf(" %d tokens", t)
			tokens += t
		}
		if l.Usage.CostUSD > 0 {
			s += fmt.Sprintf(" $%.4f", l.Usage.CostUSD)
			cost += l.Usage.CostUSD
		}
		if l.Verdict != "" {
			s += " verdict " + l.Verdict
		}
		total += time.Duration(l.DurationMS) * time.Millisecond
		runs = append(runs, s)
	}
	for _, f := range rep.Failed {
		runs = append(runs, fmt.Sprintf("FAILED %s %s: %s", f.Job.Skill, f.Job.Target, snip(f.Error, 200)))
	}
	sum := fmt.Sprintf("ledger: %d run(s), %s agent time", len(runs), total.Round(time.Millisecond))
	if tokens > 0 {
		sum += fmt.Sprintf(", %d tokens", tokens)
	}
	if cost > 0 {
		sum += fmt.Sprintf(", $%.4f", cost)
	}
	if deferred > 0 {
		sum += fmt.Sprintf(", %d deferred pass(es) landed", deferred)
	}
	e.Notable = d.redact(sum + "; " + strings.Join(runs, "; "))
	e.Scope = fmt.Sprintf("%s/, %s/ (%s, %s)", d.lay.Drafts, d.lay.Reviews, plural(drafts, "draft"), plural(reviews, "review"))
	return e
}

func (u Usage) total() int {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.InputTokens + u.OutputTokens
}
