package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
)

// Severity is how much a finding matters: an error fails the check, a
// warning and a note do not.
type Severity string

// Severities, most severe first.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Finding is one hygiene problem.
type Finding struct {
	// RuleID is the stable id of the rule that found it, e.g. "SCR001".
	RuleID   string   `json:"rule_id"`
	Severity Severity `json:"severity"`
	// File is the repo-relative, slash-separated path the finding is about;
	// empty when it concerns no file (a lock ref, the write queue).
	File string `json:"file,omitempty"`
	// Line is 1-based; 0 when the finding is about the file as a whole.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Fix says what to do about it.
	Fix string `json:"fix"`
	// Commit is the commit the finding names, for rules that check history.
	Commit string `json:"commit,omitempty"`
}

// Rule is one hygiene rule. Adding a rule is one file holding a type that
// implements Rule, plus its line in [Rules].
type Rule interface {
	// ID is the stable identifier, "SCR" and three digits.
	ID() string
	// Name is a short kebab-case name, e.g. "journal-append-only".
	Name() string
	// Describe is one sentence saying what the rule verifies.
	Describe() string
	// Severity is the most severe level the rule reports.
	Severity() Severity
	// Check runs the rule. An error means the rule could not run (git
	// failed, a file was unreadable); problems it finds are findings.
	Check(ctx context.Context, in *Input) ([]Finding, error)
}

// meta carries the descriptive half of a Rule; rule types embed it.
type meta struct {
	id, name, describe string
	severity           Severity
}

func (m meta) ID() string         { return m.id }
func (m meta) Name() string       { return m.name }
func (m meta) Describe() string   { return m.describe }
func (m meta) Severity() Severity { return m.severity }

// Input is what every rule reads: the repository, the effective
// configuration and the range of history to verify. It caches working-tree
// reads and is safe for concurrent use by rules.
type Input struct {
	Repo   *gitops.Repo
	Config config.Config
	// Head is the commit HEAD resolves to; empty on an unborn branch.
	Head string
	// Since, when set, limits history rules to commits after it
	// (Since..Head); empty means all of HEAD's history, or a --since left
	// to the walk and not asked for yet (RevRange, VaultSinceDate).
	Since string
	// Vault is refs/scribe/vault's tip: the journal, its archive and the
	// bridge notes are checked there. "" when the repository has no vault
	// ref (one from before it): they are then read from the branch.
	Vault string
	// VaultSince, with --since, is the committer date of Since: the vault's
	// history is verified from then on (the vault has no merge base with a
	// branch). Without --since the whole vault history is verified. Read
	// it through VaultSinceDate.
	VaultSince string

	mu    sync.Mutex
	files map[string]worktreeFile

	// scribePending, when NewInput started scribeCommits' log for the
	// rules it was made for, is that log; nil reads it on first use.
	scribePending *pending[[]patchCommit]
	scribeOnce    sync.Once
	scribeLog     []patchCommit
	scribeErr     error

	vaultOnce sync.Once
	vault     vaultTree
	vaultErr  error

	// started holds, by rule id, the rules NewInput started because they
	// read nothing --since decides (rangeFree).
	started map[string]*pending[[]Finding]

	// late, when NewInput left --since to the walk (lateSince), resolves
	// it on first need, setting Since and VaultSince; lateAsked says it
	// was called.
	late      func() error
	lateAsked atomic.Bool
	sinceText string // --since as typed, while late
}

// pending is a read running in the background.
type pending[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// goRead starts read in the background.
func goRead[T any](wg *sync.WaitGroup, read func() (T, error)) *pending[T] {
	p := &pending[T]{done: make(chan struct{})}
	wg.Go(func() {
		defer close(p.done)
		p.v, p.err = read()
	})
	return p
}

// wait returns the read's result once it is done.
func (p *pending[T]) wait() (T, error) {
	<-p.done
	return p.v, p.err
}

// inputs are the reads several rules share, which NewInput starts early.
type inputs uint8

const (
	// readsScribeLog is scribeCommits: one `git log -p` over the range.
	readsScribeLog inputs = 1 << iota
	// readsVault is vaultTree: every file of the vault's tip.
	readsVault
)

// rangeFree is a rule that reads nothing --since decides (Since,
// VaultSince, RevRange, the scribe log): NewInput starts it — at once, or
// with --since once the resolution's walk is done — and Run collects its
// findings. Only a rule whose own work is worth it says so (SCR008
// compiles gitleaks' rules for what it scans).
type rangeFree interface{ rangeFree() }

// warmer is a range-free rule with work to do before it reads anything
// (SCR008's keyword index), done while --since resolves.
type warmer interface{ warm() }

// reader is a rule that names the shared inputs it reads, so that NewInput
// starts them before the rules run: the history walk, the longest read of
// a check, then runs beside --since's resolution instead of after it.
type reader interface{ reads() inputs }

type worktreeFile struct {
	data []byte
	ok   bool
	err  error
}

// NewInput prepares a check of repo: it resolves HEAD and, when since is
// not empty, the --since revision (an unknown revision is an error naming it).
// rules are the rules Run will be given (nil for none in particular): the
// reads they share, and those of them that need nothing of --since, start
// now, beside the resolution.
func NewInput(ctx context.Context, repo *gitops.Repo, cfg config.Config, since string, rules []Rule) (*Input, error) {
	head, err := repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	in := &Input{Repo: repo, Config: cfg, Head: head.Commit}
	if in.Vault, err = repo.VaultTip(ctx); err != nil {
		return nil, err
	}
	var need inputs
	for _, r := range rules {
		if rd, ok := r.(reader); ok {
			need |= rd.reads()
		}
	}
	// The early reads run under a context of their own, cancelled when
	// they are all done or when the input cannot be made. The walk is
	// started last: Go runs the newest goroutine first, so its git
	// process, the longest of a check, starts before the others.
	ectx, cancel := context.WithCancel(ctx)
	var early sync.WaitGroup
	defer func() { go func() { early.Wait(); cancel() }() }()
	var resolved chan error
	var settled chan struct{}
	walked := need&readsScribeLog != 0 && in.Head != "" && sinceInWalk(since)
	if since != "" && walked && lateSince(repo, since) {
		// The walk resolves --since itself and fails on a revision that
		// is not a commit: the resolution's own walk (HEAD~500's 500
		// first parents, 15 ms of CPU on moby beside the check's walk)
		// runs only when a rule needs its answer.
		typed := since
		in.late = sync.OnceValue(func() error { return in.resolveSince(ctx, typed, head.Commit) })
		in.sinceText, since = typed, "" // nothing waits for a resolution
	}
	if since != "" {
		resolved, settled = make(chan error, 1), make(chan struct{})
		early.Go(func() {
			resolved <- in.resolveSince(ectx, since, head.Commit)
			close(settled)
		})
	}
	if need&readsVault != 0 && in.Vault != "" {
		early.Go(func() { _, _ = in.vaultTree(ectx) })
	}
	for _, r := range rules {
		if _, ok := r.(rangeFree); ok {
			if in.started == nil {
				in.started = map[string]*pending[[]Finding]{}
			}
			in.started[r.ID()] = goRead(&early, func() ([]Finding, error) {
				// With --since, two git walks start first, one per core;
				// a rule started beside them takes a core from the walk
				// the check waits for. It runs once the resolution's is
				// done (on moby, check --since HEAD~500: 1.74x -> 1.53x
				// git log -p, scripts/bench-real.sh's state), its warm-up
				// before: in this goroutine, queued after the ones that
				// start the git processes. (Started ahead of them, on a
				// check's one spare core, it held back --since's
				// resolution by 8-12 ms.)
				if settled != nil {
					if w, ok := r.(warmer); ok {
						w.warm()
					}
					<-settled
				}
				return r.Check(ectx, in)
			})
		}
	}
	// The scribe log starts now when its range needs no resolution, or
	// when git can resolve --since inside the walk (sinceInWalk);
	// otherwise once --since has resolved.
	var spec []string
	if need&readsScribeLog != 0 && in.Head != "" {
		if in.late != nil {
			rng := []string{in.RevRange()}
			in.scribePending = goRead(&early, func() ([]patchCommit, error) {
				log, err := in.readScribeCommits(ectx, rng)
				if err != nil {
					// Why the revision failed, in the resolution's words.
					if serr := in.settle(); serr != nil {
						return nil, serr
					}
				}
				return log, err
			})
		} else if since == "" {
			in.scribePending = goRead(&early, func() ([]patchCommit, error) { return in.readScribeCommits(ectx, []string{in.Head}) })
		} else if sinceInWalk(since) {
			spec = []string{"^" + since + "^{commit}", in.Head}
			in.scribePending = goRead(&early, func() ([]patchCommit, error) { return in.readScribeCommits(ectx, spec) })
		}
		// Let the walk's goroutine start its git process now, ahead of
		// the rules queued before it: on a check's one spare core, with
		// nothing here to wait for, the rules ran first and the walk
		// started 8-11 ms late.
		runtime.Gosched()
	}
	if since == "" {
		return in, nil
	}
	if err := <-resolved; err != nil {
		cancel()
		return nil, err
	}
	if need&readsScribeLog != 0 && in.Head != "" {
		rng := []string{in.Since + ".." + in.Head}
		if spec == nil {
			in.scribePending = goRead(&early, func() ([]patchCommit, error) { return in.readScribeCommits(ectx, rng) })
		} else {
			// A walk that failed on the revision as typed is redone on
			// the resolved ids, so that its error is about the history.
			first := in.scribePending
			in.scribePending = goRead(&early, func() ([]patchCommit, error) {
				if log, err := first.wait(); err == nil {
					return log, nil
				}
				return in.readScribeCommits(ectx, rng)
			})
		}
	}
	return in, nil
}

// lateSince reports whether --since can wait for a rule to need it (the
// walk started with it as typed): not a commit's full id, which is read in
// process at once (CommitDate), and not in a shallow clone, where the
// resolution is what refuses a commit past the graft.
func lateSince(repo *gitops.Repo, since string) bool {
	if len(since) == 40 || len(since) == 64 {
		return false
	}
	_, err := os.Stat(filepath.Join(repo.CommonDir, "shallow"))
	return err != nil
}

// settle resolves a --since left to the walk (NewInput's late), once.
func (in *Input) settle() error {
	if in.late == nil {
		return nil
	}
	in.lateAsked.Store(true)
	return in.late()
}

// SinceErr is why --since could not be resolved when a rule asked for it,
// or nil: a check that failed on it reports that alone.
func (in *Input) SinceErr() error {
	if in.late == nil || !in.lateAsked.Load() {
		return nil
	}
	return in.late()
}

// VaultSinceDate is VaultSince, resolving a --since left to the walk first.
func (in *Input) VaultSinceDate() (string, error) {
	if err := in.settle(); err != nil {
		return "", err
	}
	return in.VaultSince, nil
}

// sinceInWalk reports whether --since REV can be handed to the history walk
// as typed ("^REV^{commit}") and name there the commit the resolution
// names: one revision, not a range ("A..B", "A^!", "A^@", "A^-"), an
// option or a negation. git resolves both the same way (get_oid on the
// same text), so the walk need not wait for the resolution.
func sinceInWalk(since string) bool {
	if since == "" || strings.HasPrefix(since, "-") || strings.HasPrefix(since, "^") {
		return false
	}
	for _, s := range []string{"..", "^!", "^@", "^-"} {
		if strings.Contains(since, s) {
			return false
		}
	}
	return true
}

// resolveSince sets Since and VaultSince from the --since revision.
func (in *Input) resolveSince(ctx context.Context, since, head string) error {
	repo := in.Repo
	// One read resolves --since and gives its date (in process for a
	// commit's full id, else one git process); a shallow repository is
	// one with a shallow file (gitrepository-layout(5)).
	var c, date string
	var err error
	if d, ok := repo.CommitDate(since); ok {
		// A commit's full id, as CI passes it, is read in process: no
		// third process beside the walk and the scribe log.
		c, date = strings.ToLower(since), d
	} else {
		// (`git show -s` of an old commit took 61 ms on git/git, `git
		// log -1 --no-walk` 8; --end-of-options keeps a REV that starts
		// with a dash a revision.)
		var out []byte
		out, err = repo.Git(ctx, "log", "-1", "--no-walk", "--no-show-signature", "--format=%H %cI", "--end-of-options", since+"^{commit}", "--")
		if err == nil {
			c, date, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
		}
	}
	if err != nil || c == "" {
		err = fmt.Errorf("%s is not a commit in this repository", since)
	}
	_, serr := os.Stat(filepath.Join(repo.CommonDir, "shallow"))
	shallow := serr == nil
	if err != nil {
		if shallow {
			return fmt.Errorf("--since %s: the history is too shallow to check (this clone is shallow and lacks that commit); fetch the whole history first: actions/checkout's fetch-depth: 0, or git fetch --unshallow", since)
		}
		return fmt.Errorf("--since %s: %w", since, err)
	}
	if shallow && head != "" && !repo.IsAncestor(ctx, c, head) {
		// In a shallow clone the walk would stop at the graft and pass
		// what it never saw: refuse instead of a silent pass.
		return fmt.Errorf("--since %s: the history is too shallow to check what changed since it (the clone is shallow and %s is not reachable from HEAD); fetch the whole history first: actions/checkout's fetch-depth: 0, or git fetch --unshallow", since, since)
	}
	in.Since, in.VaultSince = c, date
	return nil
}

// VaultPrefix names a file of the vault ref in findings.
const VaultPrefix = gitops.VaultRef + ":"

// Record reads one of scribe's own files: from the vault's tip when there
// is one (file is then "refs/scribe/vault:<path>"), else from the work tree
// at branchPath. ok is false when it does not exist.
func (in *Input) Record(ctx context.Context, vaultPath, branchPath string) (file string, data []byte, ok bool, err error) {
	if in.Vault == "" {
		data, ok, err = in.ReadFile(branchPath)
		return branchPath, data, ok, err
	}
	t, err := in.vaultTree(ctx)
	if err != nil {
		return VaultPrefix + vaultPath, nil, false, err
	}
	data, ok = t.files[vaultPath]
	return VaultPrefix + vaultPath, data, ok, nil
}

// vaultTree is the files of the vault's tip.
type vaultTree struct {
	paths []string // as git lists them
	files map[string][]byte
}

// under returns the paths of t under dir, as `git ls-tree -r <tip> --
// dir/` lists them.
func (t vaultTree) under(dir string) []string {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []string
	for _, p := range t.paths {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	return out
}

// vaultTree reads every file of the vault's tip, once per check: one
// listing and one read serve all the rules that look at the vault (the
// journal, the bridge notes, the secret scan of every file), where each
// listed and read on its own (a git process apiece through plumbing).
func (in *Input) vaultTree(ctx context.Context) (vaultTree, error) {
	in.vaultOnce.Do(func() {
		if in.Vault == "" {
			return
		}
		paths, err := in.Repo.ListFiles(ctx, in.Vault, "")
		if err != nil {
			in.vaultErr = err
			return
		}
		files, err := in.Repo.ReadVaultFiles(ctx, in.Vault, paths) // loose objects first: a vault tip's are
		if err != nil {
			in.vaultErr = err
			return
		}
		in.vault = vaultTree{paths: paths, files: files}
	})
	return in.vault, in.vaultErr
}

// RevRange is the argument naming the history to verify for git log, or ""
// when there is no history (unborn HEAD). A --since left to the walk is
// named as typed: git resolves it there as the resolution would.
func (in *Input) RevRange() string {
	switch {
	case in.Head == "":
		return ""
	case in.late != nil:
		return in.sinceText + ".." + in.Head
	case in.Since != "":
		return in.Since + ".." + in.Head
	}
	return in.Head
}

// ReadFile reads a repo-relative file from the working tree; ok is false
// when it does not exist. A path leading out of the repository through a
// symlink is an error. Reads are cached for the run.
func (in *Input) ReadFile(rel string) (data []byte, ok bool, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if f, hit := in.files[rel]; hit {
		return f.data, f.ok, f.err
	}
	f := in.readFile(rel)
	if in.files == nil {
		in.files = map[string]worktreeFile{}
	}
	in.files[rel] = f
	return f.data, f.ok, f.err
}

func (in *Input) readFile(rel string) worktreeFile {
	abs, err := in.Repo.AbsRead(rel) // reads follow in-repo symlinks
	if err != nil {
		return worktreeFile{err: fmt.Errorf("read %s: %w", rel, err)}
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return worktreeFile{}
	}
	if err == nil && fi.IsDir() {
		return worktreeFile{err: fmt.Errorf("read %s: it is a directory, not a file", rel)}
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return worktreeFile{}
	}
	if err != nil {
		return worktreeFile{err: fmt.Errorf("read %s: %w", rel, err)}
	}
	return worktreeFile{data: data, ok: true}
}

// Summary counts findings by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
}

// Report is the result of a check run. Its JSON form is the stable schema of
// `git scribe check --format json`:
//
//	{"findings": [{"rule_id", "severity", "file", "line", "message", "fix", "commit"}…],
//	 "summary": {"errors", "warnings", "notes"}}
//
// "file", "line" and "commit" are left out when they do not apply.
type Report struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// Failed reports whether any finding is an error.
func (r Report) Failed() bool { return r.Summary.Errors > 0 }

// Select returns the rules whose id (or name) is in ids, in list order; an
// empty ids selects all of them. An unknown id is an error listing the known
// ones.
func Select(rules []Rule, ids []string) ([]Rule, error) {
	if len(ids) == 0 {
		return rules, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		for _, part := range strings.Split(id, ",") {
			if part = strings.TrimSpace(part); part != "" {
				want[strings.ToUpper(part)] = true
			}
		}
	}
	var out []Rule
	for _, r := range rules {
		if want[strings.ToUpper(r.ID())] || want[strings.ToUpper(r.Name())] {
			out = append(out, r)
			delete(want, strings.ToUpper(r.ID()))
			delete(want, strings.ToUpper(r.Name()))
		}
	}
	if len(want) > 0 {
		unknown := make([]string, 0, len(want))
		for id := range want {
			unknown = append(unknown, id)
		}
		slices.Sort(unknown)
		known := make([]string, len(rules))
		for i, r := range rules {
			known[i] = r.ID()
		}
		return nil, fmt.Errorf("unknown rule %s; known rules: %s", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return out, nil
}

// Run runs rules concurrently and returns their findings sorted by file,
// line and rule. The first rule that cannot run makes Run fail, naming it.
func Run(ctx context.Context, in *Input, rules []Rule) (Report, error) {
	results := make([][]Finding, len(rules))
	errs := make([]error, len(rules))
	var wg sync.WaitGroup
	for i, r := range rules {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var found []Finding
			var err error
			if p, ok := in.started[r.ID()]; ok {
				found, err = p.wait()
			} else {
				found, err = r.Check(ctx, in)
			}
			if err != nil {
				errs[i] = fmt.Errorf("rule %s (%s): %w", r.ID(), r.Name(), err)
				return
			}
			for j := range found {
				if found[j].RuleID == "" {
					found[j].RuleID = r.ID()
				}
				if found[j].Severity == "" {
					found[j].Severity = r.Severity()
				}
			}
			results[i] = found
		}()
	}
	wg.Wait()
	if err := in.SinceErr(); err != nil {
		return Report{}, err // each rule that asked failed on it
	}
	if err := errors.Join(errs...); err != nil {
		return Report{}, err
	}
	rep := Report{Findings: []Finding{}}
	for _, found := range results {
		rep.Findings = append(rep.Findings, found...)
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Message, b.Message))
	})
	for _, f := range rep.Findings {
		switch f.Severity {
		case SeverityError:
			rep.Summary.Errors++
		case SeverityWarning:
			rep.Summary.Warnings++
		default:
			rep.Summary.Notes++
		}
	}
	return rep, nil
}
