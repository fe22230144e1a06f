package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/gitops"
)

func yamlMarshal(v any) (string, error) {
	data, err := yaml.Marshal(v)
	return string(data), err
}

// KindMemory is the queue kind of a confirmed memory write (a rule, a
// trap, gate decisions) that could not be made: it waits in the one queue
// of deferred writes (gitops.Repo.Enqueue), where status and check see it.
const KindMemory = "memory"

// pendingOp is a confirmed write that could not be made: the person's yes
// is kept in the queue under the git dir and the write retried at the next
// run.
type pendingOp struct {
	Kind      string     `json:"kind"` // gate | rule | trap
	Created   time.Time  `json:"created"`
	Reason    string     `json:"reason,omitempty"`
	Decisions []Decision `json:"decisions,omitempty"`
	Rule      string     `json:"rule,omitempty"`
	Trap      *Trap      `json:"trap,omitempty"`
	// Confirmed is how the person said yes (the Scribe-Confirmed value);
	// empty in records written before it was kept, meaning "yes".
	Confirmed string `json:"confirmed,omitempty"`
	// Branch is the branch the person confirmed it on: it lands only there.
	Branch string `json:"branch,omitempty"`
	item   gitops.QueueItem
}

func (s *Store) savePending(op pendingOp) error {
	if op.Created.IsZero() {
		op.Created = s.now()
	}
	if op.Confirmed == "" {
		op.Confirmed = s.confirmedBy()
	}
	if op.Branch == "" {
		if head, err := s.Repo.Head(context.Background()); err == nil {
			op.Branch = head.Ref
		}
	}
	_, err := s.Repo.Enqueue(KindMemory, op.Reason, op)
	return err
}

func (s *Store) pendingOps() ([]pendingOp, []string) {
	warns := s.importLegacyPending()
	items, err := s.Repo.Queued()
	if err != nil {
		warns = append(warns, err.Error())
	}
	var out []pendingOp
	for _, it := range items {
		if it.Kind != KindMemory {
			continue
		}
		var op pendingOp
		if err := json.Unmarshal(it.Payload, &op); err != nil || op.Kind == "" {
			warns = append(warns, fmt.Sprintf("pending memory write %s is unreadable and was left in place", it.ID))
			continue
		}
		op.item = it
		out = append(out, op)
	}
	return out, warns
}

// importLegacyPending moves pending writes an earlier version kept in a
// directory of its own (memory/pending/*.yaml) into the one queue.
func (s *Store) importLegacyPending() []string {
	dir := s.pendingDir()
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	var files []string
	ops, warns := readYAMLDir(dir, "pending memory write", func(op *pendingOp, path string) error {
		if op.Kind == "" {
			return fmt.Errorf("no kind")
		}
		files = append(files, path)
		return nil
	})
	for i, op := range ops {
		if err := s.savePending(op); err != nil {
			warns = append(warns, err.Error())
			return warns
		}
		os.Remove(files[i])
	}
	os.Remove(dir)
	return warns
}

// PendingCount is how many confirmed writes wait to be retried.
func (s *Store) PendingCount() int {
	ops, _ := s.pendingOps()
	return len(ops)
}

// PendingReport says what LandPending did.
type PendingReport struct {
	Landed  int                    `json:"landed"`
	Waiting int                    `json:"waiting"`
	Reason  string                 `json:"reason,omitempty"`
	Commits []*gitops.CommitResult `json:"commits,omitempty"`
	Warns   []string               `json:"warnings,omitempty"`
}

// LandPending retries the confirmed writes that could not be made before,
// oldest first; each lands as its own commit. A write that still cannot be
// made stays pending (and so do the ones after it, keeping their order).
func (s *Store) LandPending(ctx context.Context) PendingReport {
	ops, warns := s.pendingOps()
	rep := PendingReport{Warns: warns}
	defer func() { s.branch = "" }()
	for i, op := range ops {
		var res *gitops.CommitResult
		var err error
		s.branch = op.Branch
		via := op.Confirmed
		if via == "" {
			via = ConfirmedYes
		}
		switch op.Kind {
		case "gate":
			var out commitOutcome
			out, err = s.commitDecisions(ctx, op.Decisions, via)
			res = out.commit
		case "rule":
			var r gitops.CommitResult
			r, err = s.commitRule(ctx, op.Rule, via)
			if r.SHA != "" {
				res = &r
			}
		case "trap":
			if op.Trap == nil {
				err = fmt.Errorf("pending trap write without a trap")
				break
			}
			var tr TrapResult
			tr, err = s.commitTrap(ctx, *op.Trap, via)
			res = tr.Commit
		default:
			err = fmt.Errorf("unknown pending write kind %q", op.Kind)
		}
		if err != nil {
			rep.Waiting = len(ops) - i
			rep.Reason = pendingReason(err)
			return rep
		}
		if res != nil {
			rep.Commits = append(rep.Commits, res)
		}
		if err := s.Repo.Dequeue([]gitops.QueueItem{op.item}); err != nil {
			rep.Warns = append(rep.Warns, err.Error())
		}
		rep.Landed++
	}
	return rep
}

// ---- project rules

// RuleResult is what adding a project rule did.
type RuleResult struct {
	Rule   string               `json:"rule"`
	Status string               `json:"status"` // added | exists | queued
	Reason string               `json:"reason,omitempty"`
	Path   string               `json:"path"`
	Commit *gitops.CommitResult `json:"commit,omitempty"`
}

// AddRule writes a rule a person confirmed under CLAUDE.md's "## Project
// Rules" and commits "progress: project rule added" with Scribe-Confirmed:
// yes. A commit that cannot be made now becomes a pending write.
func (s *Store) AddRule(ctx context.Context, rule string) (RuleResult, error) {
	rule = CleanRule(s.redact(rule))
	res := RuleResult{Rule: rule, Path: s.Config.Paths.ClaudeMD}
	if rule == "" {
		return res, fmt.Errorf("the rule is empty")
	}
	c, err := s.commitRule(ctx, rule, s.confirmedBy())
	if err != nil {
		if perr := s.savePending(pendingOp{Kind: "rule", Rule: rule, Reason: err.Error()}); perr != nil {
			return res, fmt.Errorf("%w; and saving it as a pending write failed: %v", err, perr)
		}
		res.Status, res.Reason = "queued", pendingReason(err)
		return res, nil
	}
	if c.SHA == "" {
		res.Status, res.Reason = "exists", s.Config.Paths.ClaudeMD+" already has this rule"
		return res, nil
	}
	res.Status, res.Commit = "added", &c
	return res, nil
}

func (s *Store) commitRule(ctx context.Context, rule, via string) (gitops.CommitResult, error) {
	p := s.Config.Paths.ClaudeMD
	return s.commitPaths(ctx, gitops.CommitRequest{
		Paths:       []string{p},
		Locks:       []string{lockRules},
		LockOptions: s.lockOptions("project rule"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			text := string(cur[p])
			if strings.TrimSpace(text) == "" {
				text = NewInstructions(p)
			}
			out, changed := AddRule(text, rule)
			if !changed {
				return nil, nil
			}
			return map[string][]byte{p: []byte(out)}, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: project rule added\n\n- %s\n\n%s: rule\n%s: %s\n", oneLine(rule), gitops.TrailerMode, TrailerConfirmed, via)
		},
	})
}

// ---- traps

// TrapResult is what recording a trap did.
type TrapResult struct {
	Status string               `json:"status"` // recorded | exists | queued
	Reason string               `json:"reason,omitempty"`
	Scope  string               `json:"scope"`
	Path   string               `json:"path"`
	Commit *gitops.CommitResult `json:"commit,omitempty"`
}

// RecordTrap writes a trap a person confirmed: a project trap as
// trap_dir/<slug>.md in a commit, a universal one as
// <universal dir>/trap_<slug>.md (outside the repository, not committed).
// An existing record is never overwritten: the same record is left alone,
// a different one gets a "-<hash>" suffix.
func (s *Store) RecordTrap(ctx context.Context, t Trap) (TrapResult, error) {
	t.Title, t.Pattern, t.Lesson, t.AppliesTo = s.redact(t.Title), s.redact(t.Pattern), s.redact(t.Lesson), s.redact(t.AppliesTo)
	if t.Scope == ScopeUniversal {
		return s.writeUniversalTrap(t)
	}
	res, err := s.commitTrap(ctx, t, s.confirmedBy())
	if err != nil {
		if perr := s.savePending(pendingOp{Kind: "trap", Trap: &t, Reason: err.Error()}); perr != nil {
			return res, fmt.Errorf("%w; and saving it as a pending write failed: %v", err, perr)
		}
		res.Status, res.Reason = "queued", pendingReason(err)
		return res, nil
	}
	return res, nil
}

func (s *Store) commitTrap(ctx context.Context, t Trap, via string) (TrapResult, error) {
	res := TrapResult{Scope: ScopeProject}
	text := []byte(t.Render())
	dir := strings.TrimSuffix(s.Config.Paths.TrapDir, "/")
	head, err := s.Repo.Head(ctx)
	if err != nil {
		return res, err
	}
	var target string
	for _, suffix := range []string{"", hashID(string(text))[:8]} {
		p := path.Join(dir, t.FileName(suffix))
		if _, reserved := s.Config.Paths.Reserved(p); reserved {
			// A trap titled "Bridge note" must never be written over the
			// bridge note (nor take a name people read as a vault file).
			p = path.Join(dir, "trap-"+t.FileName(suffix))
		}
		abs, err := s.Repo.Abs(p)
		if err != nil {
			return res, err
		}
		at, err := s.Repo.ReadFiles(ctx, head.Commit, []string{p})
		if err != nil {
			return res, err
		}
		if old, ok := at[p]; ok {
			if sameTrap(old, text) {
				res.Status, res.Path, res.Reason = "exists", p, "the same trap is recorded already"
				return res, nil
			}
			continue
		}
		if _, err := os.Lstat(abs); err == nil {
			continue // someone's uncommitted file: never overwritten
		}
		target = p
		break
	}
	if target == "" {
		return res, fmt.Errorf("no free file name for trap %q in %s", t.Title, dir)
	}
	res.Path = target
	c, err := s.commitPaths(ctx, gitops.CommitRequest{
		Paths:       []string{target},
		Locks:       []string{lockTraps},
		LockOptions: s.lockOptions("trap record"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			if old, ok := cur[target]; ok && !bytes.Equal(old, text) {
				return nil, fmt.Errorf("%s appeared meanwhile; scribe never overwrites a trap record: run the command again", target)
			}
			return map[string][]byte{target: text}, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: trap recorded: %s\n\n%s: trap\n%s: %s\n", capRunes(oneLine(t.Title), 56), gitops.TrailerMode, TrailerConfirmed, via)
		},
	})
	if err != nil {
		return res, err
	}
	res.Status = "recorded"
	if c.SHA == "" {
		res.Status, res.Reason = "exists", "the same trap is recorded already"
	} else {
		res.Commit = &c
	}
	return res, nil
}

// sameTrap reports whether a record on disk is the trap text renders: the
// same bytes, or the same record written in another layout (by a scribe
// that did not wrap its lines, or wrapped by hand).
func sameTrap(old, text []byte) bool {
	if bytes.Equal(old, text) {
		return true
	}
	a, aok := ParseTrap(string(old))
	b, bok := ParseTrap(string(text))
	return aok && bok && a == b
}

func (s *Store) writeUniversalTrap(t Trap) (TrapResult, error) {
	res := TrapResult{Scope: ScopeUniversal}
	if s.UniversalDir == "" || !filepath.IsAbs(s.UniversalDir) {
		return res, fmt.Errorf("memory.universal_dir %q is not an absolute directory; set it in .scribe.yaml or your user config", s.UniversalDir)
	}
	text := []byte(t.Render())
	for _, suffix := range []string{"", hashID(string(text))[:8]} {
		name := t.FileName(suffix)
		if err := gitops.CheckRelPath(name); err != nil || strings.Contains(name, "/") {
			return res, fmt.Errorf("unsafe trap file name %q", name)
		}
		p := filepath.Join(s.UniversalDir, name)
		fi, err := os.Lstat(p)
		if err == nil {
			if fi.Mode()&os.ModeSymlink != 0 {
				continue // never write through a symlink
			}
			if old, rerr := os.ReadFile(p); rerr == nil && sameTrap(old, text) {
				res.Status, res.Path, res.Reason = "exists", p, "the same trap is recorded already"
				return res, nil
			}
			continue
		}
		if err := gitops.WriteFileAtomic(p, text); err != nil {
			return res, fmt.Errorf("record universal trap: %w", err)
		}
		res.Status, res.Path = "recorded", p
		return res, nil
	}
	return res, fmt.Errorf("no free file name for trap %q in %s", t.Title, s.UniversalDir)
}
