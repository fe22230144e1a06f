package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Pipeline is the compound pipeline's pluggable half: the analyzers (run in
// parallel) and the judge that scores candidates (nil: every score 0.0).
type Pipeline struct {
	Analyzers []Analyzer
	Judge     Judge
}

// Drop is a candidate the validator did not queue, and why.
type Drop struct {
	ID     string `json:"candidate_id"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// CollectResult is what collect did.
type CollectResult struct {
	SessionID string      `json:"session_id"`
	Trigger   string      `json:"trigger_source"`
	Fired     bool        `json:"fired"`
	Why       string      `json:"why,omitempty"`
	Snapshot  string      `json:"turns_path,omitempty"`
	Turns     int         `json:"turns"`
	Raw       int         `json:"raw_candidates"`
	Queued    []Candidate `json:"queued"`
	Dropped   []Drop      `json:"dropped,omitempty"`
	// Failed names the analyzers that failed; Disabled those skipped.
	Failed   []string `json:"failed_analyzers,omitempty"`
	Disabled []string `json:"disabled_detectors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Collect runs the pipeline on a snapshot and queues what survives the
// validator. It never prompts and never writes a vault file: candidates
// wait under the git dir for a person at the gate.
func (s *Store) Collect(ctx context.Context, snap Snapshot, p Pipeline) (CollectResult, error) {
	res := CollectResult{SessionID: snap.SessionID, Trigger: snap.Trigger, Turns: len(snap.Turns), Queued: []Candidate{}}
	res.Fired, res.Why = Fired(snap, snap.Trigger, s.Keywords())
	if !res.Fired {
		return res, nil
	}
	var run []Analyzer
	for _, a := range p.Analyzers {
		if until, off := s.DisabledUntil(a.Detector()); off {
			res.Disabled = append(res.Disabled, a.Detector())
			res.Warnings = append(res.Warnings, fmt.Sprintf("detector %s is disabled until %s after repeated rejections (git scribe compound reactivate %s)",
				a.Detector(), until.Format("2006-01-02 15:04"), a.Detector()))
			continue
		}
		run = append(run, a)
	}
	raw, failed := runAnalyzers(ctx, run, snap)
	for _, f := range failed {
		res.Failed = append(res.Failed, f.detector)
		res.Warnings = append(res.Warnings, fmt.Sprintf("analyzer %s failed: %v", f.detector, f.err))
	}
	switch {
	case len(failed) == 1:
		res.Warnings = append(res.Warnings, "one analyzer failed: merged the others' candidates")
	case len(failed) >= 2:
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d analyzers failed: nothing queued from this intake", len(failed)))
		return res, nil
	}
	res.Raw = len(raw)
	now := s.now()
	for i := range raw {
		raw[i].Created = now
		if !candidateIDRE().MatchString(raw[i].ID) {
			raw[i].ID = CandidateID(raw[i].Type, raw[i].Content) // ids are content hashes, whatever an analyzer says
		}
		if raw[i].SessionID == "" {
			raw[i].SessionID = snap.SessionID
		}
		if raw[i].Trigger == "" {
			raw[i].Trigger = snap.Trigger
		}
	}
	kept, drops, warns := s.validate(ctx, raw, p.Judge)
	res.Dropped, res.Warnings = drops, append(res.Warnings, warns...)
	for _, c := range kept {
		added, err := s.enqueue(c)
		if err != nil {
			return res, err
		}
		if added {
			res.Queued = append(res.Queued, c)
		} else {
			res.Dropped = append(res.Dropped, Drop{ID: c.ID, Name: c.Name, Reason: "already queued"})
		}
	}
	return res, nil
}

type analyzerFailure struct {
	detector string
	err      error
}

// runAnalyzers runs every analyzer concurrently (a panic counts as a
// failure) and returns their candidates in analyzer order.
func runAnalyzers(ctx context.Context, as []Analyzer, snap Snapshot) ([]Candidate, []analyzerFailure) {
	results := make([][]Candidate, len(as))
	errs := make([]error, len(as))
	var wg sync.WaitGroup
	for i, a := range as {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = fmt.Errorf("panic: %v", r)
				}
			}()
			// Each analyzer gets its own copy of the turns (fresh context).
			own := snap
			own.Turns = append([]Turn(nil), snap.Turns...)
			cs, err := a.Analyze(ctx, own)
			if err == nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			for j := range cs {
				if cs[j].Detector == "" {
					cs[j].Detector = a.Detector()
				}
			}
			results[i], errs[i] = cs, err
		}()
	}
	wg.Wait()
	var out []Candidate
	var failed []analyzerFailure
	for i := range as {
		if errs[i] != nil {
			failed = append(failed, analyzerFailure{as[i].Detector(), errs[i]})
			continue
		}
		out = append(out, results[i]...)
	}
	return out, failed
}

// detectorRank orders which detector's candidate wins a merge.
var detectorRank = map[string]int{DetectorCorrection: 0, DetectorPreference: 1, DetectorPattern: 2, DetectorTacit: 3}

// validate is the validator: it drops invalid candidates, ones already
// rejected (same id, or a duplicate of a rejected one), already promoted
// (same id or a duplicate of a memory), or already queued; merges
// duplicates within the batch; assigns each survivor its overlap band
// against existing memory and its evaluator score.
func (s *Store) validate(ctx context.Context, raw []Candidate, judge Judge) ([]Candidate, []Drop, []string) {
	var drops []Drop
	var warns []string
	drop := func(c Candidate, why string) { drops = append(drops, Drop{ID: c.ID, Name: c.Name, Reason: why}) }

	memories, merr := s.Memories()
	if merr != nil {
		warns = append(warns, "existing memory unreadable, overlap marked unknown: "+merr.Error())
	}
	rejected, rerr := s.Rejected()
	if rerr != nil {
		warns = append(warns, "rejection history unreadable: "+rerr.Error())
	}
	queued, qwarn := s.Queue()
	warns = append(warns, qwarn...)
	for _, m := range append(append([]Existing{}, memories...), rejected...) {
		if m.Err != nil {
			warns = append(warns, fmt.Sprintf("%s: %v (left out of the overlap comparison)", m.Path, m.Err))
		}
	}

	// Within the batch: same id or a duplicate → merge into the best.
	sort.SliceStable(raw, func(i, j int) bool { return detectorRank[raw[i].Detector] < detectorRank[raw[j].Detector] })
	var batch []Candidate
	for _, c := range raw {
		if err := c.Validate(); err != nil {
			drop(c, "invalid: "+err.Error())
			continue
		}
		merged := false
		for i := range batch {
			if batch[i].ID == c.ID || Compare(batch[i].comparable(), c.comparable()).Score() >= DuplicateScore {
				batch[i].Occurrences = max(batch[i].Occurrences, c.Occurrences)
				if !strings.Contains(batch[i].Rationale, c.Detector) {
					batch[i].Rationale = strings.TrimSpace(batch[i].Rationale + "; also found by " + c.Detector)
				}
				drop(c, "merged into "+batch[i].ID+" (duplicate in this batch)")
				merged = true
				break
			}
		}
		if !merged {
			batch = append(batch, c)
		}
	}

	var kept []Candidate
	for _, c := range batch {
		if why := s.seenBefore(c, rejected, memories, queued); why != "" {
			drop(c, why)
			continue
		}
		c.OverlapBand, c.OverlapScore, c.OverlapWith = BandLow, 0, ""
		if merr != nil {
			c.OverlapBand = BandUnknown
		}
		for _, m := range memories {
			if m.Err != nil {
				continue
			}
			if sc := Compare(c.comparable(), m.comparable()).Score(); sc > c.OverlapScore {
				c.OverlapScore, c.OverlapWith = sc, m.Path
			}
		}
		if merr == nil {
			c.OverlapBand = Band(c.OverlapScore)
		}
		c.OverlapScore = round2(c.OverlapScore)
		c.EvaluatorScore = 0
		if judge != nil {
			sc, err := judge.Score(ctx, c)
			switch {
			case err != nil:
				warns = append(warns, fmt.Sprintf("judge failed on %s (score 0.0): %v", c.ID, err))
			case sc < 0 || sc > 1:
				warns = append(warns, fmt.Sprintf("judge scored %s %.2f, outside 0.0–1.0 (score 0.0)", c.ID, sc))
			default:
				c.EvaluatorScore = round2(sc)
			}
		}
		kept = append(kept, c)
	}
	return kept, drops, warns
}

// seenBefore says why a candidate must not be proposed again, or "".
func (s *Store) seenBefore(c Candidate, rejected, memories []Existing, queued []Candidate) string {
	cc := c.comparable()
	for _, r := range rejected {
		if r.Err != nil {
			continue
		}
		if r.Record.CandidateID == c.ID || Compare(cc, r.comparable()).Score() >= DuplicateScore {
			return "rejected before (" + r.Path + ")"
		}
	}
	for _, m := range memories {
		if m.Err != nil {
			continue
		}
		if m.Record.CandidateID == c.ID {
			return "already promoted (" + m.Path + ")"
		}
		if Compare(cc, m.comparable()).Score() >= DuplicateScore {
			return "duplicate of " + m.Path
		}
	}
	for _, q := range queued {
		if q.ID != c.ID && Compare(cc, q.comparable()).Score() >= DuplicateScore {
			return "duplicate of queued candidate " + q.ID
		}
	}
	return ""
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
