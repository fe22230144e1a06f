package cmd

import (
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/vault"
)

// renderFollowupsFound lists a transcript's follow-ups: the orphans (unless
// the prompt lists them next), and where the others already are.
func renderFollowupsFound(ios *IOStreams, fr *vault.FollowupsReport, orphans bool) {
	out := ios.Out
	st := fr.Stats
	fmt.Fprintf(out, "%s %s (%s, %d turn%s", ios.Bold("transcript:"), fr.Transcript, fr.Format, st.Turns, plural(st.Turns, "", "s"))
	if st.Corrupt > 0 {
		fmt.Fprintf(out, ", %d corrupt line%s skipped", st.Corrupt, plural(st.Corrupt, "", "s"))
	}
	fmt.Fprintln(out, ")")
	fmt.Fprintf(out, "%s %d found, %d already in a durable source, %d orphan%s\n", ios.Bold("follow-ups:"),
		len(fr.Found), len(fr.Found)-len(fr.Orphans), len(fr.Orphans), plural(len(fr.Orphans), "", "s"))
	for _, o := range fr.Orphans {
		if orphans {
			fmt.Fprintf(out, "  %d. %s\n", o.N, followupLabel(o))
		}
	}
	for _, c := range fr.Found {
		if c.Durable != nil {
			fmt.Fprintf(out, "  %s %s — in %s:%d\n", ios.Dim("kept:"), c.Text, c.Durable.Path, c.Durable.Line)
		}
	}
}

// renderFollowups is `followups extract`'s human report (and wrap's, whose
// audit lists the unrouted instead: withUnrouted false).
func renderFollowups(ios *IOStreams, fr *vault.FollowupsReport, withUnrouted bool) {
	if !fr.Prompted {
		renderFollowupsFound(ios, fr, true)
	}
	renderRouting(ios, fr, withUnrouted)
}

// renderRouting says what routing did and what is still unrouted.
func renderRouting(ios *IOStreams, fr *vault.FollowupsReport, withUnrouted bool) {
	out := ios.Out
	if r := fr.Routing; r != nil {
		switch r.Status {
		case "committed":
			fmt.Fprintf(out, "%s %d follow-up%s in %s on %s\n", ios.Bold("routed:"), len(r.Routed), plural(len(r.Routed), "", "s"),
				r.Commit.SHA[:12], strings.TrimPrefix(r.Commit.Branch, "refs/heads/"))
			for _, a := range r.Routed {
				fmt.Fprintf(out, "  %s → %s\n", a.Candidate.Text, a.Path)
			}
		case "queued":
			fmt.Fprintf(out, "%s %s\n", ios.Bold("routing queued:"), r.Reason)
		}
		for _, a := range r.Skipped {
			fmt.Fprintf(out, "  skipped: %s\n", a.Candidate.Text)
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
		}
	}
	for _, u := range fr.UnknownRoutes {
		fmt.Fprintf(ios.ErrOut, "warning: the --route file names %q, which is no orphan of this transcript\n", u)
	}
	if n := len(fr.Unrouted); n > 0 && withUnrouted {
		fmt.Fprintf(out, "%s %d follow-up%s potentially lost (%s)\n", ios.Bold("unrouted:"), n, plural(n, "", "s"), fr.UnroutedWhy)
	}
}

// maxMergesShown caps the merges the human audit names.
const maxMergesShown = 10

// renderAudit prints the persistence audit: counts per source, the texts
// merged into near-duplicates, potentially lost follow-ups, untagged
// warnings.
func renderAudit(ios *IOStreams, a *followups.Audit) {
	if a == nil {
		return
	}
	out := ios.Out
	fmt.Fprintln(out, ios.Bold("persistence audit:"))
	if len(a.Sources) == 0 {
		fmt.Fprintln(out, "  sources: none yet (journal \"### Next\", todos.md / PROGRESS.md \"## Next Session\", actives)")
	} else {
		var parts []string
		for _, s := range a.Sources {
			p := fmt.Sprintf("%s %d open", s.Kind, s.Open)
			if s.Resolved > 0 {
				p += fmt.Sprintf(" · %d resolved", s.Resolved)
			}
			if s.Files > 1 {
				p += fmt.Sprintf(" (%d files)", s.Files)
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(out, "  sources: %s\n", strings.Join(parts, "; "))
	}
	fmt.Fprintf(out, "  dashboard: %d open follow-up%s, %d shown", a.Open, plural(a.Open, "", "s"), a.Shown)
	if a.BeyondCap > 0 {
		fmt.Fprintf(out, ", %d beyond the cap (still in their sources)", a.BeyondCap)
	}
	fmt.Fprintf(out, "; %d dropped as resolved, %d duplicate%s merged\n", a.Resolved, a.Merged, plural(a.Merged, "", "s"))
	// A merged text is on the dashboard only as a source of another's
	// line: each is named, so a merge is never silent.
	for i, m := range a.Merges {
		if i == maxMergesShown {
			fmt.Fprintf(out, "  … and %d more merged (--json lists every one)\n", len(a.Merges)-i)
			break
		}
		how := "merged:"
		if m.Resolved {
			how = "resolved by a near-duplicate:"
		}
		fmt.Fprintf(out, "  %s %q (%s:%d) into %q (%s:%d)\n", how, m.Text, m.Path, m.Line, m.Into, m.IntoPath, m.IntoLine)
	}
	if c := a.Conversation; c != nil {
		fmt.Fprintf(out, "  conversation: %d found, %d already durable, %d routed, %d skipped, %d unrouted\n",
			c.Found, c.Durable, c.Routed, c.Skipped, c.Unrouted)
	}
	for _, u := range a.Unread {
		fmt.Fprintf(out, "  not read: %s (%s); its follow-ups are missing from the dashboard, which says so\n", u.Path, u.Reason)
	}
	if n := len(a.PotentiallyLost); n > 0 {
		fmt.Fprintf(out, "  potentially lost: %d\n", n)
		why := ""
		for _, l := range a.PotentiallyLost {
			if r := l.Reason + ": " + l.Detail; r != why {
				why = r
				fmt.Fprintf(out, "    %s\n", why)
			}
			fmt.Fprintf(out, "    - %s\n", l.Text)
		}
	} else {
		fmt.Fprintln(out, "  potentially lost: none")
	}
	for _, u := range a.Untagged {
		fmt.Fprintf(out, "  untagged: %q at %s:%d — %s\n", u.Text, u.Path, u.Line, u.Message)
	}
	for _, w := range a.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
}
