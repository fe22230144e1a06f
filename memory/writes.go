package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/gitops"
)

func yamlMarshal(v any) (string, error) {
	data, err := yaml.Marshal(v)
	return string(data), err
}

// pendingOp is a confirmed write that could not be made: the person's yes
// is kept under the git dir and the write retried at the next run.
type pendingOp struct {
	Kind      string     `yaml:"kind"` // gate | rule | trap
	Created   time.Time  `yaml:"created"`
	Reason    string     `yaml:"reason,omitempty"`
	Decisions []Decision `yaml:"decisions,omitempty"`
	Rule      string     `yaml:"rule,omitempty"`
	Trap      *Trap      `yaml:"trap,omitempty"`
	// Confirmed is how the person said yes (the Scribe-Confirmed value);
	// empty in records written before it was kept, meaning "yes".
	Confirmed string `yaml:"confirmed,omitempty"`
	file      string
}

func (s *Store) savePending(op pendingOp) error {
	if op.Created.IsZero() {
		op.Created = s.now()
	}
	if op.Confirmed == "" {
		op.Confirmed = s.confirmedBy()
	}
	id := fmt.Sprintf("%d-%s", op.Created.UnixNano(), op.Kind)
	return writeYAML(filepath.Join(s.pendingDir(), id+".yaml"), op)
}

func (s *Store) pendingOps() ([]pendingOp, []string) {
	out, warns := readYAMLDir(s.pendingDir(), "pending memory write", func(op *pendingOp, path string) error {
		if op.Kind == "" {
			return errors.New("no kind")
		}
		op.file = path
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].file < out[j].file })
	return out, warns
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
	for i, op := range ops {
		var res *gitops.CommitResult
		var err error
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
		if err := os.Remove(op.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
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
			out, changed := AddRule(string(cur[p]), rule)
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
		abs, err := s.Repo.Abs(p)
		if err != nil {
			return res, err
		}
		at, err := s.Repo.ReadFiles(ctx, head.Commit, []string{p})
		if err != nil {
			return res, err
		}
		if old, ok := at[p]; ok {
			if bytes.Equal(old, text) {
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
			if old, rerr := os.ReadFile(p); rerr == nil && bytes.Equal(old, text) {
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
