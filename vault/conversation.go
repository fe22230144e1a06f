package vault

import (
	"context"
	"fmt"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/transcript"
)

// extractFollowups finds the follow-ups conv announces, with the
// configured keywords and similarity, their text and quote redacted.
func (v *Vault) extractFollowups(conv []transcript.Turn) []followups.Candidate {
	f := v.Config.Followups
	kw := followups.Keywords{EN: f.KeywordsEN, KR: f.KeywordsKR}
	if len(kw.EN)+len(kw.KR) == 0 {
		kw = followups.DefaultKeywords()
	}
	cands := followups.ExtractFollowups(conv, kw, v.Similarity())
	for i := range cands {
		cands[i].Text = v.redact(cands[i].Text)
		cands[i].Quote = v.redact(cands[i].Quote)
	}
	return cands
}

// Similarity is the configured follow-up similarity threshold, the
// default where the configuration gives none in (0, 1].
func (v *Vault) Similarity() float64 {
	if s := v.Config.Followups.Similarity; s > 0 && s <= 1 {
		return s
	}
	return followups.DefaultSimilarity
}

// ExtractConversation reads the transcript at path (Claude Code JSONL,
// Codex JSONL or text; corrupt lines are skipped and counted), finds the
// follow-ups said in its user and assistant turns (sidechains, tool output
// and injected text left out) and checks each against every durable source
// in the work tree. Follow-up text is redacted before it is returned, so it
// can reach a vault file as is.
func (v *Vault) ExtractConversation(ctx context.Context, path string) (followups.Extraction, error) {
	ex := followups.Extraction{Transcript: path, Found: []followups.Candidate{}, Orphans: []followups.Candidate{}}
	t, err := transcript.ReadFile(path)
	if err != nil {
		return ex, err
	}
	ex.Format, ex.Stats = t.Format, t.Stats
	cands := v.extractFollowups(t.Conversation())
	srcs, _, err := v.FollowupSources(ctx, nil)
	if err != nil {
		return ex, fmt.Errorf("read follow-up sources: %w", err)
	}
	d := followups.Regenerate(srcs, v.mergeOptions(srcs))
	ex.Sources = srcs
	followups.MarkDurable(cands, d.Mentions, v.Similarity())
	// Orphans are numbered 1..n: the numbers a person answers with.
	def := v.DefaultProject(srcs)
	n := 0
	for i := range cands {
		if cands[i].Durable != nil {
			cands[i].N = 0
			continue
		}
		n++
		cands[i].N = n
		if cands[i].Project == "" {
			cands[i].Project = def
		}
		ex.Orphans = append(ex.Orphans, cands[i])
	}
	ex.Found = cands
	return ex, nil
}

// ConversationOutcome records what became of an extraction's orphans for the
// persistence audit: the routing report (nil when nothing was routed) and
// the orphans nobody decided about, with why.
func ConversationOutcome(ex followups.Extraction, routed *RouteReport, unrouted []followups.Candidate, why string) (*followups.ConversationAudit, []followups.LostFollowup) {
	ca := &followups.ConversationAudit{Transcript: ex.Transcript, Found: len(ex.Found), Orphans: len(ex.Orphans),
		Durable: len(ex.Found) - len(ex.Orphans), Corrupt: ex.Stats.Corrupt, Unrouted: len(unrouted)}
	lost := []followups.LostFollowup{}
	if routed != nil {
		ca.Routed, ca.Skipped = len(routed.Routed), len(routed.Skipped)
		for _, a := range routed.Skipped {
			lost = append(lost, followups.LostFollowup{Text: followups.Tagged(a.Project, a.Candidate.Text), Reason: "skipped", Detail: "a person chose Skip"})
		}
	}
	for _, c := range unrouted {
		lost = append(lost, followups.LostFollowup{Text: followups.Tagged(c.Project, c.Text), Reason: "unrouted", Detail: why})
	}
	return ca, lost
}
